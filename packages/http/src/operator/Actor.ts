/**
 * Who a request of the operator API acts as, for the audit log: the token's operator name, id and
 * role, the request's id (the client's `X-Request-Id` when it is a sane one, else a new one, echoed
 * on the response), the trace of its span when one is exported, and the client's address.
 */
import type { IdGenerator, OperatorActor, OperatorTokens } from "@ratelock/core"
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"

/** A client's request id is kept when it is 1 to 128 of these; anything else gets a new one. */
const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/

export const requestIdHeader = "x-request-id"

/** The request's id: the client's, or a new one. */
export const requestId = (request: HttpServerRequest.HttpServerRequest, ids: IdGenerator.IdGeneratorShape) => {
  const given = request.headers[requestIdHeader]
  return given !== undefined && saneRequestId.test(given) ? Effect.succeed(given) : ids.uuid
}

/** The actor of `token`'s request. */
export const actorOf = Effect.fnUntraced(function* (token: OperatorTokens.TokenListing, id: string) {
  const request = yield* HttpServerRequest.HttpServerRequest
  const span = yield* Effect.option(Effect.currentSpan)
  return {
    via: "api",
    name: token.name,
    tokenId: token.token_id,
    role: token.role,
    requestId: id,
    traceId: Option.match(span, { onNone: () => null, onSome: (s) => s.traceId }),
    clientAddress: Option.getOrNull(request.remoteAddress)
  } satisfies OperatorActor.Actor
})
