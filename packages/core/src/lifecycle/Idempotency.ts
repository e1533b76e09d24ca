/**
 * `Idempotency-Key` handling for POSTs (api-decisions.md): the first response to a key is kept for
 * 24 hours and replayed byte for byte; the same key with another body or route is refused, and so
 * is the same key while its first request is still running.
 */
import { DateTime, Duration, Effect } from "effect"
import { IdempotencyKeyInUse, IdempotencyKeyReused, ValidationError } from "../kernel/ApiError.ts"
import { fingerprint } from "./IdempotencyFingerprint.ts"
import { IdempotencyRepo, type StoredResponse } from "./IdempotencyRepo.ts"
import type { PartnerScope } from "../terms/Partner.ts"

export const retention = Duration.hours(24)

/**
 * How long a key stays claimed by a request that has not answered yet. Far longer than any
 * request takes; once it is over, the key of a request whose process died (a crash, a kill) is
 * free for the partner's retry instead of answering `idempotency_key_in_use` for a day.
 */
export const inFlightLease = Duration.minutes(1)

export interface Request {
  readonly method: string
  readonly route: string
  /** The parsed JSON body. */
  readonly body: unknown
}

export interface Outcome {
  readonly response: StoredResponse
  /** `true` when this is the first request's response played back (`Idempotent-Replayed: true`). */
  readonly replayed: boolean
}

/**
 * Runs `handler` at most once per key. The handler renders every answer worth replaying (2xx and
 * 4xx) as a `StoredResponse`; when it fails instead, the key is released so a retry can run.
 */
export const run = <E, R>(
  scope: PartnerScope,
  key: string,
  request: Request,
  handler: Effect.Effect<StoredResponse, E, R>,
  options: {
    /** What is kept for a replay, when it must differ from the first answer (a secret shown once is not kept). */
    readonly stored?: ((response: StoredResponse) => StoredResponse) | undefined
  } = {}
) =>
  Effect.gen(function* () {
    const repo = yield* IdempotencyRepo
    const print = yield* fingerprint(request).pipe(
      Effect.mapError((e) =>
        ValidationError.fromIssues([
          { loc: ["body"], msg: `not representable as JSON: ${e.message}`, type: "value_error" }
        ])
      )
    )
    const now = yield* DateTime.now
    const claim = yield* repo.claim(scope, key, print, now, DateTime.addDuration(now, inFlightLease))
    if (claim._tag !== "Claimed" && claim.fingerprint !== print) {
      return yield* new IdempotencyKeyReused({
        message: "this Idempotency-Key was already used with a different request body or route"
      })
    }
    if (claim._tag === "InFlight") {
      return yield* new IdempotencyKeyInUse({ message: "a request with this Idempotency-Key is still in progress" })
    }
    if (claim._tag === "Completed") return { response: claim.response, replayed: true } satisfies Outcome
    const response = yield* handler.pipe(
      Effect.onExit((exit) => (exit._tag === "Failure" ? repo.release(scope, key) : Effect.void))
    )
    const answeredAt = yield* DateTime.now
    const kept = options.stored === undefined ? response : options.stored(response)
    yield* repo.complete(scope, key, kept, DateTime.addDuration(answeredAt, retention))
    return { response, replayed: false } satisfies Outcome
  }).pipe(Effect.withSpan("Idempotency.run"))
