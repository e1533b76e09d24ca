/**
 * What every `ChainGateway` keeps, whatever the chain behind it: the simulated chain, EVM on
 * anvil and Solana on litesvm each run this suite through core's port and a `TestChain` harness
 * (which moves tokens and blocks), never through anything chain-specific.
 *
 * Tests share one chain per file, so each uses its own HD indexes, payout ids and destinations.
 */
import { assert, layer } from "@effect/vitest"
import { ChainGateway, Money } from "@ratelock/core"
import { Effect, type Layer } from "effect"
import { TestChain } from "./support/TestChain.ts"

let nextIndex = Math.floor(Math.random() * 1_000_000) * 100
const freshIndex = () => ++nextIndex
const freshPayoutId = () => `payout-${crypto.randomUUID()}`
const amount = Money.unsafe
/** Real chains mine, derive and sign: more than vitest's default 5 s per test. */
const timeout = 60_000
const key = (t: ChainGateway.ConfirmedTransfer) => `${t.transactionHash}#${t.index}`

/** Looks a payout up, producing blocks between looks, until the chain gives a final answer. */
const settle = (prepared: ChainGateway.PreparedPayout) =>
  Effect.gen(function* () {
    const gateway = yield* ChainGateway.ChainGateway
    const chain = yield* TestChain
    for (let attempt = 0; attempt < 3 * chain.depth + 20; attempt++) {
      const found = yield* gateway.lookupPayout(chain.rail, prepared)
      if (found._tag === "Confirmed" || found._tag === "Failed") return found
      yield* chain.advance(1)
    }
    return yield* gateway.lookupPayout(chain.rail, prepared)
  })

/** Prepares, broadcasts and looks up; a refusal at any step is the answer. */
const pay = (order: ChainGateway.PayoutOrder) =>
  Effect.gen(function* () {
    const gateway = yield* ChainGateway.ChainGateway
    const prepared = yield* gateway.preparePayout(order)
    yield* gateway.broadcastPayout(order.rail, prepared)
    return yield* settle(prepared)
  })

export const suite = (name: string, chain: Layer.Layer<ChainGateway.ChainGateway | TestChain, unknown>): void =>
  layer(chain, { excludeTestServices: true, timeout: "60 seconds" })(name, (it) => {
    it.effect(
      "checkAddress takes what a payout may be sent to, as it is stored, and refuses what a payout is refused",
      () =>
        Effect.gen(function* () {
          const gateway = yield* ChainGateway.ChainGateway
          const chain = yield* TestChain
          const destination = yield* chain.freshDestination
          const rail = { chain: chain.rail.chain, environment: chain.rail.environment }
          const stored = yield* gateway.checkAddress(rail, destination)
          assert.strictEqual(stored, chain.rail.chain === "solana" ? destination : destination.toLowerCase())
          assert.strictEqual(yield* gateway.checkAddress(rail, stored), stored)
          const refused = yield* Effect.flip(gateway.checkAddress(rail, "not-an-address"))
          assert.strictEqual(refused.reason, "invalid_address")
          assert.include(refused.message, "not-an-address")
        }),
      timeout
    )

    it.effect(
      "funding addresses are deterministic and distinct by index; bad indexes are refused",
      () =>
        Effect.gen(function* () {
          const gateway = yield* ChainGateway.ChainGateway
          const { rail } = yield* TestChain
          const index = freshIndex()
          const first = yield* gateway.fundingAddress(rail, index)
          assert.strictEqual(yield* gateway.fundingAddress(rail, index), first)
          assert.notStrictEqual(yield* gateway.fundingAddress(rail, index + 1), first)
          assert.strictEqual((yield* Effect.flip(gateway.fundingAddress(rail, -1))).reason, "invalid_index")
          assert.strictEqual((yield* Effect.flip(gateway.fundingAddress(rail, 1.5))).reason, "invalid_index")
        }),
      timeout
    )

    it.effect(
      "a transfer is reported only at the confirmation depth, once, with its exact amount",
      () =>
        Effect.gen(function* () {
          const gateway = yield* ChainGateway.ChainGateway
          const chain = yield* TestChain
          const address = yield* gateway.fundingAddress(chain.rail, freshIndex())
          const start = yield* gateway.observeFunding(chain.rail, address, null)
          assert.deepStrictEqual(start.transfers, [])

          const sent = yield* chain.fund(address, amount("12.345678"))
          if (chain.depth > 1) {
            yield* chain.advance(chain.depth - 2)
            const early = yield* gateway.observeFunding(chain.rail, address, start.cursor)
            assert.deepStrictEqual(early.transfers, [], "reported before its depth")
            yield* chain.advance(1)
          }
          const seen = yield* gateway.observeFunding(chain.rail, address, start.cursor)
          assert.strictEqual(seen.transfers.length, 1)
          assert.strictEqual(seen.transfers[0]?.transactionHash, sent.transactionHash)
          assert.strictEqual(Money.format(seen.transfers[0]?.amount ?? Money.zero), "12.345678")

          const after = yield* gateway.observeFunding(chain.rail, address, seen.cursor)
          assert.deepStrictEqual(after.transfers, [], "reported twice from the newer cursor")
        }),
      timeout
    )

    it.effect(
      "partial payments are separate transfers with stable keys; observing again reports the same keys",
      () =>
        Effect.gen(function* () {
          const gateway = yield* ChainGateway.ChainGateway
          const chain = yield* TestChain
          const address = yield* gateway.fundingAddress(chain.rail, freshIndex())
          const start = yield* gateway.observeFunding(chain.rail, address, null)
          yield* chain.fund(address, amount("40"))
          yield* chain.fund(address, amount("60.5"))
          yield* chain.advance(Math.max(chain.depth - 1, 0))

          const first = yield* gateway.observeFunding(chain.rail, address, start.cursor)
          assert.strictEqual(first.transfers.length, 2)
          const total = first.transfers.reduce((sum, t) => Money.sum(sum, t.amount), Money.zero)
          assert.strictEqual(Money.format(total), "100.5")

          const again = yield* gateway.observeFunding(chain.rail, address, start.cursor)
          assert.deepStrictEqual(again.transfers.map(key).sort(), first.transfers.map(key).sort())
        }),
      timeout
    )

    it.effect(
      "a batch observation answers for each address what its own observation answers, each from its cursor",
      () =>
        Effect.gen(function* () {
          const gateway = yield* ChainGateway.ChainGateway
          const chain = yield* TestChain
          const [a, b, idle] = yield* Effect.forEach([0, 1, 2], () => gateway.fundingAddress(chain.rail, freshIndex()))
          const starts = yield* gateway.observeFundingBatch(chain.rail, [
            { address: a!, cursor: null },
            { address: b!, cursor: null },
            { address: idle!, cursor: null }
          ])
          assert.strictEqual(starts.length, 3)
          for (const start of starts) assert.deepStrictEqual(start.transfers, [])
          yield* chain.fund(a!, amount("5"))
          yield* chain.fund(b!, amount("6"))
          yield* chain.advance(Math.max(chain.depth - 1, 0))
          // `b` already observed past its first transfer: only what came after it is reported
          const bSeen = yield* gateway.observeFunding(chain.rail, b!, starts[1]!.cursor)
          assert.strictEqual(bSeen.transfers.length, 1)
          yield* chain.fund(b!, amount("7"))
          yield* chain.advance(Math.max(chain.depth - 1, 0))

          const targets = [
            { address: a!, cursor: starts[0]!.cursor },
            { address: b!, cursor: bSeen.cursor },
            { address: idle!, cursor: starts[2]!.cursor }
          ]
          const batch = yield* gateway.observeFundingBatch(chain.rail, targets)
          const own = yield* Effect.forEach(targets, (t) => gateway.observeFunding(chain.rail, t.address, t.cursor))
          assert.deepStrictEqual(
            batch.map((o) => o.transfers.map((t) => `${key(t)} ${Money.format(t.amount)}`)),
            own.map((o) => o.transfers.map((t) => `${key(t)} ${Money.format(t.amount)}`))
          )
          assert.deepStrictEqual(
            batch.map((o) => o.transfers.map((t) => Money.format(t.amount))),
            [["5"], ["7"], []]
          )
          // and from the batch's cursors nothing is reported again
          const next = yield* gateway.observeFundingBatch(
            chain.rail,
            targets.map((t, i) => ({ address: t.address, cursor: batch[i]!.cursor }))
          )
          for (const o of next) assert.deepStrictEqual(o.transfers, [])
          assert.deepStrictEqual(yield* gateway.observeFundingBatch(chain.rail, []), [])
        }),
      timeout
    )

    it.effect(
      "a payout prepared twice is one transaction; broadcast twice, it pays once",
      () =>
        Effect.gen(function* () {
          const gateway = yield* ChainGateway.ChainGateway
          const chain = yield* TestChain
          const destination = yield* chain.freshDestination
          const order = {
            payoutId: freshPayoutId(),
            rail: chain.rail,
            destination,
            amount: amount("7.25"),
            committed: Money.zero
          }
          const prepared = yield* gateway.preparePayout(order)
          const again = yield* gateway.preparePayout(order)
          assert.strictEqual(again.transactionHash, prepared.transactionHash)

          yield* gateway.broadcastPayout(chain.rail, prepared)
          yield* gateway.broadcastPayout(chain.rail, prepared)
          const found = yield* settle(prepared)
          assert.strictEqual(found._tag, "Confirmed")
          if (found._tag === "Confirmed") assert.isTrue(found.blockNumber > 0)
          yield* gateway.broadcastPayout(chain.rail, prepared)
          yield* chain.advance(1)
          assert.strictEqual(Money.format(yield* chain.balanceOf(destination)), "7.25")
        }),
      timeout
    )

    it.effect(
      "a hot wallet without funds pays nothing and says so; refilled, it pays",
      () =>
        Effect.gen(function* () {
          const chain = yield* TestChain
          const destination = yield* chain.freshDestination
          const order = {
            payoutId: freshPayoutId(),
            rail: chain.rail,
            destination,
            amount: amount("5"),
            committed: Money.zero
          }
          yield* chain.drainHotWallet
          const refused = yield* pay(order).pipe(
            Effect.map((found) => found._tag),
            Effect.catchTag("ChainError", () => Effect.succeed("ChainError"))
          )
          yield* chain.refillHotWallet
          assert.oneOf(refused, ["ChainError", "Failed"])
          assert.strictEqual(Money.format(yield* chain.balanceOf(destination)), "0")

          const paid = yield* pay({ ...order, payoutId: freshPayoutId() })
          assert.strictEqual(paid._tag, "Confirmed")
          assert.strictEqual(Money.format(yield* chain.balanceOf(destination)), "5")
        }),
      timeout
    )

    it.effect(
      "malformed payouts are refused before anything is signed",
      () =>
        Effect.gen(function* () {
          const gateway = yield* ChainGateway.ChainGateway
          const chain = yield* TestChain
          const destination = yield* chain.freshDestination
          const base = {
            payoutId: freshPayoutId(),
            rail: chain.rail,
            destination,
            amount: amount("1"),
            committed: Money.zero
          }
          const reason = (order: ChainGateway.PayoutOrder) =>
            Effect.map(Effect.flip(gateway.preparePayout(order)), (e) => e.reason)
          assert.strictEqual(yield* reason({ ...base, destination: "not-an-address" }), "invalid_address")
          assert.strictEqual(yield* reason({ ...base, amount: amount("0") }), "invalid_amount")
          assert.strictEqual(yield* reason({ ...base, amount: amount("-1") }), "invalid_amount")
        }),
      timeout
    )
  })
