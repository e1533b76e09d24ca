/**
 * Core's typed failures as the API's error responses (api-decisions.md, "Errors"): one status per
 * wire code, the `error: {code, message}` envelope, `detail` on 422. Any other failure (store,
 * chain, a bug) is a 500 with one generic message; its cause goes to the log, never to the body.
 */
import { ApiError } from "@ratelock/core"
import { Cause, Effect, Predicate, Schema } from "effect"
import { BadRequest, Conflict, envelope, InternalError, NotFound, ValidationFailed } from "../api/Errors.ts"

/** The failures with a wire `code`. */
export type WireError = ApiError.ApiError

type Tag = WireError["_tag"]

/**
 * The HTTP error each typed failure becomes: the one table of statuses (each error class carries
 * its status, `api/Errors.ts`). The runtime mapping and the handlers' error types both read it.
 */
const errorByTag = {
  ValidationError: ValidationFailed,
  QuoteNotFound: NotFound,
  ContractNotFound: NotFound,
  WebhookEventNotFound: NotFound,
  WebhookInboxNotFound: NotFound,
  QuoteExpired: Conflict,
  QuoteNotAccepted: Conflict,
  QuoteAlreadyAccepted: Conflict,
  CorridorCapacityExceeded: Conflict,
  IdempotencyKeyReused: Conflict,
  IdempotencyKeyInUse: Conflict,
  ContractMismatch: Conflict,
  InvalidContractState: Conflict,
  OutsideWindow: BadRequest,
  FundingAmountInvalid: BadRequest
} as const satisfies { readonly [T in Tag]: Schema.Top }

type ErrorByTag = typeof errorByTag

/** The HTTP error a failure becomes, by type: what a handler's error channel turns into. */
export type HttpErrorOf<E> = E extends { readonly _tag: infer T extends Tag }
  ? InstanceType<ErrorByTag[T]>
  : InternalError

export const isWireError = (u: unknown): u is WireError =>
  Predicate.hasProperty(u, "_tag") && typeof u._tag === "string" && Object.hasOwn(errorByTag, u._tag)

/** The status a typed failure answers with: its HTTP error's `httpApiStatus` (500 without one, as HttpApi). */
export const statusOf = (error: WireError): number => {
  const status = Schema.resolveAnnotations(errorByTag[error._tag])?.httpApiStatus
  return typeof status === "number" ? status : 500
}

/** The wire body of a failure: `error: {code, message}`, plus `detail` on 422. */
export const bodyOf = (error: WireError): ApiError.ErrorBody => ApiError.toBody(error)

export const toHttpError = (error: WireError): HttpErrorOf<WireError> => {
  const body = bodyOf(error)
  return error._tag === "ValidationError"
    ? new errorByTag[error._tag]({ error: body.error, detail: body.detail ?? [] })
    : new errorByTag[error._tag]({ error: body.error })
}

export const internalMessage = "The service could not complete the request. The error was logged."

export const internalError = (): InternalError => new InternalError(envelope("internal_error", internalMessage))

/** Logs an unexpected failure with its cause and answers the generic 500. */
export const hideInternal = (error: unknown): Effect.Effect<never, InternalError> =>
  Effect.andThen(Effect.logError("request failed", Cause.fail(error)), Effect.fail(internalError()))

/**
 * Maps the failures of a core program onto the endpoint's declared errors: typed failures to their
 * status, everything else to a logged, generic 500.
 */
export const mapErrors = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, HttpErrorOf<E>, R> =>
  Effect.catch(self, (error) =>
    isWireError(error) ? Effect.fail(toHttpError(error)) : hideInternal(error)
  ) as Effect.Effect<A, HttpErrorOf<E>, R> // only E's own tags reach `errorByTag`, which TypeScript cannot follow
