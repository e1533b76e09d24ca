/**
 * The Partner API as an application layer, for hosts that serve it without a socket (the
 * testkit serves it in process): the routes and the envelope middleware of `Server.layer`, with
 * the same router settings. `toHttpEffect` builds them into one request handler
 * (`HttpRouter.toHttpEffect`); `HttpEffect.toWebHandlerWith` turns that into a `fetch` handler.
 */
import type { PartnerRepo } from "@ratelock/core"
import { Effect, Layer, type Scope } from "effect"
import type { Digest } from "effect/crypto"
import {
  HttpRouter,
  type HttpServer,
  type HttpServerError,
  type HttpServerRequest,
  type HttpServerResponse
} from "effect/http"
import type { Readiness } from "./Readiness.ts"
import * as ResponseEnvelope from "./ResponseEnvelope.ts"
import * as Server from "./Server.ts"

/** The router settings of `Server.layer`: path parameters up to 256 characters reach validation. */
export const routerConfig = { maxParamLength: 1024 } as const

/** Every route of the API and the envelope middleware around every request. */
export const layer: Layer.Layer<never, never, Layer.Services<typeof Server.layerRoutes>> = Layer.mergeAll(
  Server.layerRoutes,
  ResponseEnvelope.layer
)

/** What building the app needs: the platform services (`HttpServer.layerServices`) and what authentication reads. */
export type BuildRequirements =
  | Exclude<Server.Platform, HttpServer.HttpServer>
  | PartnerRepo.PartnerRepo
  | Digest.Digest
  | Readiness
  | Scope.Scope

/** One request: the current `HttpServerRequest` answered, on the host's ports. */
export type Handler = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  HttpServerError.HttpServerError,
  Scope.Scope | HttpServerRequest.HttpServerRequest | Server.Ports
>

/** The app as one handler of the current `HttpServerRequest`, built in the current `Scope`. */
export const toHttpEffect: Effect.Effect<Handler, never, BuildRequirements> = HttpRouter.toHttpEffect(layer).pipe(
  Effect.provideService(HttpRouter.RouterConfig, routerConfig)
)
