/**
 * How RPC failures become `ChainError` reasons, against a scripted JSON-RPC server on 127.0.0.1
 * that answers as geth and hosted providers do (anvil cannot rate-limit or say "already known").
 */
import { createServer, type Server } from "node:http"
import { assert, layer } from "@effect/vitest"
import { ChainGateway } from "@ratelock/core"
import { Context, Effect, Layer, Redacted } from "effect"
import { keccak256 } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as EvmGateway from "../../src/EvmGateway.ts"
import * as Persisted from "../../src/internal/evm/persisted.ts"
import { testMnemonic } from "@ratelock/test-support/Anvil"

type Answer = {
  readonly status?: number
  readonly result?: unknown
  readonly error?: { code: number; message: string }
}

/** The script: what each method answers now (a default chain id and decimals keep the layer building). */
class FakeRpc extends Context.Service<
  FakeRpc,
  { readonly url: string; readonly answers: Map<string, Answer>; readonly calls: Array<string> }
>()("@ratelock/adapters-chain/test/FakeRpc") {
  static readonly layer = Layer.effect(
    FakeRpc,
    Effect.gen(function* () {
      const answers = new Map<string, Answer>()
      const calls: Array<string> = []
      const defaults: Record<string, Answer> = {
        eth_chainId: { result: "0x7a69" },
        eth_call: { result: `0x${"6".padStart(64, "0")}` } // decimals() = 6
      }
      const server = yield* Effect.acquireRelease(
        Effect.promise(
          () =>
            new Promise<Server>((resolve) => {
              const s = createServer((req, res) => {
                let body = ""
                req.on("data", (chunk) => (body += chunk))
                req.on("end", () => {
                  const request = JSON.parse(body) as { id: number; method: string }
                  calls.push(request.method)
                  const answer = answers.get(request.method) ?? defaults[request.method] ?? { result: null }
                  res.writeHead(answer.status ?? 200, { "content-type": "application/json" })
                  const reply = answer.error !== undefined ? { error: answer.error } : { result: answer.result ?? null }
                  res.end(JSON.stringify({ jsonrpc: "2.0", id: request.id, ...reply }))
                })
              })
              s.listen(0, "127.0.0.1", () => resolve(s))
            })
        ),
        (s) => Effect.promise(() => new Promise<void>((resolve) => s.close(() => resolve())))
      )
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      return FakeRpc.of({ url: `http://127.0.0.1:${port}`, answers, calls })
    })
  )
}

const rail: ChainGateway.Rail = { chain: "ethereum", environment: "sandbox", token: "USDC" }
const hotKey = generatePrivateKey()

const options = (url: string): EvmGateway.Options => ({
  chain: "ethereum",
  environment: "sandbox",
  rpcUrl: url,
  tokens: { USDC: { address: "0x5fbdb2315678afecb367f032d93f642f64180aa3" } },
  funding: { _tag: "Mnemonic", mnemonic: Redacted.make(testMnemonic) },
  hotWalletKey: Redacted.make(hotKey),
  confirmations: 3
})

/** A payout as the gateway persists it, signed by the hot key for chain 31337. */
const signed = Effect.promise(async () => {
  const account = privateKeyToAccount(hotKey)
  const serialized = await account.signTransaction({
    type: "eip1559",
    chainId: 31337,
    nonce: 4,
    to: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    data: "0x",
    gas: 60_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1n
  })
  const persisted = Persisted.encode({
    v: 1,
    chainId: 31337,
    from: account.address.toLowerCase(),
    nonce: 4,
    serialized
  })
  return { transactionHash: keccak256(serialized), persisted }
})

const withGateway = <A, E>(f: (g: ChainGateway.ChainGatewayShape) => Effect.Effect<A, E>) =>
  Effect.flatMap(FakeRpc, (rpc) =>
    ChainGateway.ChainGateway.use(f).pipe(Effect.provide(EvmGateway.layer(options(rpc.url))))
  )

const broadcastReason = (answer: Answer, known: Partial<Record<string, Answer>> = {}) =>
  Effect.gen(function* () {
    const rpc = yield* FakeRpc
    rpc.answers.clear()
    rpc.answers.set("eth_sendRawTransaction", answer)
    for (const [method, a] of Object.entries(known)) if (a !== undefined) rpc.answers.set(method, a)
    const prepared = yield* signed
    const result = yield* withGateway((g) => Effect.result(g.broadcastPayout(rail, prepared)))
    return result._tag === "Success" ? "ok" : result.failure.reason
  })

layer(FakeRpc.layer, { excludeTestServices: true })("EvmGateway RPC failures", (it) => {
  it.effect("rate limits: HTTP 429, with or without a JSON-RPC body, and -32005", () =>
    Effect.gen(function* () {
      const rpc = yield* FakeRpc
      const observeReason = (answer: Answer) =>
        Effect.gen(function* () {
          rpc.answers.clear()
          rpc.answers.set("eth_blockNumber", answer)
          const error = yield* withGateway((g) =>
            Effect.flip(g.observeFunding(rail, "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", null))
          )
          return error.reason
        })
      assert.strictEqual(yield* observeReason({ status: 429 }), "rate_limited")
      assert.strictEqual(
        yield* observeReason({ status: 429, error: { code: -32000, message: "slow down" } }),
        "rate_limited"
      )
      assert.strictEqual(yield* observeReason({ error: { code: -32005, message: "limit exceeded" } }), "rate_limited")
      assert.strictEqual(yield* observeReason({ status: 503 }), "rpc_unavailable")
      const other = yield* observeReason({ error: { code: -32000, message: "header not found" } })
      assert.strictEqual(other, "rpc_error")
      rpc.answers.clear()
      rpc.answers.set("eth_chainId", { status: 429 })
      const build = yield* Layer.build(EvmGateway.layer(options(rpc.url))).pipe(Effect.scoped, Effect.flip)
      assert.strictEqual(build.reason, "rate_limited")
      assert.notInclude(build.message, "127.0.0.1")
    })
  )

  it.effect("broadcast: repeats are successes, refusals keep their reason", () =>
    Effect.gen(function* () {
      const error = (message: string): Answer => ({ error: { code: -32000, message } })
      assert.strictEqual(yield* broadcastReason({ result: "0x01" }), "ok")
      assert.strictEqual(yield* broadcastReason(error("already known")), "ok")
      assert.strictEqual(yield* broadcastReason(error("ALREADY_EXISTS: already known")), "ok")
      assert.strictEqual(
        yield* broadcastReason(error("insufficient funds for gas * price + value")),
        "insufficient_funds"
      )
      // nonce too low: a success only if the chain has this very transaction
      assert.strictEqual(yield* broadcastReason(error("nonce too low")), "nonce_consumed")
      assert.strictEqual(
        yield* broadcastReason(error("nonce too low"), {
          eth_getTransactionByHash: { result: null },
          eth_getTransactionReceipt: {
            result: {
              blockHash: `0x${"1".repeat(64)}`,
              blockNumber: "0x10",
              contractAddress: null,
              cumulativeGasUsed: "0x5208",
              effectiveGasPrice: "0x1",
              from: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
              gasUsed: "0x5208",
              logs: [],
              logsBloom: `0x${"0".repeat(512)}`,
              status: "0x1",
              to: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
              transactionHash: `0x${"2".repeat(64)}`,
              transactionIndex: "0x0",
              type: "0x2"
            }
          }
        }),
        "ok"
      )
      // the pool holds a version (or another transaction) at the nonce that pays more: a fee matter, core waits
      assert.strictEqual(yield* broadcastReason(error("replacement transaction underpriced")), "fee_too_low")
      assert.strictEqual(yield* broadcastReason(error("already exists")), "nonce_conflict")
      assert.strictEqual(yield* broadcastReason(error("max fee per gas less than block base fee")), "fee_too_low")
      assert.strictEqual(yield* broadcastReason({ status: 429 }), "rate_limited")
      assert.strictEqual(yield* broadcastReason({ status: 502 }), "rpc_unavailable")
    })
  )

  it.effect("an unreachable RPC is rpc_unavailable, without the URL in the message", () =>
    Effect.gen(function* () {
      const error = yield* Layer.build(EvmGateway.layer(options("http://127.0.0.1:1/secret-api-key"))).pipe(
        Effect.scoped,
        Effect.flip
      )
      assert.strictEqual(error.reason, "rpc_unavailable")
      assert.notInclude(error.message, "secret-api-key")
    })
  )
})
