/**
 * A bounded wait for end-to-end tests: polls until the probe yields a value, and fails the test
 * with what it was waiting for once the time is up. No fixed sleeps, no timing assertions.
 */
import { Clock, Duration, Effect } from "effect"

export const waitFor = Effect.fnUntraced(function* <A, E, R>(
  what: string,
  probe: Effect.Effect<A | undefined, E, R>,
  within: Duration.Input = "20 seconds"
) {
  const limit = Duration.fromInputUnsafe(within)
  const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(limit)
  while (true) {
    const value = yield* probe
    if (value !== undefined) return value
    if ((yield* Clock.currentTimeMillis) > deadline) {
      return yield* Effect.die(new Error(`gave up after ${Duration.format(limit)} waiting for ${what}`))
    }
    yield* Effect.sleep("20 millis")
  }
})
