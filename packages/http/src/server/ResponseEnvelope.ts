/**
 * The outermost layer of every request: no answer leaves the server without the
 * `error: {code, message}` envelope. It catches what the API's own error mapping cannot see:
 * unknown routes (404 `not_found`), bodies over the limit (413 `payload_too_large`), an
 * unsupported content type (415), and defects (500 `internal_error`, cause logged, never shown).
 */
import { ByteSize, Effect, Exit, type Layer, type Types } from "effect"
import {
  Headers,
  HttpIncomingMessage,
  HttpRouter,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"
import { envelope } from "../api/Errors.ts"
import { BodyLimit } from "./BodyLimit.ts"
import { internalMessage } from "./HttpErrors.ts"

const codes: Readonly<Record<number, readonly [code: string, message: string]>> = {
  400: ["bad_request", "The request could not be read"],
  401: ["unauthorized", "Missing or invalid credentials"],
  403: ["forbidden", "Not allowed"],
  404: ["not_found", "No such route"],
  405: ["method_not_allowed", "Method not allowed on this route"],
  408: ["request_timeout", "The request took too long to arrive"],
  413: ["payload_too_large", "The request body is too large"],
  415: ["unsupported_media_type", "Send the body as application/json"],
  426: ["upgrade_required", "Upgrade required"],
  499: ["client_closed_request", "The client closed the request"],
  500: ["internal_error", internalMessage],
  503: ["service_unavailable", "The service is shutting down or unavailable"]
}

const isJson = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag !== "Empty" && (response.body.contentType ?? "").includes("json")

/** An error status without a JSON body gets the envelope; everything else passes untouched. */
export const envelop = (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse => {
  if (response.status < 400 || isJson(response)) return response
  const [code, message] = codes[response.status] ?? [`http_${response.status}`, "The request failed"]
  // the original content-type (text/plain, say) would misdescribe the JSON envelope
  const headers = Headers.remove(response.headers, "content-type")
  return HttpServerResponse.jsonUnsafe(envelope(code, message), { status: response.status, headers })
}

const tooLarge = (limit: number) =>
  HttpServerResponse.jsonUnsafe(envelope("payload_too_large", `The request body exceeds ${limit} bytes`), {
    status: 413,
    headers: { connection: "close" }
  })

/**
 * Global router middleware: it runs around the route lookup, so it sees unknown routes and every
 * handler's outcome before the response is written. (A `serve` middleware would be too late: the
 * response is already sent when it returns.)
 */
export const layer: Layer.Layer<never, never, HttpRouter.HttpRouter> = HttpRouter.middleware(
  Effect.gen(function* () {
    const limit = (yield* BodyLimit).maxBytes
    // errors are all handled here; the router's type only asks that none be claimed as handled
    return (
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (Number(request.headers["content-length"] ?? 0) > limit) return tooLarge(limit)
        const exit = yield* app.pipe(
          Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limit)),
          Effect.exit
        )
        if (Exit.isSuccess(exit)) return envelop(exit.value)
        const [response] = yield* HttpServerError.causeResponse(exit.cause)
        if (response.status >= 500) yield* Effect.logError("request failed", exit.cause)
        return response.status === 413 ? tooLarge(limit) : envelop(response)
      })
  }),
  { global: true }
)
