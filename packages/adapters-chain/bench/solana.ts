/**
 * Solana gateway benchmark on litesvm behind the test JSON-RPC front end (the same harness as the
 * tests). From the package directory:
 *
 *   node --conditions=source bench/solana.ts
 *
 * - derivations: funding addresses per second (SLIP-10 step + ed25519 public key + base58),
 *   directly and through the gateway's `fundingAddress`;
 * - funding detection: from the transfer's submission to the first observation that reports it,
 *   depth reached by warping slots (so this is the gateway's and the RPC's work, not chain time:
 *   on a real cluster add the ~13 s until a slot is finalized);
 * - payout round trip: prepare (accounts, blockhash and recent prioritization fees read, the
 *   node's simulation for the compute-unit limit, sign) + broadcast, warp to depth, lookup until
 *   `Confirmed`.
 */
import { ChainGateway, Money } from "@ratelock/core"
import { Keypair } from "@solana/web3.js"
import { Effect } from "effect"
import * as Hd from "../src/internal/solana/hd.ts"
import { mnemonic, rail, SolanaChain, layer } from "../test/support/solanaTestChain.ts"

const rounds = 30

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

const summary = (samples: ReadonlyArray<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) }
}

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = performance.now()
    const value = yield* effect
    return { value, ms: performance.now() - start }
  })

/** Operations per second of `f` over about `ms` milliseconds. */
const rate = (f: (i: number) => unknown, ms = 1000) => {
  for (let i = 0; i < 50; i++) f(i)
  const start = performance.now()
  let n = 0
  while (performance.now() - start < ms) f(n++)
  return (n * 1000) / (performance.now() - start)
}

const program = Effect.gen(function* () {
  const gateway = yield* ChainGateway.ChainGateway
  const chain = yield* SolanaChain

  const account = Hd.accountNode(mnemonic, "sandbox")
  if (typeof account === "string") throw new Error(account)
  const direct = rate((i) => Hd.address(account, i))
  const start = performance.now()
  let throughGateway = 0
  while (performance.now() - start < 1000) yield* gateway.fundingAddress(rail, throughGateway++)
  const viaGateway = (throughGateway * 1000) / (performance.now() - start)

  const detection: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    const address = yield* gateway.fundingAddress(rail, 1_000_000 + i)
    const { cursor } = yield* gateway.observeFunding(rail, address, null)
    const { ms } = yield* timed(
      Effect.gen(function* () {
        chain.send(address, 1_000_000n)
        chain.rpc.advance(chain.depth - 1)
        const seen = yield* gateway.observeFunding(rail, address, cursor)
        if (seen.transfers.length !== 1) throw new Error("the transfer was not reported")
      })
    )
    detection.push(ms)
  }

  const payouts: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    const order = {
      payoutId: `bench-${i}`,
      rail,
      destination: Keypair.generate().publicKey.toBase58(),
      amount: Money.unsafe("1.5"),
      committed: Money.zero
    }
    const { ms } = yield* timed(
      Effect.gen(function* () {
        const prepared = yield* gateway.preparePayout(order)
        yield* gateway.broadcastPayout(rail, prepared)
        chain.rpc.advance(chain.depth - 1)
        const found = yield* gateway.lookupPayout(rail, prepared)
        if (found._tag !== "Confirmed") throw new Error(`payout ${found._tag}`)
      })
    )
    payouts.push(ms)
  }

  const d = summary(detection)
  const p = summary(payouts)
  const rows = [
    ["measure", "result"],
    ["funding addresses derived (SLIP-10 + ed25519 + base58)", `${Math.round(direct).toLocaleString("en-US")} /s`],
    ["funding addresses through gateway.fundingAddress", `${Math.round(viaGateway).toLocaleString("en-US")} /s`],
    [
      `funding detection, send → reported at depth ${chain.depth} (n=${rounds})`,
      `median ${d.median.toFixed(1)} ms, p95 ${d.p95.toFixed(1)} ms`
    ],
    [
      `payout round trip, prepare + broadcast + lookup Confirmed (n=${rounds})`,
      `median ${p.median.toFixed(1)} ms, p95 ${p.p95.toFixed(1)} ms`
    ]
  ]
  const width = Math.max(...rows.map((r) => r[0]!.length))
  console.log(rows.map(([label, value]) => `${label!.padEnd(width)}  ${value}`).join("\n"))
})

await Effect.runPromise(Effect.provide(program, layer))
