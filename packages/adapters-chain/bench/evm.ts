/**
 * EVM gateway figures on a local anvil (`node --conditions=source bench/evm.ts` from the package):
 * funding addresses derived per second (seed and xpub), the observe call that first reports a
 * transfer once its depth is mined, and a payout's round trip (prepare, broadcast, mine to depth,
 * lookup until Confirmed). Anvil answers in microseconds, so these are the gateway's own costs
 * plus a local JSON-RPC round trip; a remote RPC adds its latency per call.
 */
import { pathToFileURL } from "node:url"
import { ChainGateway, Money } from "@ratelock/core"
import { HDKey } from "@scure/bip32"
import { mnemonicToSeedSync } from "@scure/bip39"
import { Effect, type Layer } from "effect"
import type { Address, Hash } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as EvmGateway from "../src/EvmGateway.ts"
import { Anvil, testMnemonic } from "@ratelock/test-support/Anvil"
import * as Erc20 from "@ratelock/test-support/Erc20"
import { depth, EvmFixture, fixture, funderIndex } from "../test/support/evmTestChain.ts"

const rail: ChainGateway.Rail = { chain: "ethereum", environment: "sandbox", token: "USDC" }

export interface Row {
  readonly measure: string
  readonly n: number
  readonly result: string
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN
const latency = (measure: string, samples: Array<number>): Row => {
  const sorted = samples.sort((a, b) => a - b)
  return {
    measure,
    n: samples.length,
    result: `median ${percentile(sorted, 50).toFixed(2)} ms, p95 ${percentile(sorted, 95).toFixed(2)} ms`
  }
}
const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = performance.now()
    const value = yield* effect
    return [value, performance.now() - start] as const
  })

const addressesPerSecond = (measure: string, layer: Layer.Layer<ChainGateway.ChainGateway, ChainGateway.ChainError>) =>
  Effect.gen(function* () {
    const gateway = yield* ChainGateway.ChainGateway
    const n = 2_000
    for (let i = 0; i < 200; i++) yield* gateway.fundingAddress(rail, i) // warm-up
    const [, ms] = yield* timed(
      Effect.forEach(
        Array.from({ length: n }, (_, i) => i),
        (i) => gateway.fundingAddress(rail, i)
      )
    )
    return { measure, n, result: `${Math.round((n / ms) * 1000).toLocaleString("en")} /s` } satisfies Row
  }).pipe(Effect.provide(layer))

const program = Effect.gen(function* () {
  const anvil = yield* Anvil
  const f = yield* EvmFixture
  const rows: Array<Row> = []
  const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(testMnemonic)).derive("m/44'/60'/1'").publicExtendedKey
  rows.push(yield* addressesPerSecond("funding addresses, from the seed", EvmGateway.layer(f.options())))
  rows.push(
    yield* addressesPerSecond(
      "funding addresses, watch-only from the xpub",
      EvmGateway.layer(f.options({ funding: { _tag: "Xpub", xpub } }))
    )
  )

  const gatewayLayer = EvmGateway.layer(f.options())
  yield* Effect.gen(function* () {
    const gateway = yield* ChainGateway.ChainGateway
    const funder = anvil.account(funderIndex)
    const rounds = 20

    const detect: Array<number> = []
    for (let i = 0; i < rounds; i++) {
      const address = yield* gateway.fundingAddress(rail, 10_000 + i)
      const { cursor } = yield* gateway.observeFunding(rail, address, null)
      yield* Erc20.transfer(anvil.client, funder, f.usdc, address as Address, 1_000_000n)
      yield* anvil.mine(depth - 1)
      const [seen, ms] = yield* timed(gateway.observeFunding(rail, address, cursor))
      if (seen.transfers.length !== 1) return yield* Effect.die("the transfer was not reported at depth")
      detect.push(ms)
    }
    rows.push(latency("funding detection: the observe call that reports it", detect))

    const prepare: Array<number> = []
    const roundTrip: Array<number> = []
    for (let i = 0; i < rounds; i++) {
      const destination = privateKeyToAccount(generatePrivateKey()).address
      const order = { payoutId: `bench-${i}`, rail, destination, amount: Money.unsafe("1.5"), committed: Money.zero }
      const start = performance.now()
      const [prepared, prepareMs] = yield* timed(gateway.preparePayout(order))
      yield* gateway.broadcastPayout(rail, prepared)
      yield* Effect.promise(() =>
        anvil.client.waitForTransactionReceipt({ hash: prepared.transactionHash as Hash, pollingInterval: 1 })
      )
      yield* anvil.mine(depth - 1)
      let found = yield* gateway.lookupPayout(rail, prepared)
      while (found._tag !== "Confirmed") {
        if (found._tag === "Failed") return yield* Effect.die(`payout failed: ${found.reason}`)
        yield* anvil.mine(1)
        found = yield* gateway.lookupPayout(rail, prepared)
      }
      roundTrip.push(performance.now() - start)
      prepare.push(prepareMs)
    }
    rows.push(latency("payout: prepare (checks, fees, gas estimate, sign)", prepare))
    rows.push(latency("payout: prepare + broadcast + mine to depth + lookup", roundTrip))
  }).pipe(Effect.provide(gatewayLayer))
  return rows
}).pipe(Effect.provide(fixture))

/** The rows as a table: measure, n, result. */
export const print = (rows: ReadonlyArray<Row>) => {
  const width = Math.max(...rows.map((r) => r.measure.length))
  console.log(`${"measure".padEnd(width)}  ${"n".padStart(5)}  result`)
  for (const row of rows) console.log(`${row.measure.padEnd(width)}  ${String(row.n).padStart(5)}  ${row.result}`)
}

export const main = async (): Promise<ReadonlyArray<Row>> => {
  const rows = await Effect.runPromise(program)
  console.log(`EVM gateway on anvil (depth ${depth})`)
  print(rows)
  return rows
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main()
}
