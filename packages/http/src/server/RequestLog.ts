/**
 * One log line per request, `GET /api/v1/fx/quotes 201 12 ms`, at Debug: a partner polling a
 * lock fills no screen at the default level (`RATELOCK_LOG_LEVEL=Debug` shows them). A failure of
 * the service itself (5xx) is logged at Error with its cause where it happens
 * (`ResponseEnvelope`), never here. Replaces the router's own logger (five lines at Info).
 */
import { Clock, Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"

export const middleware = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = yield* Clock.currentTimeMillis
    const response = yield* app
    const ms = (yield* Clock.currentTimeMillis) - started
    // the path without its query string: list filters may carry customer references
    yield* Effect.logDebug(`${request.method} ${request.url.split("?")[0]} ${response.status} ${ms} ms`)
    return response
  })
