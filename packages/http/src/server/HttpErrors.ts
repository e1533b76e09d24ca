/**
 * Core's typed failures as the API's error responses (api-decisions.md, "Errors"): one status per
 * wire code, the `error: {code, message}` envelope, `detail` on 422. Any other failure (store,
 * chain, a bug) is a 500 with one generic message; its cause goes to the log, never to the body.
 */
import { ApiError } from "@ratelock/core"
import { Cause, Effect, Predicate } from "effect"
import { BadRequest, Conflict, envelope, InternalError, NotFound, ValidationFailed } from "../api/Errors.ts"

/** The failures with a wire `code`. */
export type WireError = ApiError.ApiError

type Tag = WireError["_tag"]

/** The status of each typed failure. */
export const statusByTag: Readonly<Record<Tag, 400 | 404 | 409 | 422>> = {
  ValidationError: 422,
  QuoteNotFound: 404,
  ContractNotFound: 404,
  WebhookEventNotFound: 404,
  WebhookInboxNotFound: 404,
  QuoteExpired: 409,
  QuoteNotAccepted: 409,
  QuoteAlreadyAccepted: 409,
  IdempotencyKeyReused: 409,
  IdempotencyKeyInUse: 409,
  ContractMismatch: 409,
  InvalidContractState: 409,
  OutsideWindow: 400,
  FundingAmountInvalid: 400
}

export const isWireError = (u: unknown): u is WireError =>
  Predicate.hasProperty(u, "_tag") && typeof u._tag === "string" && Object.hasOwn(statusByTag, u._tag)

/** The HTTP error a failure becomes, by type: what a handler's error channel turns into. */
export type HttpErrorOf<E> = E extends { readonly _tag: "ValidationError" }
  ? ValidationFailed
  : E extends { readonly _tag: "QuoteNotFound" | "ContractNotFound" | "WebhookEventNotFound" | "WebhookInboxNotFound" }
    ? NotFound
    : E extends { readonly _tag: "OutsideWindow" | "FundingAmountInvalid" }
      ? BadRequest
      : E extends { readonly _tag: Tag }
        ? Conflict
        : InternalError

/** The wire body of a failure: `error: {code, message}`, plus `detail` on 422. */
export const bodyOf = (error: WireError): ApiError.ErrorBody => ApiError.toBody(error)

export const toHttpError = (error: WireError): ValidationFailed | NotFound | BadRequest | Conflict => {
  const body = bodyOf(error)
  switch (statusByTag[error._tag]) {
    case 422:
      return new ValidationFailed({ error: body.error, detail: body.detail ?? [] })
    case 404:
      return new NotFound(body)
    case 400:
      return new BadRequest(body)
    case 409:
      return new Conflict(body)
  }
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
  ) as Effect.Effect<A, HttpErrorOf<E>, R>
