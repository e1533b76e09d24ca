import { assert, describe, it } from "@effect/vitest"
import { InboundEvent, QuoteRequest, Requests } from "@ratelock/core"
import { DateTime, Effect, Schema } from "effect"

const now = DateTime.makeUnsafe("2026-03-02T10:00:00Z")

describe("Requests", () => {
  it("the default quote is valid, now, a 30-day window", () => {
    const body = Requests.quoteAt(now)
    Schema.decodeUnknownSync(QuoteRequest.QuoteRequest)(body)
    assert.strictEqual(body.market_rate_timestamp, "2026-03-02T10:00:00.000Z")
    assert.strictEqual(body.window_start, "2026-03-02T10:00:00.000Z")
    assert.strictEqual(body.window_end, "2026-04-01T10:00:00.000Z")
  })

  it("fields are overridden one by one; the window is placed by timing", () => {
    const body = Requests.quoteAt(
      now,
      { contract_type: "forward", chain: "solana" },
      { startsIn: "1 day", window: "7 days" }
    )
    assert.strictEqual(body.contract_type, "forward")
    assert.strictEqual(body.chain, "solana")
    assert.strictEqual(body.direction, "USD_TO_BRL")
    assert.strictEqual(body.window_start, "2026-03-03T10:00:00.000Z")
    assert.strictEqual(body.window_end, "2026-03-10T10:00:00.000Z")
    const explicit = Requests.quoteAt(now, { window_end: "2026-05-01T00:00:00Z" })
    assert.strictEqual(explicit.window_end, "2026-05-01T00:00:00Z")
  })

  it.effect("quote reads the Clock", () =>
    Effect.gen(function* () {
      const body = yield* Requests.quote()
      assert.strictEqual(body.market_rate_timestamp, "1970-01-01T00:00:00.000Z")
    })
  )

  it("inbound events are valid for every chain", () => {
    for (const chain of ["polygon", "ethereum", "solana"] as const) {
      const exercised = Requests.contractExercisedAt(now, { id: "00000000-0000-4000-8000-000000000001", chain })
      const decoded = Schema.decodeUnknownSync(InboundEvent.InboundEvent)(exercised)
      assert.strictEqual(decoded.event_type, "contract_exercised")
      assert.strictEqual(exercised.payout_wallet_address, Requests.payoutWallets[chain])
    }
    const route = Requests.fundsInRoute("00000000-0000-4000-8000-000000000001", { amount: "10" })
    assert.deepStrictEqual(route, {
      event_type: "funds_in_route",
      fx_contract_id: "00000000-0000-4000-8000-000000000001",
      amount: "10"
    })
    assert.deepStrictEqual(Requests.contract("q-1", { partner_transaction_reference: "p" }), {
      quote_id: "q-1",
      partner_transaction_reference: "p"
    })
  })
})
