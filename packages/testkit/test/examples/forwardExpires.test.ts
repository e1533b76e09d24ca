import { assert, describe, it } from "@effect/vitest"
import { Money } from "@ratelock/core"
import { Ratelock, Scenario, Simulation, WebhookInbox } from "@ratelock/testkit"
import { DateTime, Effect } from "effect"

describe("a forward the customer never exercises", () => {
  it.effect("expires when its window ends and its deposit is forfeited", () =>
    Effect.gen(function* () {
      const contract = yield* Scenario.activeContract({ contract_type: "forward" }, { window: "7 days" })
      assert.isNotNull(contract.deposit_amount)

      // a week and a day later: the window ended, the expiry worker ran
      yield* Simulation.advance("8 days")

      const expired = yield* WebhookInbox.awaitEvent("contract_expired", contract.id)
      assert.strictEqual(expired.contract.contract_type, "forward")
      assert.strictEqual(DateTime.formatIso(expired.contract.expired_at), DateTime.formatIso(contract.window_end!))
      const forfeited = expired.deposit_outcome
      assert.isNotNull(forfeited)
      assert.strictEqual(forfeited.status, "forfeited")
      assert.strictEqual(Money.format(forfeited.amount), Money.format(contract.deposit_amount!))

      const lock = yield* Scenario.lock(contract.id)
      assert.strictEqual(lock.status, "deposit_forfeited")
    }).pipe(Effect.provide(Ratelock.layer))
  )
})
