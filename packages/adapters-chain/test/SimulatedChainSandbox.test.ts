/**
 * The in-memory simulated chain as the sandbox runs it: transfers, payouts and sweeps confirm only
 * once the confirmation delay has passed (on the `TestClock`), and a contract's next payout can be
 * made to fail before the payout exists.
 */
import { assert, describe, it } from "@effect/vitest"
import { type ChainGateway, Money } from "@ratelock/core"
import { DateTime, Effect, type Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import * as SimulatedChain from "../src/SimulatedChain.ts"
import * as SweepContract from "./SweepContract.ts"

const polygon: ChainGateway.Rail = { chain: "polygon", environment: "sandbox", token: "USDC" }
const amount = Money.unsafe

const withChain = <A, E>(
  layer: Layer.Layer<SimulatedChain.SimulatedChain>,
  f: (chain: SimulatedChain.SimulatedChainShape) => Effect.Effect<A, E>
) => Effect.provide(SimulatedChain.SimulatedChain.use(f), layer)

const delayed = SimulatedChain.layerWith({ confirmDelay: "2 seconds" })

/** A chain whose contracts' payout ids are read from `payouts` (as the host reads `PayoutRepo`). */
const withPayouts = (payouts: Map<string, string>) =>
  SimulatedChain.layerWith({
    confirmDelay: "1 second",
    payoutIdOf: (contractId) => Effect.sync(() => Option.fromUndefinedOr(payouts.get(contractId)))
  })

const millis = (t: DateTime.Utc) => t.epochMilliseconds

describe("SimulatedChain with a confirmation delay", () => {
  it.effect("a sweep confirms once the delay has passed, and moves the balances then", () =>
    Effect.provide(SweepContract.confirmsAfterTheDelay, delayed)
  )

  it.effect("a transfer is observed only once the delay has passed; the cursor waits for it", () =>
    withChain(delayed, (chain) =>
      Effect.gen(function* () {
        const address = yield* chain.fundingAddress(polygon, 1)
        const start = yield* DateTime.now
        const first = yield* chain.fund(polygon, address, amount("10"))
        assert.strictEqual(millis(first.confirmedAt), millis(start) + 2000)

        const early = yield* chain.observeFunding(polygon, address, null)
        assert.deepStrictEqual(early.transfers, [])
        assert.strictEqual(early.cursor, "0")

        yield* TestClock.adjust("1 second")
        const second = yield* chain.fund(polygon, address, amount("5"))
        yield* TestClock.adjust("1 second")
        const one = yield* chain.observeFunding(polygon, address, early.cursor)
        assert.deepStrictEqual(
          one.transfers.map((t) => t.transactionHash),
          [first.transactionHash]
        )
        assert.strictEqual(one.cursor, String(first.blockNumber))

        yield* TestClock.adjust("1 second")
        const two = yield* chain.observeFunding(polygon, address, one.cursor)
        assert.deepStrictEqual(
          two.transfers.map((t) => [t.transactionHash, Money.format(t.amount)]),
          [[second.transactionHash, "5"]]
        )
        // everything seen: nothing again from the new cursor
        assert.deepStrictEqual((yield* chain.observeFunding(polygon, address, two.cursor)).transfers, [])
        assert.lengthOf(yield* chain.transfers, 2)
      })
    )
  )

  it.effect("a transfer still confirming elsewhere does not hold this address back", () =>
    withChain(delayed, (chain) =>
      Effect.gen(function* () {
        const mine = yield* chain.fundingAddress(polygon, 2)
        const other = yield* chain.fundingAddress(polygon, 3)
        const t = yield* chain.fund(polygon, mine, amount("1"))
        yield* TestClock.adjust("2 seconds")
        yield* chain.fund(polygon, other, amount("1"))
        const seen = yield* chain.observeFunding(polygon, mine, null)
        assert.deepStrictEqual(
          seen.transfers.map((x) => x.transactionHash),
          [t.transactionHash]
        )
        // the cursor rests on this address's last reported transfer, whatever else the chain does
        assert.strictEqual(Number(seen.cursor), t.blockNumber)
      })
    )
  )

  it.effect("a payout looks Pending until the delay has passed, then Confirmed", () =>
    withChain(delayed, (chain) =>
      Effect.gen(function* () {
        const destination = yield* chain.fundingAddress(polygon, 4)
        const prepared = yield* chain.preparePayout({
          payoutId: "payout-a",
          rail: polygon,
          destination,
          amount: amount("3"),
          committed: Money.zero
        })
        const start = yield* DateTime.now
        yield* chain.broadcastPayout(polygon, prepared)
        assert.deepStrictEqual(yield* chain.lookupPayout(polygon, prepared), { _tag: "Pending" })
        yield* TestClock.adjust("1999 millis")
        // a repeated broadcast while pending changes nothing
        yield* chain.broadcastPayout(polygon, prepared)
        assert.deepStrictEqual(yield* chain.lookupPayout(polygon, prepared), { _tag: "Pending" })
        yield* TestClock.adjust("1 millis")
        const confirmed = yield* chain.lookupPayout(polygon, prepared)
        assert.strictEqual(confirmed._tag, "Confirmed")
        if (confirmed._tag === "Confirmed") assert.strictEqual(millis(confirmed.confirmedAt), millis(start) + 2000)
      })
    )
  )

  it.effect("a rejected payout is Pending for the delay too, then Failed", () =>
    withChain(delayed, (chain) =>
      Effect.gen(function* () {
        const destination = yield* chain.fundingAddress(polygon, 5)
        const prepared = yield* chain.preparePayout({
          payoutId: "payout-b",
          rail: polygon,
          destination,
          amount: amount("1"),
          committed: Money.zero
        })
        yield* chain.failNextPayout
        yield* chain.broadcastPayout(polygon, prepared)
        assert.strictEqual((yield* chain.lookupPayout(polygon, prepared))._tag, "Pending")
        yield* TestClock.adjust("2 seconds")
        assert.strictEqual((yield* chain.lookupPayout(polygon, prepared))._tag, "Failed")
      })
    )
  )
})

describe("SimulatedChain.failNextPayoutOf", () => {
  it.effect("fails the contract's next payout, even armed before the payout exists, and no other", () => {
    const payouts = new Map<string, string>()
    return withChain(withPayouts(payouts), (chain) =>
      Effect.gen(function* () {
        const destination = yield* chain.fundingAddress(polygon, 6)
        const order = (payoutId: string) => ({
          payoutId,
          rail: polygon,
          destination,
          amount: amount("2"),
          committed: Money.zero
        })
        yield* chain.failNextPayoutOf("contract-1")

        // another contract's payout goes through
        payouts.set("contract-2", "payout-2")
        const other = yield* chain.preparePayout(order("payout-2"))
        yield* chain.broadcastPayout(polygon, other)

        // the armed contract's payout appears later, and its first transaction is rejected
        payouts.set("contract-1", "payout-1")
        const first = yield* chain.preparePayout(order("payout-1"))
        yield* chain.broadcastPayout(polygon, first)
        yield* TestClock.adjust("1 second")
        assert.strictEqual((yield* chain.lookupPayout(polygon, other))._tag, "Confirmed")
        assert.strictEqual((yield* chain.lookupPayout(polygon, first))._tag, "Failed")

        // only the next one: the retry gets a new transaction, which confirms
        const retry = yield* chain.preparePayout(order("payout-1"))
        assert.notStrictEqual(retry.transactionHash, first.transactionHash)
        yield* chain.broadcastPayout(polygon, retry)
        yield* TestClock.adjust("1 second")
        assert.strictEqual((yield* chain.lookupPayout(polygon, retry))._tag, "Confirmed")
      })
    )
  })

  it.effect("needs payoutIdOf to know a contract's payout", () =>
    withChain(SimulatedChain.layer, (chain) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(chain.failNextPayoutOf("contract-1"))
        assert.strictEqual(error.reason, "unsupported")
      })
    )
  )
})
