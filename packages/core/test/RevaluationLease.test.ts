/**
 * The workers' revaluation pass under the one lease on revaluing the book, over adapters-store's
 * memory store (whose contract suite checks the lease itself on every store): a worker finding the
 * book due while another holds the lease skips it; the lease ends when its holder is done, or when
 * its time runs out after a holder died.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { MemoryStore } from "@ratelock/adapters-store"
import { IdGenerator, Lease, Revaluation, RiskRevaluationRepo } from "@ratelock/core"

const start = Date.parse("2026-11-23T12:00:00Z")
const leaseFor = Duration.minutes(1)

/** `effect` as the worker `owner` (each process has its own). */
const as = <A, E, R>(owner: string, effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, Lease.Worker, { owner, leaseFor, batch: 100, concurrency: 4 })

const world = Layer.mergeAll(MemoryStore.layerMemory, IdGenerator.IdGenerator.layerTest)

const computedAt = Effect.map(
  RiskRevaluationRepo.RiskRevaluationRepo.use((repo) => repo.latest("production")),
  Option.map((r) => DateTime.formatIso(r.computedAt))
)

describe("Revaluation.revaluationPass: one worker revalues at a time", () => {
  it.effect("a worker skips a due book while another holds the lease, and revalues once it is free", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const repo = yield* RiskRevaluationRepo.RiskRevaluationRepo
      const now = yield* DateTime.now
      // worker-b is revaluing (it took the lease and has stored nothing yet)
      const held = { owner: "worker-b", until: DateTime.addDuration(now, leaseFor) }
      assert.isTrue(yield* repo.claim(held, now))
      assert.strictEqual(yield* as("worker-a", Revaluation.revaluationPass()), 0)
      assert.isTrue(Option.isNone(yield* computedAt))
      // worker-b is done: its lease released, worker-a (finding the book still due) revalues it
      yield* repo.release(held, now)
      assert.strictEqual(yield* as("worker-a", Revaluation.revaluationPass()), 2)
      assert.deepStrictEqual(yield* computedAt, Option.some(DateTime.formatIso(now)))
      // and lets the lease go: the next due revaluation is anybody's
      yield* TestClock.adjust(Duration.seconds(30))
      assert.strictEqual(yield* as("worker-b", Revaluation.revaluationPass()), 2)
    }).pipe(Effect.provide(world))
  )

  it.effect("a dead holder's lease runs out: after its time another worker revalues", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const repo = yield* RiskRevaluationRepo.RiskRevaluationRepo
      const now = yield* DateTime.now
      assert.isTrue(yield* repo.claim({ owner: "worker-b", until: DateTime.addDuration(now, leaseFor) }, now))
      yield* TestClock.adjust(Duration.seconds(59))
      assert.strictEqual(yield* as("worker-a", Revaluation.revaluationPass()), 0)
      yield* TestClock.adjust(Duration.seconds(1))
      assert.strictEqual(yield* as("worker-a", Revaluation.revaluationPass()), 2)
    }).pipe(Effect.provide(world))
  )
})
