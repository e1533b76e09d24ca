/**
 * The operator API's `POST`s under an `Idempotency-Key`, as the partner API's are
 * (`server/Idempotent.ts`): the first answer, a refusal included, is stored and replayed with
 * `Idempotent-Replayed: true`; the same key on another body or route is 409. An operator's keys
 * are their token's: they are kept beside partners' under the token's id, so two tokens never
 * share one.
 *
 * A secret in an answer (a new token, a partner's key or webhook secret) is in the first answer
 * only: what is stored for a replay has it as null, so the idempotency table never holds one.
 */
import type { IdempotencyRepo } from "@ratelock/core"
import { Effect, Option, Ref, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { CurrentOperator } from "../api/OperatorSecurity.ts"
import { type Call, respond, routeOf } from "../server/Idempotent.ts"
import { mapErrors } from "../server/HttpErrors.ts"
import { NotFound, ValidationFailed } from "../api/Errors.ts"
import { type Refusal, refusalOf } from "./OperatorErrors.ts"

/** `program`'s success encoded with `schema` at `status`, or its refusal's answer; other failures stay failures. */
const render = <S extends Schema.Top & { readonly EncodingServices: never }, E, R>(
  schema: S,
  status: number | ((value: S["Type"]) => number),
  program: Effect.Effect<S["Type"], E, R>
): Effect.Effect<IdempotencyRepo.StoredResponse, E, R> => {
  const encode = Schema.encodeEffect(Schema.toCodecJson(schema))
  return program.pipe(
    Effect.flatMap((value) =>
      Effect.map(Effect.orDie(encode(value)), (json) => ({
        status: typeof status === "number" ? status : status(value),
        body: JSON.stringify(json)
      }))
    ),
    Effect.catch((error) => {
      const refusal = refusalOf(error)
      if (refusal === undefined) return Effect.fail(error)
      const body =
        refusal instanceof ValidationFailed
          ? { error: refusal.error, detail: refusal.detail }
          : { error: refusal.error }
      return Effect.succeed({ status: statusOf(refusal), body: JSON.stringify(body) })
    })
  )
}

const statusOf = (refusal: Refusal): number =>
  refusal instanceof NotFound ? 404 : refusal instanceof ValidationFailed ? 422 : 409

/**
 * A secret of an answer: under a key naming one (`api_key_secret`, `webhook_secret`), or a value
 * that is one by its prefix (an operator token, an API key's or a webhook's secret). A `token` that
 * names a currency (`USDC`) is no secret.
 */
const isSecret = (key: string, value: unknown): boolean =>
  typeof value === "string" && (/secret|password/i.test(key) || /^(rlop|rlk|rlwhsec|whsec)_/.test(value))

/** `body` as kept for a replay: every secret's value null. */
export const withoutSecrets = (body: string): string =>
  JSON.stringify(JSON.parse(body), (key, value) => (key !== "" && isSecret(key, value) ? null : value))

/** A POST of the operator, answered once per key when one is sent. */
export const post = <S extends Schema.Top & { readonly EncodingServices: never }, E, R>(
  call: Call,
  schema: S,
  status: number | ((value: S["Type"]) => number),
  program: Effect.Effect<S["Type"], E, R>
) =>
  Effect.gen(function* () {
    const token = yield* CurrentOperator
    // this request's own answer, secrets included; what is stored (and replayed) has them null
    const own = yield* Ref.make(Option.none<IdempotencyRepo.StoredResponse>())
    const response = yield* respond(
      { partnerId: token.token_id, environment: "production" },
      call.headers["idempotency-key"],
      { request: call.request, route: routeOf(call.endpoint.path, call.params) },
      render(schema, status, program).pipe(
        Effect.tap((answer) => Ref.set(own, Option.some(answer))),
        Effect.map((answer) => ({ ...answer, body: withoutSecrets(answer.body) }))
      )
    )
    // a replay ran nothing: it answers what was stored
    return Option.match(yield* Ref.get(own), {
      onNone: () => response,
      onSome: (answer) =>
        HttpServerResponse.text(answer.body, { status: answer.status, contentType: "application/json" })
    })
  }).pipe(mapErrors)
