/**
 * A real local EVM chain for tests and benchmarks: the anvil binary from `@foundry-rs/anvil`'s
 * platform package, on a free port of 127.0.0.1, `--silent`, automining (one block per
 * transaction), stopped when the layer's scope closes. One per test file; it starts in about 150 ms.
 *
 * Its accounts are the standard test mnemonic's `m/44'/60'/0'/0/i`, each holding 10,000 ether.
 */
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { Context, Effect, Layer } from "effect"
import {
  createTestClient,
  type Hex,
  http,
  type HttpTransport,
  type PublicActions,
  publicActions,
  type TestClient,
  type WalletActions,
  walletActions
} from "viem"
import { mnemonicToAccount, type HDAccount } from "viem/accounts"
import { freePort, type Spawned, start as spawn, stop } from "./Processes.ts"

export const testMnemonic = "test test test test test test test test test test test junk"

/** The native binary, without the package's node wrapper (one process to kill, no extra start-up). */
const binary = (): string => {
  const require = createRequire(import.meta.url)
  const arch = process.arch === "x64" ? "amd64" : process.arch
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`
  const candidates: Array<() => string> = [
    () => createRequire(require.resolve("@foundry-rs/anvil/package.json")).resolve(`${platformPackage}/bin/anvil`),
    () => require.resolve(`${platformPackage}/bin/anvil`)
  ]
  for (const candidate of candidates) {
    try {
      const path = candidate()
      if (existsSync(path)) return path
    } catch {
      // try the next way
    }
  }
  throw new Error(`no anvil binary: is ${platformPackage} installed?`)
}

const ready = async (url: string, { child }: Spawned) => {
  const until = performance.now() + 10_000
  while (performance.now() < until && child.exitCode === null) {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] })
      })
      if (response.ok) return true
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 15))
  }
  return false
}

/** Spawns anvil; retries on another port if the chosen one was taken in between. */
const start = async (): Promise<{ readonly url: string; readonly anvil: Spawned }> => {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort()
    const anvil = spawn(binary(), ["--host", "127.0.0.1", "--port", String(port), "--silent"])
    const url = `http://127.0.0.1:${port}`
    if (await ready(url, anvil)) return { url, anvil }
    await stop(anvil.child)
    if (attempt >= 2) throw new Error(`anvil did not start: ${anvil.output()}`)
  }
}

export type AnvilClient = TestClient<"anvil", HttpTransport, undefined, undefined, true> &
  PublicActions<HttpTransport, undefined> &
  WalletActions<undefined, undefined>

const makeClient = (url: string): AnvilClient =>
  createTestClient({ mode: "anvil", transport: http(url, { retryCount: 0 }) })
    .extend(publicActions)
    .extend(walletActions)

export interface AnvilShape {
  readonly url: string
  readonly client: AnvilClient
  /** Anvil's funded account `i` (0–9). */
  readonly account: (i: number) => HDAccount
  /** Its private key. */
  readonly privateKey: (i: number) => Hex
  /** Mines `blocks` empty blocks on top of the head. */
  readonly mine: (blocks: number) => Effect.Effect<void>
  readonly head: Effect.Effect<number>
}

export class Anvil extends Context.Service<Anvil, AnvilShape>()("@ratelock/test-support/Anvil") {}

const privateKeyOf = (account: HDAccount): Hex => `0x${Buffer.from(account.getHdKey().privateKey!).toString("hex")}`

export const layer: Layer.Layer<Anvil> = Layer.effect(
  Anvil,
  Effect.gen(function* () {
    const { url } = yield* Effect.acquireRelease(Effect.promise(start), ({ anvil }) =>
      Effect.promise(() => stop(anvil.child, "SIGTERM"))
    )
    const client = makeClient(url)
    const accounts = Array.from({ length: 10 }, (_, i) => mnemonicToAccount(testMnemonic, { addressIndex: i }))
    const account = (i: number) => accounts[i]!
    return Anvil.of({
      url,
      client,
      account,
      privateKey: (i) => privateKeyOf(account(i)),
      mine: (blocks) => Effect.promise(() => client.mine({ blocks })),
      head: Effect.promise(() => client.getBlockNumber({ cacheTime: 0 }).then(Number))
    })
  })
)
