/**
 * Failures of the persistence ports. They are not the partner's fault: the HTTP host answers
 * them with a generic 500 and logs the cause.
 */
import { Effect, Schema } from "effect"

export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

/** A concurrent writer moved the contract first: re-read and try again. */
export class StaleContract extends Schema.TaggedError<StaleContract>()("StaleContract", {
  contractId: Schema.String
}) {}

/**
 * How often a program decides again on a contract that a concurrent writer moved first. Each
 * retry reads the contract anew; more than a few in a row would mean a writer that never lets go.
 */
export const staleRetries = 10

const isStale = (e: unknown): boolean =>
  typeof e === "object" && e !== null && "_tag" in e && e._tag === "StaleContract"

/** Runs `self` again while it fails with `StaleContract`, up to `staleRetries` times. */
export const retryStale = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(self, { while: isStale, times: staleRetries })
