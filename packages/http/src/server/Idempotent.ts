/**
 * POSTs under an `Idempotency-Key` (api-decisions.md, "Idempotency"), through core's
 * `Idempotency.run`: the first answer (2xx or 4xx) is rendered once to exact bytes, stored and
 * replayed with `Idempotent-Replayed: true`; the same key on another body or route is 409
 * `idempotency_key_reused`, on a request still running 409 `idempotency_key_in_use`. A 5xx is
 * not stored: the key is released so the partner's retry runs again.
 */
import { type ApiError, Idempotency, type IdempotencyRepo, type Partner, type StoreError } from "@ratelock/core"
import { Effect, Schema } from "effect"
import type { Digest } from "effect/crypto"
import type { HttpServerRequest } from "effect/http"
import { HttpServerResponse } from "effect/http"
import { type AuthenticatedPartner, CurrentPartner } from "../api/Security.ts"
import { bodyOf, isWireError, statusOf, type WireError } from "./HttpErrors.ts"

/** A typed failure of the partner API (core's `ApiError`) as the answer it is kept as. */
const wireAnswer = (error: unknown): IdempotencyRepo.StoredResponse | undefined =>
  isWireError(error) ? { status: statusOf(error), body: JSON.stringify(bodyOf(error)) } : undefined

/**
 * A core program's outcome as a replayable answer: its success encoded with `schema` at `status`
 * (a number, or one per value), a failure `answerOf` answers (by default a typed failure of the
 * partner API, `Answered`) as its error body at its status. Other failures stay failures.
 */
export const render = <S extends Schema.Top & { readonly EncodingServices: never }, E, R, Answered = WireError>(
  schema: S,
  status: number | ((value: S["Type"]) => number),
  program: Effect.Effect<S["Type"], E, R>,
  answerOf: (error: E) => IdempotencyRepo.StoredResponse | undefined = wireAnswer
): Effect.Effect<IdempotencyRepo.StoredResponse, Exclude<E, Answered>, R> => {
  const encode = Schema.encodeEffect(Schema.toCodecJson(schema))
  return program.pipe(
    // a response that does not encode is a bug in the service, not an answer to replay
    Effect.flatMap((value) =>
      Effect.map(Effect.orDie(encode(value)), (json) => ({
        status: typeof status === "number" ? status : status(value),
        body: JSON.stringify(json)
      }))
    ),
    Effect.catch((error) => {
      const answer = answerOf(error)
      return answer === undefined ? Effect.fail(error) : Effect.succeed(answer)
    })
  ) as Effect.Effect<IdempotencyRepo.StoredResponse, Exclude<E, Answered>, R>
}

const toResponse = (stored: IdempotencyRepo.StoredResponse, replayed: boolean) =>
  HttpServerResponse.text(stored.body, {
    status: stored.status,
    contentType: "application/json",
    ...(replayed ? { headers: { "idempotent-replayed": "true" } } : {})
  })

/** The route a key was used on: the endpoint's path with its parameters filled in. */
export const routeOf = (path: string, params: Readonly<Record<string, unknown>> = {}) =>
  path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? "")))

/** The request body as parsed JSON (already validated by the endpoint's decoder); none when empty. */
export const jsonBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(Effect.orDie(request.text), (text): unknown => {
    if (text === "") return undefined
    try {
      return JSON.parse(text)
    } catch {
      // a route without a body schema may receive anything: fingerprint the text as it came
      return text
    }
  })

/** Answers a POST: run once per key when the partner sent one, plainly otherwise. */
export const respond = Effect.fnUntraced(function* <E, R>(
  scope: Partner.PartnerScope,
  key: string | undefined,
  request: { readonly request: HttpServerRequest.HttpServerRequest; readonly route: string },
  rendered: Effect.Effect<IdempotencyRepo.StoredResponse, E, R>,
  options: { readonly stored?: (response: IdempotencyRepo.StoredResponse) => IdempotencyRepo.StoredResponse } = {}
): Effect.fn.Return<
  HttpServerResponse.HttpServerResponse,
  E | ApiError.IdempotencyKeyReused | ApiError.IdempotencyKeyInUse | StoreError.StoreError | ApiError.ValidationError,
  R | IdempotencyRepo.IdempotencyRepo | Digest.Digest
> {
  if (key === undefined) return toResponse(yield* rendered, false)
  const body = yield* jsonBody(request.request)
  const outcome = yield* Idempotency.run(
    scope,
    key,
    { method: request.request.method, route: request.route, body },
    rendered,
    options
  )
  return toResponse(outcome.response, outcome.replayed)
})

/** What a POST handler is called with that an idempotent answer needs. */
export interface Call {
  readonly headers: { readonly "idempotency-key"?: string | undefined }
  readonly request: HttpServerRequest.HttpServerRequest
  readonly endpoint: { readonly path: string }
  readonly params?: Readonly<Record<string, unknown>> | undefined
}

/**
 * A POST of the authenticated partner, answered once per key: `program`'s outcome for the partner,
 * rendered with `schema` at `status`.
 */
export const post = <S extends Schema.Top & { readonly EncodingServices: never }, E, R>(
  call: Call,
  schema: S,
  status: number,
  program: (partner: AuthenticatedPartner) => Effect.Effect<S["Type"], E, R>
) =>
  Effect.flatMap(CurrentPartner, (partner) =>
    respond(
      partner,
      call.headers["idempotency-key"],
      { request: call.request, route: routeOf(call.endpoint.path, call.params) },
      render(schema, status, program(partner))
    )
  )
