/**
 * How the API's requests are traced. Effect's HTTP server makes the span of each request
 * (`HttpMiddleware.tracer`: method, URL, status, client address, user agent, and the route
 * template as `http.route`; no header, no body) once a tracer is installed; this layer only sets
 * what it reads:
 *
 * - the span's name: the method and the route template (`POST /api/v1/fx/quotes`,
 *   `GET /api/v1/fx/quotes/:quote_id`), as OpenTelemetry names server spans, found by the same
 *   kind of router before routing (the span starts first); a path of no route is the method alone;
 * - every query value redacted in `url.full` and `url.query` (list filters carry customer
 *   references);
 * - no span for the probes (`/health`, `/ready`), which load balancers poll all day;
 * - no span at all while no exporting tracer is installed (telemetry off).
 *
 * Authentication adds the partner's id and environment to the span (`Authentication.ts`).
 */
import { Effect, Layer, Tracer } from "effect"
import { FindMyWay, HttpMiddleware, type HttpServerRequest, UrlParams } from "effect/http"
import { HttpApi } from "effect/http-api"
import { Api } from "../api/Api.ts"

const probes: ReadonlySet<string> = new Set(["/health", "/ready"])

/** The routes besides `Api`'s (`OpenApiDocument.ts`, `DocsPage.ts`): one missed is named by its method alone. */
const pages = ["/openapi.json", "/docs", "/favicon.svg", "/favicon.ico"] as const

/** `METHOD /template` of every route, by method and path (the router's settings: long parameters match). */
const templates = (() => {
  const router = FindMyWay.make<string>({ maxParamLength: 1024 })
  const add = (method: string, path: `/${string}`) => router.on(method, path, `${method} ${path}`)
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path as `/${string}`)
  })
  for (const path of pages) add("GET", path)
  return router
})()

/** The span name of a request: its method and route template, or its method when no route matches. */
export const spanName = (request: HttpServerRequest.HttpServerRequest): string =>
  templates.find(request.method, request.url)?.handler ?? request.method

const untraced = (request: HttpServerRequest.HttpServerRequest) => probes.has(request.url.split("?")[0]!)

/** Every request: with no exporting tracer installed a span would be Effect's built-in one, kept nowhere. */
const always = () => true

export const layer: Layer.Layer<never> = Layer.unwrap(
  Effect.gen(function* () {
    // telemetry off (no OTLP endpoint): no request span at all, so it costs nothing
    const exporting = (yield* Tracer.Tracer) !== Tracer.nativeTracer
    return Layer.mergeAll(
      Layer.succeed(HttpMiddleware.SpanNameGenerator, spanName),
      Layer.succeed(HttpMiddleware.TracerDisabledWhen, exporting ? untraced : always),
      // a pattern matching every name: no query value is kept in a span
      Layer.succeed(UrlParams.CurrentRedactedNames, [/(?:)/])
    )
  })
)
