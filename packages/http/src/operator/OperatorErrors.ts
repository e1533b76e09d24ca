/**
 * An operator program's refusal as the operator API answers it, with the message the CLI prints on
 * the database (so a command says the same through the API): the error's code (its `reason`) and
 * message in the usual envelope. A code ending in `not_found` is 404; a document refused (with
 * every rule it breaks in `detail`) or a code starting `invalid` is 422; any other refusal (the
 * state does not allow it: an order no longer open, a payout mined) is 409. The store's failures
 * and bugs stay 500s, logged, their cause never in the body.
 */
import { ApiError, type IdempotencyRepo } from "@ratelock/core"
import { Effect, Predicate } from "effect"
import { Conflict, envelope, NotFound, ValidationFailed } from "../api/Errors.ts"
import { hideInternal } from "../server/HttpErrors.ts"

export type Refusal = NotFound | Conflict | ValidationFailed

/** Failures that are the service's, not the operator's. */
const internal = new Set(["StoreError", "SqlError", "ChainError"])

/** The codes of refusals whose error has no `reason` of its own. */
const codeByTag: Readonly<Record<string, string>> = {
  InvalidWebhookUrl: "invalid_webhook_url",
  LimitError: "invalid_limits"
}

/** `error` as the answer to the operator, or none when it is no refusal (a 500 then). */
export const refusalOf = (error: unknown): Refusal | undefined => {
  if (!Predicate.hasProperty(error, "_tag") || typeof error._tag !== "string" || internal.has(error._tag)) {
    return undefined
  }
  if (error._tag === "ValidationError") {
    const body = ApiError.toBody(error as ApiError.ValidationError)
    return new ValidationFailed({ error: body.error, detail: body.detail ?? [] })
  }
  const message = Predicate.hasProperty(error, "message") && typeof error.message === "string" ? error.message : ""
  if (message === "") return undefined
  // an operator program's refusal names itself by `reason`, a partner API error (core's ApiError) by `code`
  const reason = Predicate.hasProperty(error, "reason") ? error.reason : undefined
  const wireCode = Predicate.hasProperty(error, "code") ? error.code : undefined
  const code =
    codeByTag[error._tag] ?? (typeof reason === "string" ? reason : typeof wireCode === "string" ? wireCode : undefined)
  if (code === undefined) return undefined
  if (code.endsWith("not_found")) return new NotFound(envelope(code, message))
  if (code.startsWith("invalid")) return new ValidationFailed({ ...envelope(code, message), detail: [] })
  return new Conflict(envelope(code, message))
}

/** A refusal as it is kept for a replay (`server/Idempotent.ts`): its status and its body. */
export const storedRefusal = (error: unknown): IdempotencyRepo.StoredResponse | undefined => {
  const refusal = refusalOf(error)
  if (refusal === undefined) return undefined
  if (refusal instanceof ValidationFailed) {
    return { status: 422, body: JSON.stringify({ error: refusal.error, detail: refusal.detail }) }
  }
  return { status: refusal instanceof NotFound ? 404 : 409, body: JSON.stringify({ error: refusal.error }) }
}

/** A handler's program with its refusals answered and everything else a logged 500. */
export const mapRefusals = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.catch(self, (error) => {
    const refusal = refusalOf(error)
    return refusal === undefined ? hideInternal(error) : Effect.fail(refusal)
  })
