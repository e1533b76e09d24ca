/**
 * `GET /docs`, the API reference (Scalar, bundled with Effect and served inline) as a partner's
 * engineer should find it: the three credential headers selected together, with
 * `X-Partner-Environment: sandbox` filled in, so a "Test request" needs only the key; system fonts
 * instead of Scalar's web fonts, so the page asks nothing of any other host; and a favicon.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApiScalar } from "effect/http-api"
import { Api } from "../api/Api.ts"

/** A small mark: the letters "RL" on our green. */
const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0f766e"/><text x="16" y="22" font-family="system-ui,sans-serif" font-size="15" font-weight="700" text-anchor="middle" fill="#fff">RL</text></svg>`

/** Settings Scalar reads that Effect's type does not list yet (`securitySchemes` prefills values). */
const authentication = {
  preferredSecurityScheme: [["partnerKeyId", "partnerKeySecret", "partnerEnvironment"]],
  securitySchemes: { partnerEnvironment: { value: "sandbox" } }
}

const icon = Effect.succeed(
  HttpServerResponse.text(favicon, {
    contentType: "image/svg+xml",
    headers: { "cache-control": "public, max-age=86400" }
  })
)

export const layer: Layer.Layer<never, never, HttpRouter.HttpRouter> = Layer.mergeAll(
  HttpApiScalar.layer(Api, {
    path: "/docs",
    scalar: { withDefaultFonts: false, favicon: "/favicon.svg", authentication }
  }),
  HttpRouter.add("GET", "/favicon.svg", icon),
  // browsers ask for /favicon.ico on their own; they take an SVG answer by its content type
  HttpRouter.add("GET", "/favicon.ico", icon)
)
