/**
 * An operator's refund addresses: set per partner, environment and chain through the gateway of
 * that rail (the fake chain's rules here), stored as the gateway gives the address back, replaced
 * when set again, listed with the partner; an unknown partner, a bad address or a rail the
 * deployment has no gateway for writes nothing. On adapters-store's memory store.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryStore } from "@ratelock/adapters-store"
import { ChainGateway, PartnerRepo, Partners } from "@ratelock/core"
import { DateTime, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { FakeChain } from "./fakes/FakeChain.ts"

const partnerId = "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0001"
const start = DateTime.makeUnsafe(Date.parse("2026-11-23T12:00:00Z"))

const withStore = (chain: FakeChain) =>
  Effect.provide(Layer.merge(MemoryStore.layerMemory, Layer.succeed(ChainGateway.ChainGateway, chain.gateway)))

/** The partner, stored, and the clock at the start. */
const setUp = Effect.gen(function* () {
  yield* TestClock.setTime(start.epochMilliseconds)
  yield* (yield* PartnerRepo.PartnerRepo).insertPartner({ id: partnerId, name: "Acme Pay", createdAt: start })
})

const listed = Effect.map(Partners.listPartners(), (partners) => partners.map((p) => p.refund_addresses))

describe("Partners.setRefundAddress", () => {
  it.effect("stores the address as the gateway gives it back, per environment and chain; set again replaces it", () => {
    const chain = new FakeChain()
    return Effect.gen(function* () {
      yield* setUp
      assert.deepStrictEqual(yield* listed, [{}])
      const set = yield* Partners.setRefundAddress(
        partnerId,
        "production",
        "polygon",
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
      )
      assert.deepStrictEqual(set, {
        partner_id: partnerId,
        environment: "production",
        chain: "polygon",
        address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
        updated_at: "2026-11-23T12:00:00.000Z"
      })
      // the gateway was asked, on the rail of the command
      assert.deepStrictEqual(chain.checkedAddresses, ["production|polygon|0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"])
      yield* Partners.setRefundAddress(partnerId, "sandbox", "solana", "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU")
      yield* Partners.setRefundAddress(
        partnerId,
        "production",
        "ethereum",
        "0x8617e340b3d01fa5f11f306f4090fd50e238070d"
      )
      assert.deepStrictEqual(yield* listed, [
        {
          production: {
            ethereum: "0x8617e340b3d01fa5f11f306f4090fd50e238070d",
            polygon: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
          },
          sandbox: { solana: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU" }
        }
      ])

      yield* TestClock.adjust("1 hour")
      const again = yield* Partners.setRefundAddress(
        partnerId,
        "production",
        "polygon",
        "0xde709f2102306220921060314715629080e2fb77"
      )
      assert.strictEqual(again.updated_at, "2026-11-23T13:00:00.000Z")
      const [refunds] = yield* listed
      assert.strictEqual(refunds?.production?.polygon, "0xde709f2102306220921060314715629080e2fb77")
      assert.strictEqual(refunds?.production?.ethereum, "0x8617e340b3d01fa5f11f306f4090fd50e238070d")
    }).pipe(withStore(chain))
  })

  it.effect("refuses an unknown partner, a bad address and a rail without a gateway, writing nothing", () => {
    const chain = new FakeChain()
    chain.disabled.add("production|solana")
    return Effect.gen(function* () {
      yield* setUp
      const good = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"

      const unknown = yield* Effect.flip(
        Partners.setRefundAddress("0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0999", "production", "polygon", good)
      )
      assert.strictEqual(unknown._tag, "OperatorError")
      assert.strictEqual((unknown as Partners.OperatorError).reason, "partner_not_found")
      // the partner is looked up first: the chain is not even asked
      assert.deepStrictEqual(chain.checkedAddresses, [])

      const bad = yield* Effect.flip(Partners.setRefundAddress(partnerId, "production", "polygon", "0x5aaeb605"))
      assert.deepStrictEqual(
        { reason: (bad as Partners.OperatorError).reason, message: bad.message },
        { reason: "invalid_address", message: "not a payable polygon address (0x and 40 hex digits): 0x5aaeb605" }
      )
      // an EVM address on solana is the solana gateway's to judge
      const crossed = yield* Effect.flip(Partners.setRefundAddress(partnerId, "sandbox", "solana", good))
      assert.strictEqual((crossed as Partners.OperatorError).reason, "invalid_address")

      const disabled = yield* Effect.flip(
        Partners.setRefundAddress(partnerId, "production", "solana", "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU")
      )
      assert.deepStrictEqual(
        { reason: (disabled as Partners.OperatorError).reason, message: disabled.message },
        { reason: "chain_not_enabled", message: "solana is not enabled for production" }
      )
      assert.deepStrictEqual(yield* listed, [{}])
      assert.deepStrictEqual(yield* (yield* PartnerRepo.PartnerRepo).listRefundAddresses(partnerId), [])
    }).pipe(withStore(chain))
  })
})
