import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Exit, Option } from "effect"
import { Ratelock, Scenario, Simulation, WebhookInbox } from "../src/index.ts"

const at = (millis: number) => DateTime.formatIso(DateTime.makeUnsafe(millis))

describe("Simulation", () => {
  it.effect("nothing runs by itself: a funded contract activates when the workers run", () =>
    Effect.gen(function* () {
      const contract = yield* Scenario.contract()
      yield* Scenario.fund(contract.id)
      assert.strictEqual((yield* Scenario.lock(contract.id)).status, "quote_created")
      assert.deepStrictEqual(yield* WebhookInbox.deliveries, [])
      yield* Simulation.runWorkers
      assert.strictEqual((yield* Scenario.lock(contract.id)).status, "active")
      assert.deepStrictEqual(
        (yield* WebhookInbox.events(contract.id)).map((e) => e.event_type),
        ["funds_received"]
      )
    }).pipe(Effect.provide(Ratelock.layer))
  )

  it.effect("funding deadline: unfunded fails, partly funded defaults, an hour after creation", () =>
    Effect.gen(function* () {
      const unfunded = yield* Scenario.contract({ customer_reference_id: "c-unfunded" })
      const partial = yield* Scenario.contract({ customer_reference_id: "c-partial" })
      yield* Scenario.fund(partial.id, "10")
      yield* Simulation.advance("59 minutes")
      assert.strictEqual((yield* Scenario.lock(unfunded.id)).status, "quote_created")
      yield* Simulation.advance("1 minute")
      // the deadline is over once it has passed
      assert.strictEqual((yield* Scenario.lock(unfunded.id)).status, "quote_created")
      yield* Simulation.advance("1 millis")
      assert.strictEqual((yield* Scenario.lock(unfunded.id)).status, "failed")
      assert.strictEqual((yield* Scenario.lock(partial.id)).status, "defaulted")
    }).pipe(Effect.provide(Ratelock.layer))
  )

  it.effect("advance stops at every webhook retry, at the scheduled (jittered) times, up to 24 hours", () =>
    Effect.gen(function* () {
      yield* WebhookInbox.respondWith(503)
      const start = (yield* Simulation.now).epochMilliseconds
      const contract = yield* Scenario.activeContract()
      yield* Simulation.advance("2 days")
      const attempts = (yield* WebhookInbox.deliveries).map((d) => d.receivedAt.epochMilliseconds - start)
      // attempts at 0, then ≈ 30 s, 2 min, 10 min, 1 h, 4 h, 12 h later (± 10 %)
      assert.strictEqual(attempts.length, 7)
      const waits = attempts.slice(1).map((t, i) => t - attempts[i]!)
      const schedule = [30, 120, 600, 3600, 14_400, 43_200].map((s) => s * 1000)
      waits.forEach((wait, i) => {
        assert.isAtLeast(wait, schedule[i]! * 0.9, `retry ${i + 1} at ${at(start + attempts[i + 1]!)}`)
        assert.isAtMost(wait, schedule[i]! * 1.1, `retry ${i + 1} at ${at(start + attempts[i + 1]!)}`)
      })
      const [record] = yield* Scenario.webhookEvents({ direction: "outgoing" })
      assert.strictEqual(record?.status, "failed")
      assert.strictEqual(record?.retry_count, 6)
      // nothing is scheduled any more but the window's end
      const next = Option.getOrThrow(yield* Simulation.nextDueAt)
      assert.strictEqual(next.epochMilliseconds, contract.window_end!.epochMilliseconds + 1)
    }).pipe(Effect.provide(Ratelock.layer))
  )

  it.effect("nextDueAt: the window end of an active contract", () =>
    Effect.gen(function* () {
      const contract = yield* Scenario.activeContract({}, { window: "2 days" })
      const next = yield* Simulation.nextDueAt
      assert.isTrue(Option.isSome(next))
      const windowEnd = contract.window_end!
      assert.strictEqual(Option.getOrThrow(next).epochMilliseconds, windowEnd.epochMilliseconds + 1)
    }).pipe(Effect.provide(Ratelock.layer))
  )

  it.effect("advanceTo: an instant; going back in time is a defect", () =>
    Effect.gen(function* () {
      yield* Simulation.advanceTo("2026-01-06T00:00:00Z")
      assert.strictEqual(DateTime.formatIso(yield* Simulation.now), "2026-01-06T00:00:00.000Z")
      const back = yield* Effect.exit(Simulation.advanceTo("2026-01-01T00:00:00Z"))
      assert.isTrue(Exit.isFailure(back))
      yield* Simulation.advance(Duration.hours(1))
      assert.strictEqual(DateTime.formatIso(yield* Simulation.now), "2026-01-06T01:00:00.000Z")
    }).pipe(Effect.provide(Ratelock.layer))
  )
})
