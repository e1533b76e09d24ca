import { assert, describe, it } from "@effect/vitest"
import { Ratelock, Scenario, Simulation, WebhookInbox } from "@ratelock/testkit"
import { Effect } from "effect"

describe("a webhook our endpoint missed", () => {
  it.effect("is found in the webhook-events listing and delivered again", () =>
    Effect.gen(function* () {
      // our webhook endpoint is down for a day: every attempt is answered 503
      yield* WebhookInbox.respondWith(503)
      const contract = yield* Scenario.activeContract()
      yield* Scenario.exercise(contract.id, "5.10")
      yield* Simulation.advance("25 hours")
      assert.deepStrictEqual(yield* WebhookInbox.events(contract.id), [])

      // back up: the listing shows what we missed, with the payload as it was sent
      yield* WebhookInbox.respondWith(200)
      const outgoing = yield* Scenario.webhookEvents({ fx_contract_id: contract.id, direction: "outgoing" })
      const missed = outgoing.find((event) => event.event_type === "payout_settled")
      assert.isDefined(missed)
      assert.strictEqual(missed.status, "failed")
      assert.isAbove(missed.retry_count, 0)
      assert.deepStrictEqual((missed.payload as { payout: { status: string } }).payout.status, "settled")

      // and can be delivered again, with the same event_id
      yield* Scenario.redeliver(missed.id)
      const delivered = yield* WebhookInbox.awaitEvent("payout_settled", contract.id, { within: 0 })
      assert.strictEqual(delivered.event_id, missed.idempotency_key)
    }).pipe(Effect.provide(Ratelock.layer))
  )
})
