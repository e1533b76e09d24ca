/**
 * Balances and sweeps on every simulated chain (in memory, and in SQL on PGlite or Postgres),
 * through core's `ChainGateway` and the `SimulatedChain` service only: what an address holds, a
 * sweep to the rail's simulated hot wallet or to a treasury address, at most once, refused or
 * failed when the source holds too little; and, on a chain with a confirmation delay, a sweep
 * that confirms like a payout.
 *
 * As in `ChainContract.ts`, the tests share one chain: each uses its own HD indexes and sweep ids,
 * and reads the hot wallets (shared by every test) by their change.
 */
import { assert, layer } from "@effect/vitest"
import { ChainGateway, Money } from "@ratelock/core"
import { Effect, type Layer } from "effect"
import { TestClock } from "effect/testing"
import { SimulatedChain } from "../src/SimulatedChain.ts"
import { freshIndex, rail } from "./ChainContract.ts"

const amount = Money.unsafe

/** The simulated hot wallets, as the README lists them. */
export const hotWallets = {
  sandbox: {
    ethereum: "0x3e8393a4a83aa79a1e1ea0405012fa5208b34914",
    polygon: "0x1d837b709ba2de3a58380a5513ee0a85c9e8829d",
    solana: "CQhGpZqXuGyx5LoAiZxi4GMeVMhcivpcNPpD3Wd4t9uf"
  },
  production: {
    ethereum: "0x46b3ecf4ea5a4e9c7fb086ead740279ed2755eba",
    polygon: "0xbce207f5191ee952ae3e4963e90d7c4aac85f909",
    solana: "FMaazppQaMSujxWwsxuB4EPXqFDrcaYmv63FJfMdrmzD"
  }
} as const

/**
 * A fresh funding address holding `funded` of the rail's token, and `sweep`, a sweep of it (a new
 * sweep id each time) of `value` to `destination`.
 */
const fundedSource = (r: ChainGateway.Rail, funded: string) =>
  Effect.gen(function* () {
    const sim = yield* SimulatedChain
    const fundingIndex = freshIndex()
    const source = yield* sim.fundingAddress(r, fundingIndex)
    yield* sim.fund(r, source, amount(funded))
    const sweep = (destination: string | null, value: string): ChainGateway.SweepOrder => ({
      sweepId: `sweep-${crypto.randomUUID()}`,
      rail: r,
      source,
      fundingIndex,
      destination,
      amount: amount(value)
    })
    return { source, fundingIndex, sweep }
  })

/** Drafts and signs a sweep as core does (no nonce on a simulated chain): the job to persist. */
const sign = (order: ChainGateway.SweepOrder) =>
  Effect.gen(function* () {
    const gateway = yield* ChainGateway.ChainGateway
    const draft = yield* gateway.draftSweep(order)
    assert.isNull(draft.nonceAccount)
    return yield* draft.sign(null)
  })

const balances = (r: ChainGateway.Rail, addresses: ReadonlyArray<string>) =>
  Effect.map(
    ChainGateway.ChainGateway.use((g) => g.balances(r, addresses)),
    (all) => all.map(Money.format)
  )

const plus = (a: string, b: string) => Money.format(Money.sum(amount(a), amount(b)))

export const suite = (name: string, chain: Layer.Layer<SimulatedChain | ChainGateway.ChainGateway, unknown>): void =>
  layer(chain, { excludeTestServices: true })(name, (it) => {
    it.effect("balances: each address's confirmed token balance, in order, per token and network", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const pol = rail("polygon")
        const [a, idle] = [yield* sim.fundingAddress(pol, freshIndex()), yield* sim.fundingAddress(pol, freshIndex())]
        yield* sim.fund(pol, a, amount("10.5"))
        yield* sim.fund(pol, a.toUpperCase().replace("0X", "0x"), amount("2.000001"))
        yield* sim.fund({ ...pol, token: "USDT" }, a, amount("4"))
        yield* sim.fund(rail("polygon", "production"), a, amount("5"))
        // an address given twice, in another spelling, answers twice
        assert.deepStrictEqual(yield* balances(pol, [a, idle, a.toUpperCase().replace("0X", "0x")]), [
          "12.500001",
          "0",
          "12.500001"
        ])
        assert.deepStrictEqual(yield* balances({ ...pol, token: "USDT" }, [a]), ["4"])
        assert.deepStrictEqual(yield* balances(pol, []), [])
        assert.strictEqual((yield* Effect.flip(sim.balances(pol, [a, "0x12"]))).reason, "invalid_address")
        const eurcOnPolygon = { ...pol, token: "EURC" } as const
        assert.strictEqual((yield* Effect.flip(sim.balances(eurcOnPolygon, [a]))).reason, "unsupported_token")
        assert.strictEqual(yield* sim.fundingKeys({ chain: "solana", environment: "production" }), "held")
      })
    )

    it.effect("a sweep to the hot wallet moves the whole amount once, confirms as a payout, and funds nothing", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const eth = rail("ethereum")
        const hot = hotWallets.sandbox.ethereum
        const { source, sweep } = yield* fundedSource(eth, "30.25")
        const seen = yield* sim.observeFunding(eth, source, null)
        assert.strictEqual(seen.transfers.length, 1)
        const [before] = yield* balances(eth, [hot])

        const order = sweep(null, Money.format(seen.transfers[0]!.amount))
        const prepared = yield* sign(order)
        assert.deepStrictEqual(yield* sim.lookupPayout(eth, prepared), { _tag: "Unknown" })
        // signing again (a crash before it was persisted) gives the same job
        assert.deepStrictEqual(yield* sign(order), prepared)
        yield* sim.broadcastPayout(eth, prepared)
        const confirmed = yield* sim.lookupPayout(eth, prepared)
        assert.strictEqual(confirmed._tag, "Confirmed")
        assert.isTrue(confirmed._tag === "Confirmed" && confirmed.native === undefined && !confirmed.cancelled)
        assert.deepStrictEqual(yield* balances(eth, [source, hot]), ["0", plus(before!, "30.25")])

        // the outgoing transfer is no funding: nothing new past the cursor, the same one from the start
        assert.deepStrictEqual(yield* sim.observeFunding(eth, source, seen.cursor), {
          transfers: [],
          cursor: seen.cursor
        })
        assert.deepStrictEqual(yield* sim.observeFunding(eth, source, null), seen)
        assert.strictEqual((yield* sim.transfersInto(eth, source)).length, 1)

        // one version, never replaced
        assert.strictEqual((yield* sim.replacePayout(eth, prepared, "due"))._tag, "Waiting")
        assert.strictEqual((yield* sim.inspectPayout(eth, prepared)).versions.length, 1)
      })
    )

    it.effect("a sweep to a treasury address credits it; broadcasting the job again moves nothing twice", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const sol = rail("solana")
        const { source, sweep } = yield* fundedSource(sol, "7.25")
        const treasury = yield* sim.fundingAddress(rail("solana", "production"), freshIndex())
        const [hotBefore] = yield* balances(sol, [hotWallets.sandbox.solana])

        const prepared = yield* sign(sweep(treasury, "7.25"))
        yield* Effect.all(
          Array.from({ length: 5 }, () => sim.broadcastPayout(sol, prepared)),
          { concurrency: "unbounded", discard: true }
        )
        const confirmed = yield* sim.lookupPayout(sol, prepared)
        assert.strictEqual(confirmed._tag, "Confirmed")
        yield* sim.broadcastPayout(sol, prepared)
        assert.deepStrictEqual(yield* sim.lookupPayout(sol, prepared), confirmed)
        assert.deepStrictEqual(yield* balances(sol, [source, treasury, hotWallets.sandbox.solana]), [
          "0",
          "7.25",
          hotBefore!
        ])
        // the treasury holds it on this rail only
        assert.deepStrictEqual(yield* balances(rail("solana", "production"), [treasury]), ["0"])
      })
    )

    it.effect("a sweep of more than the source holds is refused; one whose funds another sweep took fails", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const pol = rail("polygon")
        const { source, sweep } = yield* fundedSource(pol, "5")
        const treasury = yield* sim.fundingAddress(pol, freshIndex())
        const sweepOf = (value: string) => sweep(treasury, value)
        const refused = yield* Effect.flip(sim.draftSweep(sweepOf("5.000001")))
        assert.strictEqual(refused.reason, "insufficient_funds")
        assert.include(refused.message, "5.000001")

        // two sweeps of the same funds, both drafted before either is broadcast
        const first = sweepOf("5")
        const second = sweepOf("5")
        const [one, two] = [yield* sign(first), yield* sign(second)]
        yield* sim.broadcastPayout(pol, one)
        yield* sim.broadcastPayout(pol, two)
        assert.strictEqual((yield* sim.lookupPayout(pol, one))._tag, "Confirmed")
        assert.deepStrictEqual(yield* sim.lookupPayout(pol, two), { _tag: "Failed", reason: "insufficient_funds" })
        assert.deepStrictEqual(yield* balances(pol, [source, treasury]), ["0", "5"])

        // the failed one moved nothing; its next attempt is a new transaction, once there are funds
        assert.strictEqual((yield* Effect.flip(sim.draftSweep(second))).reason, "insufficient_funds")
        yield* sim.fund(pol, source, amount("5"))
        const retry = yield* sign(second)
        assert.notStrictEqual(retry.transactionHash, two.transactionHash)
        yield* sim.broadcastPayout(pol, retry)
        assert.strictEqual((yield* sim.lookupPayout(pol, retry))._tag, "Confirmed")
        assert.deepStrictEqual(yield* balances(pol, [source, treasury]), ["0", "10"])
      })
    )

    it.effect("a sweep's source is its HD index's funding address; its destination and amount are checked", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const eth = rail("ethereum")
        const { source, fundingIndex, sweep } = yield* fundedSource(eth, "1")
        const order = sweep(null, "1")
        const reasons = yield* Effect.forEach(
          [
            { ...order, fundingIndex: fundingIndex + 1 },
            { ...order, fundingIndex: -1 },
            { ...order, destination: "0x12" },
            { ...order, source: "0x12" },
            { ...order, amount: amount("0") },
            { ...order, rail: { ...eth, token: "EURC" as const, chain: "polygon" as const } }
          ],
          (bad) => Effect.map(Effect.flip(sim.draftSweep(bad)), (e) => e.reason)
        )
        assert.deepStrictEqual(reasons, [
          "invalid_address",
          "invalid_index",
          "invalid_address",
          "invalid_address",
          "invalid_amount",
          "unsupported_token"
        ])
        // a checksummed spelling of the source is the same address
        const checksummed = source.toUpperCase().replace("0X", "0x")
        yield* sim.broadcastPayout(eth, yield* sign({ ...order, source: checksummed }))
        assert.deepStrictEqual(yield* balances(eth, [source]), ["0"])
      })
    )

    it.effect("the reject switch is left to payouts: a sweep broadcast after it is armed still moves", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const pol = rail("polygon")
        const { source, sweep } = yield* fundedSource(pol, "2")
        yield* sim.failNextPayout
        const swept = yield* sign(sweep(null, "2"))
        yield* sim.broadcastPayout(pol, swept)
        assert.strictEqual((yield* sim.lookupPayout(pol, swept))._tag, "Confirmed")
        const payout = yield* sim.preparePayout({
          payoutId: `payout-${crypto.randomUUID()}`,
          rail: pol,
          destination: source,
          amount: amount("1"),
          committed: Money.zero
        })
        yield* sim.broadcastPayout(pol, payout)
        assert.deepStrictEqual(yield* sim.lookupPayout(pol, payout), { _tag: "Failed", reason: "rejected" })
      })
    )

    it.effect("each chain and environment has its fixed simulated hot wallet", () =>
      Effect.forEach(
        ["sandbox", "production"] as const,
        (environment) =>
          Effect.forEach(
            ["ethereum", "polygon", "solana"] as const,
            (chain) =>
              Effect.gen(function* () {
                const r = rail(chain, environment)
                const hot = hotWallets[environment][chain]
                assert.strictEqual(yield* ChainGateway.ChainGateway.use((g) => g.checkAddress(r, hot)), hot)
                const [before] = yield* balances(r, [hot])
                const { sweep } = yield* fundedSource(r, "0.5")
                const prepared = yield* sign(sweep(null, "0.5"))
                yield* ChainGateway.ChainGateway.use((g) => g.broadcastPayout(r, prepared))
                assert.deepStrictEqual(yield* balances(r, [hot]), [plus(before!, "0.5")])
                // the simulated chain pays payouts from no wallet: it reports none, and nothing holds
                // a native currency (there is none: nothing pays fees or rent)
                assert.isNull(yield* ChainGateway.ChainGateway.use((g) => g.hotWallet(r)))
                const native = yield* ChainGateway.ChainGateway.use((g) => g.nativeBalances(r, [hot, hot]))
                assert.deepStrictEqual(native.map(Money.format), ["0", "0"])
                const malformed = yield* Effect.flip(
                  ChainGateway.ChainGateway.use((g) => g.nativeBalances(r, [hot, "nope"]))
                )
                assert.strictEqual(malformed.reason, "invalid_address")
              }),
            { discard: true }
          ),
        { discard: true }
      )
    )
  })

/**
 * On a chain confirming after 2 seconds (the `TestClock`'s): a sweep is `Pending` and the
 * balances unchanged until then, then `Confirmed` and moved.
 */
export const confirmsAfterTheDelay = Effect.gen(function* () {
  const sim = yield* SimulatedChain
  const pol = rail("polygon")
  const { source, sweep } = yield* fundedSource(pol, "3")
  const treasury = yield* sim.fundingAddress(pol, freshIndex())
  assert.deepStrictEqual(yield* balances(pol, [source]), ["0"])
  yield* TestClock.adjust("2 seconds")
  assert.deepStrictEqual(yield* balances(pol, [source]), ["3"])

  const prepared = yield* sign(sweep(treasury, "3"))
  yield* sim.broadcastPayout(pol, prepared)
  assert.deepStrictEqual(yield* sim.lookupPayout(pol, prepared), { _tag: "Pending" })
  assert.deepStrictEqual(yield* balances(pol, [source, treasury]), ["3", "0"])
  // what is recorded is spent, confirmed or not: a second sweep of the same funds is refused
  assert.strictEqual((yield* Effect.flip(sim.draftSweep(sweep(null, "3")))).reason, "insufficient_funds")

  yield* TestClock.adjust("2 seconds")
  assert.strictEqual((yield* sim.lookupPayout(pol, prepared))._tag, "Confirmed")
  assert.deepStrictEqual(yield* balances(pol, [source, treasury]), ["0", "3"])
})
