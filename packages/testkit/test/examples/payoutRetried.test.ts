import { assert, describe, it } from "@effect/vitest"
import { Money } from "@ratelock/core"
import { Ratelock, Scenario, WebhookInbox } from "@ratelock/testkit"
import { DateTime, Effect } from "effect"

describe("a payout the chain rejects", () => {
  it.effect("is reported failed, retried a minute later and settles", () =>
    Effect.gen(function* () {
      const contract = yield* Scenario.activeContract()
      yield* Scenario.failNextPayout(contract.id)
      yield* Scenario.exercise(contract.id, "5.10")

      // the first attempt fails: the partner hears of it, with the retry time
      const failed = yield* WebhookInbox.awaitEvent("payout_failed", contract.id, { within: 0 })
      assert.isNotEmpty(failed.payout.failure_code)
      assert.isTrue(failed.payout.will_retry)
      const retryAt = failed.payout.next_retry_at!
      const failedAt = DateTime.toEpochMillis(failed.delivered_at)
      assert.strictEqual(DateTime.toEpochMillis(retryAt) - failedAt, 60_000)

      // waiting for the settlement runs the retry at its time
      const settled = yield* WebhookInbox.awaitEvent("payout_settled", contract.id)
      assert.strictEqual(DateTime.formatIso(settled.payout.settled_at), DateTime.formatIso(retryAt))
      assert.strictEqual(Money.format(settled.payout.amount), Money.format(failed.payout.amount))

      const lock = yield* Scenario.lock(contract.id)
      assert.strictEqual(lock.status, "settled")
    }).pipe(Effect.provide(Ratelock.layer))
  )
})
