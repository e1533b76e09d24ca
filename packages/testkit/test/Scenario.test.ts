import { assert, describe, it, layer } from "@effect/vitest"
import { Money } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import { Ratelock, Requests, Scenario, Simulation, WebhookInbox } from "../src/index.ts"

describe("Scenario", () => {
  layer(Ratelock.layer)("acting as the partner", (it) => {
    it.effect("fund in parts: the contract activates once the total is covered", () =>
      Effect.gen(function* () {
        const contract = yield* Scenario.contract({ customer_reference_id: "c-parts" })
        const total = Money.format(contract.total_amount)
        const half = Money.format(Money.roundDown(Money.divide(contract.total_amount, Money.unsafe("2"))))
        const sent = yield* Scenario.fund(contract.id, half)
        assert.strictEqual(Money.format(sent.amount), half)
        yield* Simulation.runWorkers
        assert.strictEqual((yield* Scenario.lock(contract.id)).status, "quote_created")
        // without an amount: what is still due
        const rest = yield* Scenario.fund(contract.id)
        assert.strictEqual(Money.format(Money.sum(rest.amount, Money.unsafe(half))), total)
        yield* Simulation.runWorkers
        assert.strictEqual((yield* Scenario.lock(contract.id)).status, "active")
        const received = yield* WebhookInbox.awaitEvent("funds_received", contract.id, { within: 0 })
        assert.strictEqual(Money.format(received.funds.amount), total)
      })
    )

    it.effect("funds_in_route with an amount: the sandbox chain receives it", () =>
      Effect.gen(function* () {
        const contract = yield* Scenario.contract({ customer_reference_id: "c-route" })
        const ack = yield* Scenario.reportFundsInRoute(contract.id, { amount: Money.format(contract.total_amount) })
        assert.strictEqual(ack.status, "processed")
        assert.strictEqual((yield* Scenario.lock(contract.id)).status, "funds_in_route")
        yield* WebhookInbox.awaitEvent("funds_received", contract.id, { within: 0 })
        assert.strictEqual((yield* Scenario.lock(contract.id)).status, "active")
      })
    )

    it.effect("refusals are ApiFailures with the status and error code", () =>
      Effect.gen(function* () {
        const invalid = yield* Scenario.quote({ notional_amount: "-5", chain: "tron" as "solana" }).pipe(Effect.flip)
        assert.strictEqual(invalid.status, 422)
        assert.strictEqual(invalid.code, "validation_error")
        assert.deepStrictEqual(invalid.detail.map((d) => d.loc.join(".")).sort(), [
          "body.chain",
          "body.notional_amount"
        ])

        const contract = yield* Scenario.activeContract({ customer_reference_id: "c-refusals" }, { window: "1 day" })
        const late = yield* Scenario.exercise(contract.id, "5.10", {
          executed_at: DateTime.formatIso(DateTime.add(yield* Simulation.now, { days: 2 }))
        }).pipe(Effect.flip)
        assert.deepStrictEqual([late.status, late.code], [400, "outside_window"])
        const mismatch = yield* Scenario.exercise(contract.id, "5.10", { chain: "ethereum" }).pipe(Effect.flip)
        assert.deepStrictEqual([mismatch.status, mismatch.code], [409, "contract_mismatch"])
        const twice = yield* Scenario.fund(contract.id).pipe(Effect.flip)
        assert.deepStrictEqual([twice.status, twice.code], [409, "invalid_contract_state"])
      })
    )

    it.effect("expireNow and the partner's reads", () =>
      Effect.gen(function* () {
        const contract = yield* Scenario.activeContract({ customer_reference_id: "c-reads" })
        const expired = yield* Scenario.expireNow(contract.id)
        assert.strictEqual(expired.status, "expired")
        yield* WebhookInbox.awaitEvent("contract_expired", contract.id, { within: 0 })
        const locks = yield* Scenario.locks("c-reads")
        assert.deepStrictEqual(
          locks.map((l) => [l.id, l.status]),
          [[contract.id, "expired"]]
        )
        const quote = yield* Scenario.getQuote(locks[0]!.quote_id)
        assert.strictEqual(quote.id, locks[0]!.quote_id)
        const events = yield* Scenario.webhookEvents({ fx_contract_id: contract.id })
        assert.deepStrictEqual(
          events.map((e) => [e.direction, e.event_type, e.status]),
          [
            ["outgoing", "contract_expired", "delivered"],
            ["outgoing", "funds_received", "delivered"]
          ]
        )
      })
    )

    it.effect("the payout feed, oldest first, from a time", () =>
      Effect.gen(function* () {
        const since = DateTime.formatIso(yield* Simulation.now)
        const contract = yield* Scenario.activeContract({ customer_reference_id: "c-feed" })
        yield* Scenario.exercise(contract.id, "5.30")
        yield* WebhookInbox.awaitEvent("payout_settled", contract.id)
        const feed = yield* Scenario.payoutEvents(since)
        assert.deepStrictEqual(
          feed.filter((e) => e.fx_contract_id === contract.id).map((e) => e.event_type),
          ["payout_settled"]
        )
      })
    )

    it.effect("actingAs: another partner sees nothing of ours; a production key has no sandbox helpers", () =>
      Effect.gen(function* () {
        const ours = yield* Scenario.activeContract({ customer_reference_id: "c-tenancy" })
        const other = yield* Ratelock.makePartner("Beta Remit")
        const hidden = yield* Scenario.lock(ours.id).pipe(Scenario.actingAs(other.sandbox), Effect.flip)
        assert.deepStrictEqual([hidden.status, hidden.code], [404, "contract_not_found"])
        const theirs = yield* Scenario.contract({ customer_reference_id: "c-tenancy" }).pipe(
          Scenario.actingAs(other.sandbox)
        )
        assert.deepStrictEqual(
          (yield* Scenario.locks("c-tenancy")).map((l) => l.id),
          [ours.id]
        )
        const { partner } = yield* Ratelock.Ratelock
        const helper = yield* Scenario.fund(theirs.id).pipe(Scenario.actingAs(partner.production), Effect.flip)
        assert.deepStrictEqual([helper.status, helper.code], [404, "not_found"])
      })
    )
  })

  it.effect("a contract on solana in EURC, exercised with the builders' defaults", () =>
    Effect.gen(function* () {
      const contract = yield* Scenario.activeContract({
        direction: "EUR_TO_USD",
        notional_currency: "EUR",
        provider_rate: "1.17",
        market_rate: "1.17",
        chain: "solana",
        settlement_currency: "EURC"
      })
      yield* Scenario.exercise(contract.id, "1.10")
      const settled = yield* WebhookInbox.awaitEvent("payout_settled", contract.id)
      assert.strictEqual(settled.payout.chain, "solana")
      assert.strictEqual(settled.payout.destination_wallet_address, Requests.payoutWallets.solana)
      assert.isTrue(Money.isPositive(settled.payout.amount))
    }).pipe(Effect.provide(Ratelock.layer))
  )
})
