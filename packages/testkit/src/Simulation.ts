/**
 * Time and the lifecycle workers of the in-memory Ratelock. Under the `TestClock` nothing runs by
 * itself: the workers run when a test says so, and time moves only when a test moves it.
 *
 * - `runWorkers`: every worker pass (funding, funding deadlines, payouts, expiry, webhook
 *   delivery) at the current instant, repeated until nothing is left to do now.
 * - `advance(duration)` / `advanceTo(instant)`: moves the clock forward, stopping at every instant
 *   at which work falls due on the way (a window end, a funding deadline, a payout retry, a
 *   webhook retry) to run the workers there, and once more at the end. Retries happen at the
 *   times the real schedules give them (webhook retries carry their ±10 % jitter, from a seeded
 *   random generator: the same run gives the same times).
 */
import { Clock, Context, DateTime, Duration, Effect, Layer, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
import { nextDue } from "./internal/agenda.ts"
import { runUntilQuiet } from "./internal/passes.ts"
import type { Workers } from "@ratelock/http"

export interface SimulationShape {
  /** The simulated now. */
  readonly now: Effect.Effect<DateTime.Utc>
  /** Every worker pass at the current instant, until none finds anything to do. */
  readonly runWorkers: Effect.Effect<void>
  /** Moves time forward by `duration`, running the workers wherever work falls due on the way. */
  readonly advance: (duration: Duration.Input) => Effect.Effect<void>
  /** Moves time forward to `instant` (an ISO string or a `DateTime`); an instant in the past is a defect. */
  readonly advanceTo: (instant: DateTime.DateTime.Input) => Effect.Effect<void>
  /** The next instant at which a worker pass would find work, if any is scheduled. */
  readonly nextDue: Effect.Effect<Option.Option<DateTime.Utc>>
}

export class Simulation extends Context.Service<Simulation, SimulationShape>()("@ratelock/testkit/Simulation") {}

const die = (what: string) => (cause: unknown) =>
  Effect.die(new Error(`Ratelock testkit: ${what} failed: ${String(cause)}`, { cause }))

/**
 * The simulation on the stores, chain and crypto in context, and the `TestClock` in context:
 * the same clock the handlers and the test read (`Ratelock.layer` provides it all).
 */
export const layer: Layer.Layer<Simulation, never, Workers.Requirements | TestClock.TestClock> = Layer.effect(
  Simulation,
  Effect.gen(function* () {
    const context = Context.omit(Scope.Scope)(yield* Effect.context<Workers.Requirements | TestClock.TestClock>())
    const clock = yield* TestClock.testClockWith(Effect.succeed)
    const onPorts = <A, E>(
      effect: Effect.Effect<A, E, Workers.Requirements | TestClock.TestClock>,
      what: string
    ): Effect.Effect<A> => effect.pipe(Effect.catch(die(what)), Effect.provideContext(context))

    const now = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.makeUnsafe(millis)).pipe(
      Effect.provideContext(context)
    )
    const runWorkers = onPorts(runUntilQuiet, "a worker pass")
    const due = (at: DateTime.Utc) => onPorts(nextDue(at), "reading the schedule")

    const advanceTo = Effect.fnUntraced(function* (input: DateTime.DateTime.Input) {
      const target = DateTime.toUtc(DateTime.makeUnsafe(input))
      const start = yield* now
      if (target.epochMilliseconds < start.epochMilliseconds) {
        return yield* Effect.die(
          new Error(
            `Ratelock testkit: cannot go back in time to ${DateTime.formatIso(target)} (now ${DateTime.formatIso(start)})`
          )
        )
      }
      yield* runWorkers
      for (;;) {
        const next = yield* due(yield* now)
        if (Option.isNone(next) || next.value.epochMilliseconds > target.epochMilliseconds) break
        yield* clock.setTime(next.value.epochMilliseconds)
        yield* runWorkers
      }
      yield* clock.setTime(target.epochMilliseconds)
      yield* runWorkers
    })

    const advance = (duration: Duration.Input) =>
      Effect.flatMap(now, (start) => advanceTo(DateTime.addDuration(start, Duration.fromInputUnsafe(duration))))

    return Simulation.of({ now, runWorkers, advance, advanceTo, nextDue: Effect.flatMap(now, due) })
  })
)

/** The simulated now. */
export const now: Effect.Effect<DateTime.Utc, never, Simulation> = Simulation.use((s) => s.now)

/** Every worker pass at the current instant, until none finds anything to do. */
export const runWorkers: Effect.Effect<void, never, Simulation> = Simulation.use((s) => s.runWorkers)

/** Moves time forward by `duration`, running the workers wherever work falls due on the way. */
export const advance = (duration: Duration.Input): Effect.Effect<void, never, Simulation> =>
  Simulation.use((s) => s.advance(duration))

/** Moves time forward to `instant`, running the workers wherever work falls due on the way. */
export const advanceTo = (instant: DateTime.DateTime.Input): Effect.Effect<void, never, Simulation> =>
  Simulation.use((s) => s.advanceTo(instant))

/** The next instant at which a worker pass would find work, if any is scheduled. */
export const nextDueAt: Effect.Effect<Option.Option<DateTime.Utc>, never, Simulation> = Simulation.use((s) => s.nextDue)
