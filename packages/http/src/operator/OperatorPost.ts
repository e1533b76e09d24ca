/**
 * The operator API's `POST`s under an `Idempotency-Key`, as the partner API's are
 * (`server/Idempotent.ts`): the first answer, a refusal included, is stored and replayed with
 * `Idempotent-Replayed: true`; the same key on another body or route is 409. An operator's keys
 * are their token's: they are kept beside partners' under the token's id, so two tokens never
 * share one. A secret in the answer (a new key's, a webhook's, a token) is shown once: what is
 * kept for a replay has each secret as null, so none is stored in the clear.
 */
import { Audit, type AuditRepo, type IdempotencyRepo, type IdGenerator, type StoreTransaction } from "@ratelock/core"
import type { Digest } from "effect/crypto"
import { Effect, type Schema } from "effect"
import { CurrentOperator } from "../api/OperatorSecurity.ts"
import { type Call, render, respond, routeOf } from "../server/Idempotent.ts"
import { mapErrors } from "../server/HttpErrors.ts"
import { storedRefusal } from "./OperatorErrors.ts"

/**
 * What every route that changes something needs besides its own repositories: the audit record's
 * (`Audit.act`: the log, one transaction, ids) and a POST's idempotency (its key's store, its
 * fingerprint's digest).
 */
export type ChangeRequirements =
  | AuditRepo.AuditRepo
  | StoreTransaction.StoreTransaction
  | IdGenerator.IdGenerator
  | IdempotencyRepo.IdempotencyRepo
  | Digest.Digest

/** Every secret of a JSON answer as null, however deep (core's rule of what a secret is). */
const withoutSecrets = (response: IdempotencyRepo.StoredResponse): IdempotencyRepo.StoredResponse => ({
  status: response.status,
  body: JSON.stringify(JSON.parse(response.body), (key, value) =>
    key !== "" && Audit.isSecretKey(key) && value !== null ? null : value
  )
})

/** A POST of the operator, answered once per key when one is sent. */
export const post = <S extends Schema.Top & { readonly EncodingServices: never }, E, R>(
  call: Call,
  schema: S,
  status: number | ((value: S["Type"]) => number),
  program: Effect.Effect<S["Type"], E, R>
) =>
  Effect.flatMap(CurrentOperator, (token) =>
    respond(
      { partnerId: token.token_id, environment: "production" },
      call.headers["idempotency-key"],
      { request: call.request, route: routeOf(call.endpoint.path, call.params) },
      // which failures are refusals is read from each error, not its type: none is excluded
      render<S, E, R, never>(schema, status, program, storedRefusal),
      { stored: withoutSecrets }
    )
  ).pipe(mapErrors)
