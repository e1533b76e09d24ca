import { assert, describe, it } from "@effect/vitest"
import { WebhookSignature } from "@ratelock/core"
import { Effect } from "effect"
import { Ratelock, Scenario, WebhookInbox } from "../src/index.ts"

describe("WebhookInbox", () => {
  it.effect("captures each delivery with its headers and raw body, verified and decoded", () =>
    Effect.gen(function* () {
      const { partner } = yield* Ratelock.Ratelock
      const contract = yield* Scenario.activeContract({ partner_transaction_reference: "order-7" })
      const [delivery] = yield* WebhookInbox.deliveries
      assert.isDefined(delivery)
      assert.strictEqual(delivery.url, partner.webhookUrls.sandbox)
      assert.strictEqual(delivery.status, 200)
      assert.isNull(delivery.problem)
      assert.strictEqual(delivery.headers["content-type"], "application/json")
      assert.strictEqual(delivery.headers["webhook-id"], delivery.event?.event_id)
      // the partner's own check, with the secret it was issued: both schemes verify
      yield* WebhookSignature.verify({ headers: delivery.headers, body: delivery.body, secrets: partner.webhookSecret })
      yield* WebhookSignature.verifyPartnerSignature(
        delivery.body,
        delivery.headers["x-partner-signature"]!,
        partner.webhookSecret
      )
      assert.strictEqual(JSON.parse(delivery.body).event_type, "funds_received")
      assert.strictEqual(delivery.event?.fx_contract_id, contract.id)
      assert.deepStrictEqual(yield* WebhookInbox.rejected, [])
    }).pipe(Effect.provide(Ratelock.layer))
  )

  it.effect("a delivery signed with another secret is refused (400) with the reason", () =>
    Effect.gen(function* () {
      const { partner } = yield* Ratelock.Ratelock
      const inbox = yield* WebhookInbox.WebhookInbox
      yield* inbox.register(partner.webhookUrls.sandbox, "whsec_c2VjcmV0LW9mLXNvbWVvbmUtZWxzZS0wMDAwMDAwMDA=")
      yield* Scenario.activeContract()
      const [refused] = yield* WebhookInbox.rejected
      assert.strictEqual(refused?.status, 400)
      assert.match(refused?.problem ?? "", /^webhook-signature: /)
      assert.isUndefined(refused?.event)
    }).pipe(Effect.provide(Ratelock.layer))
  )

  it.effect("failNext: the endpoint fails twice, the retries deliver", () =>
    Effect.gen(function* () {
      yield* WebhookInbox.failNext(2)
      const contract = yield* Scenario.activeContract()
      assert.deepStrictEqual(yield* WebhookInbox.events(contract.id), [])
      const received = yield* WebhookInbox.awaitEvent("funds_received", contract.id)
      assert.strictEqual(received.fx_contract_id, contract.id)
      assert.deepStrictEqual(
        (yield* WebhookInbox.deliveries).map((d) => d.status),
        [500, 500, 200]
      )
      const [record] = yield* Scenario.webhookEvents({ fx_contract_id: contract.id, direction: "outgoing" })
      assert.strictEqual(record?.status, "delivered")
      assert.strictEqual(record?.retry_count, 2)
    }).pipe(Effect.provide(Ratelock.layer))
  )

  it.effect("awaitEvent fails with what was delivered when the event does not come", () =>
    Effect.gen(function* () {
      const contract = yield* Scenario.activeContract()
      const error = yield* WebhookInbox.awaitEvent("contract_expired", contract.id, { within: "1 day" }).pipe(
        Effect.flip
      )
      assert.strictEqual(error._tag, "EventNotDelivered")
      assert.include(error.message, `no contract_expired accepted for contract ${contract.id} within 1d`)
      assert.include(error.message, "delivered for it: funds_received (200)")
    }).pipe(Effect.provide(Ratelock.layer))
  )

  it.effect("occurrence: the second payout_failed of a payout that fails twice", () =>
    Effect.gen(function* () {
      const contract = yield* Scenario.activeContract()
      yield* Scenario.failNextPayout(contract.id)
      yield* Scenario.exercise(contract.id, "5.10")
      const first = yield* WebhookInbox.awaitEvent("payout_failed", contract.id)
      yield* Scenario.failNextPayout(contract.id)
      const second = yield* WebhookInbox.awaitEvent("payout_failed", contract.id, { occurrence: 2 })
      assert.notStrictEqual(second.event_id, first.event_id)
      assert.isTrue(second.payout.will_retry)
      yield* WebhookInbox.awaitEvent("payout_settled", contract.id)
      assert.deepStrictEqual(
        (yield* WebhookInbox.events(contract.id)).map((e) => [e.event_type, e.sequence]),
        [
          ["funds_received", 1],
          ["payout_failed", 2],
          ["payout_failed", 3],
          ["payout_settled", 4]
        ]
      )
    }).pipe(Effect.provide(Ratelock.layer))
  )

  it.effect("clear forgets what was received", () =>
    Effect.gen(function* () {
      yield* Scenario.activeContract()
      assert.lengthOf(yield* WebhookInbox.deliveries, 1)
      yield* WebhookInbox.clear
      assert.lengthOf(yield* WebhookInbox.deliveries, 0)
    }).pipe(Effect.provide(Ratelock.layer))
  )
})
