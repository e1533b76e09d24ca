/**
 * The behaviour every simulated chain keeps (in memory, and in SQL on PGlite or Postgres), checked
 * through the `SimulatedChain` service and core's `ChainGateway` only.
 *
 * The tests share one chain (a SQL one lives in one database), so each keeps to itself: its own
 * HD indexes (so its own addresses) and payout ids, and block numbers compared, never assumed.
 */
import { assert, layer } from "@effect/vitest"
import { ChainGateway, Money, type Rail } from "@ratelock/core"
import { Effect, type Layer } from "effect"
import * as Base58 from "../src/internal/base58.ts"
import { SimulatedChain } from "../src/SimulatedChain.ts"

export const rail = (chain: Rail.Chain, environment: "sandbox" | "production" = "sandbox"): ChainGateway.Rail => ({
  chain,
  environment,
  token: "USDC"
})
export const evmAddress = /^0x[0-9a-f]{40}$/
export const evmHash = /^0x[0-9a-f]{64}$/
const amount = Money.unsafe

let nextIndex = Math.floor(Math.random() * 1_000_000) * 100
/** HD indexes no other test of this run uses. */
export const freshIndex = () => ++nextIndex
export const freshPayoutId = () => `payout-${crypto.randomUUID()}`

export const suite = (name: string, chain: Layer.Layer<SimulatedChain | ChainGateway.ChainGateway, unknown>): void =>
  layer(chain, { excludeTestServices: true })(name, (it) => {
    it.effect("funding addresses are well-formed per chain", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        assert.match(yield* sim.fundingAddress(rail("ethereum"), 0), evmAddress)
        assert.match(yield* sim.fundingAddress(rail("polygon"), 0), evmAddress)
        const solana = yield* sim.fundingAddress(rail("solana"), 0)
        assert.match(solana, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
        assert.strictEqual(Base58.decode(solana)?.length, 32)
      })
    )

    it.effect("addresses are deterministic and distinct by index, chain and environment", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const first = yield* sim.fundingAddress(rail("ethereum"), 7)
        assert.strictEqual(yield* sim.fundingAddress(rail("ethereum"), 7), first)
        const others = yield* Effect.all([
          sim.fundingAddress(rail("ethereum"), 8),
          sim.fundingAddress(rail("ethereum", "production"), 7),
          sim.fundingAddress(rail("polygon"), 7)
        ])
        assert.strictEqual(new Set([first, ...others]).size, 4)
      })
    )

    it.effect("refuses a negative or fractional HD index", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        assert.strictEqual((yield* Effect.flip(sim.fundingAddress(rail("solana"), -1))).reason, "invalid_index")
        assert.strictEqual((yield* Effect.flip(sim.fundingAddress(rail("solana"), 1.5))).reason, "invalid_index")
      })
    )

    it.effect("a transfer sent with a reference is recorded once, however often and however concurrently", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const pol = rail("polygon")
        const address = yield* sim.fundingAddress(pol, freshIndex())
        const reference = `inbound:${crypto.randomUUID()}`
        const sent = yield* Effect.all(
          Array.from({ length: 5 }, () => sim.fund(pol, address, amount("12.5"), reference)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(new Set(sent.map((t) => t.transactionHash)).size, 1)
        assert.strictEqual(new Set(sent.map((t) => t.blockNumber)).size, 1)
        const again = yield* sim.fund(pol, address, amount("12.5"), reference)
        assert.strictEqual(again.transactionHash, sent[0]!.transactionHash)
        const unreferenced = yield* sim.fund(pol, address, amount("12.5"))
        assert.notStrictEqual(unreferenced.transactionHash, sent[0]!.transactionHash)
        const seen = yield* sim.observeFunding(pol, address, null)
        assert.deepStrictEqual(
          seen.transfers.map((t) => t.transactionHash),
          [sent[0]!.transactionHash, unreferenced.transactionHash]
        )
      })
    )

    it.effect("transfersInto lists an address's transfers on its rail, still confirming ones included", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const pol = rail("polygon")
        const [address, other] = [
          yield* sim.fundingAddress(pol, freshIndex()),
          yield* sim.fundingAddress(pol, freshIndex())
        ]
        const first = yield* sim.fund(pol, address, amount("3"))
        yield* sim.fund(pol, other, amount("4"))
        yield* sim.fund({ ...pol, token: "USDT" }, address, amount("5"))
        yield* sim.fund(rail("polygon", "production"), address, amount("6"))
        const second = yield* sim.fund(pol, address.toUpperCase().replace("0X", "0x"), amount("7"))
        assert.deepStrictEqual(
          (yield* sim.transfersInto(pol, address)).map((t) => t.transactionHash),
          [first.transactionHash, second.transactionHash]
        )
      })
    )

    it.effect("funding is observed after the cursor, per address, token and network", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const eth = rail("ethereum")
        const address = yield* sim.fundingAddress(eth, freshIndex())
        const other = yield* sim.fundingAddress(eth, freshIndex())

        const empty = yield* sim.observeFunding(eth, address, null)
        assert.deepStrictEqual(empty.transfers, [])

        const t1 = yield* sim.fund(eth, address, amount("10.5"))
        yield* sim.fund(eth, other, amount("3"))
        yield* sim.fund({ ...eth, token: "USDT" }, address, amount("4"))
        yield* sim.fund(rail("ethereum", "production"), address, amount("5"))
        assert.match(t1.transactionHash, evmHash)
        assert.isTrue(t1.blockNumber > Number(empty.cursor))

        const first = yield* sim.observeFunding(eth, address, empty.cursor)
        assert.deepStrictEqual(
          first.transfers.map((t) => [t.transactionHash, Money.format(t.amount), t.blockNumber, t.index]),
          [[t1.transactionHash, "10.5", t1.blockNumber, 0]]
        )
        // nothing new after the returned cursor, even from a checksummed spelling of the address
        const none = yield* sim.observeFunding(eth, address.toUpperCase().replace("0X", "0x"), first.cursor)
        assert.deepStrictEqual(none.transfers, [])

        const t2 = yield* sim.fund(eth, address, amount("2"))
        const second = yield* sim.observeFunding(eth, address, first.cursor)
        assert.deepStrictEqual(
          second.transfers.map((t) => t.transactionHash),
          [t2.transactionHash]
        )
        assert.isTrue(Number(second.cursor) > Number(first.cursor))
        assert.notStrictEqual(t1.transactionHash, t2.transactionHash)
        // from the start, both
        assert.strictEqual((yield* sim.observeFunding(eth, address, null)).transfers.length, 2)
        const all = (yield* sim.transfers).map((t) => t.transactionHash)
        assert.includeMembers(all, [t1.transactionHash, t2.transactionHash])
      })
    )

    it.effect("a batch observes each address from its own cursor, per token and network", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const eth = rail("ethereum")
        const [a, b, idle] = yield* Effect.forEach([0, 1, 2], () => sim.fundingAddress(eth, freshIndex()))
        const start = yield* sim.observeFunding(eth, a!, null)
        const ta = yield* sim.fund(eth, a!, amount("1"))
        const tb1 = yield* sim.fund(eth, b!, amount("2"))
        yield* sim.fund({ ...eth, token: "USDT" }, b!, amount("9"))
        yield* sim.fund(rail("ethereum", "production"), a!, amount("9"))
        const tb2 = yield* sim.fund(eth, b!, amount("3"))

        const batch = yield* sim.observeFundingBatch(eth, [
          { address: a!, cursor: start.cursor },
          // `b` from just past its first transfer
          { address: b!, cursor: String(tb1.blockNumber) },
          { address: idle!, cursor: null }
        ])
        assert.deepStrictEqual(
          batch.map((o) => o.transfers.map((t) => t.transactionHash)),
          [[ta.transactionHash], [tb2.transactionHash], []]
        )
        assert.deepStrictEqual(batch[0], yield* sim.observeFunding(eth, a!, start.cursor))
        assert.deepStrictEqual(batch[1], yield* sim.observeFunding(eth, b!, String(tb1.blockNumber)))
        assert.deepStrictEqual(yield* sim.observeFundingBatch(eth, []), [])
      })
    )

    it.effect("solana transfers carry a base58 64-byte signature", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const sol = rail("solana")
        const address = yield* sim.fundingAddress(sol, freshIndex())
        const transfer = yield* sim.fund(sol, address, amount("1"))
        assert.strictEqual(Base58.decode(transfer.transactionHash)?.length, 64)
        const seen = yield* sim.observeFunding(sol, address, null)
        assert.deepStrictEqual(
          seen.transfers.map((t) => t.transactionHash),
          [transfer.transactionHash]
        )
      })
    )

    it.effect("refuses malformed addresses, cursors, amounts and unissued tokens", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const eth = rail("ethereum")
        const address = yield* sim.fundingAddress(eth, freshIndex())
        assert.strictEqual((yield* Effect.flip(sim.fund(eth, "0x1234", amount("1")))).reason, "invalid_address")
        assert.strictEqual(
          (yield* Effect.flip(sim.fund(rail("solana"), address, amount("1")))).reason,
          "invalid_address"
        )
        assert.strictEqual((yield* Effect.flip(sim.fund(eth, address, amount("0")))).reason, "invalid_amount")
        const eurcOnPolygon = { chain: "polygon", environment: "sandbox", token: "EURC" } as const
        assert.strictEqual(
          (yield* Effect.flip(sim.fund(eurcOnPolygon, address, amount("1")))).reason,
          "unsupported_token"
        )
        assert.strictEqual((yield* Effect.flip(sim.observeFunding(eth, address, "abc"))).reason, "invalid_cursor")
      })
    )

    it.effect("payouts: prepare is deterministic, broadcast confirms, a second broadcast is harmless", () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway.ChainGateway
        const pol = rail("polygon")
        const destination = yield* gateway.fundingAddress(pol, 42)
        const payoutId = freshPayoutId()
        const order = { payoutId, rail: pol, destination, amount: amount("12.345678"), committed: Money.zero }

        const prepared = yield* gateway.preparePayout(order)
        assert.match(prepared.transactionHash, evmHash)
        assert.deepStrictEqual(yield* gateway.preparePayout(order), prepared)
        assert.notStrictEqual(
          (yield* gateway.preparePayout({ ...order, payoutId: freshPayoutId() })).transactionHash,
          prepared.transactionHash
        )
        assert.deepStrictEqual(yield* gateway.lookupPayout(pol, prepared), { _tag: "Unknown" })

        yield* gateway.broadcastPayout(pol, prepared)
        const confirmed = yield* gateway.lookupPayout(pol, prepared)
        assert.strictEqual(confirmed._tag, "Confirmed")

        yield* gateway.broadcastPayout(pol, prepared)
        assert.deepStrictEqual(yield* gateway.lookupPayout(pol, prepared), confirmed)
        // still the same transaction: the confirmed one is never replaced
        assert.deepStrictEqual(yield* gateway.preparePayout(order), prepared)
      })
    )

    it.effect("a rejected payout fails its lookup and the next attempt gets a new transaction", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const sol = rail("solana")
        const destination = yield* sim.fundingAddress(sol, 1)
        const order = { payoutId: freshPayoutId(), rail: sol, destination, amount: amount("1"), committed: Money.zero }
        const first = yield* sim.preparePayout(order)
        assert.strictEqual(Base58.decode(first.transactionHash)?.length, 64)
        yield* sim.failNextPayout
        yield* sim.broadcastPayout(sol, first)
        assert.strictEqual((yield* sim.lookupPayout(sol, first))._tag, "Failed")

        const second = yield* sim.preparePayout(order)
        assert.notStrictEqual(second.transactionHash, first.transactionHash)
        yield* sim.broadcastPayout(sol, second)
        assert.strictEqual((yield* sim.lookupPayout(sol, second))._tag, "Confirmed")
        // the rejection was used up by the first broadcast
        assert.strictEqual((yield* sim.lookupPayout(sol, first))._tag, "Failed")
      })
    )

    it.effect("refuses to broadcast what it did not prepare", () =>
      Effect.gen(function* () {
        const sim = yield* SimulatedChain
        const error = yield* Effect.flip(
          sim.broadcastPayout(rail("ethereum"), { transactionHash: "0x00", persisted: "garbage" })
        )
        assert.strictEqual(error.reason, "invalid_prepared")
      })
    )
  })
