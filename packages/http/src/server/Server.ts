/**
 * The Partner API server: every route of `Api`, the OpenAPI document at `/openapi.json` and the
 * docs at `/docs`, behind the envelope middleware (body limit, unknown routes, defects), each
 * request counted in the HTTP metrics (`Metrics.ts`). No operator route is served here: those
 * are on the operator listener (`operator/Server.ts`).
 *
 * The host provides the `Ports`: the store's repositories, `ChainGateway` and the sandbox's
 * `SimulatedChain` (sandbox helpers, funds_in_route on the simulated chain), `MarketData`,
 * `IdGenerator`, `Digest` (see `layerCrypto`), `Readiness` (`Readiness.layerSql` on Postgres or
 * PGlite, `Readiness.layerAlways` on memory), and an `HttpServer` with its platform services
 * (`NodeHttpServer.layer` gives them all). The settings are references with defaults,
 * overridable with `Layer.succeed`: `BodyLimit`, `RateLimitConfig`, `ChainAvailability`, and
 * core's `QuotePolicy`; `RateLimitShares.layerSql` shares each key's budget with the other API
 * replicas on the same database (alone by default).
 */
import type { SimulatedChain } from "@ratelock/adapters-chain"
import type {
  ChainGateway,
  ContractRepo,
  CorridorLimitRepo,
  EventRepo,
  IdempotencyRepo,
  IdGenerator,
  MarketData,
  PartnerRepo,
  QuoteRepo,
  WebhookInboxRepo
} from "@ratelock/core"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { Effect, Layer } from "effect"
import type { FileSystem, Path } from "effect"
import { type Digest, type Mac, SecureRandom } from "effect/crypto"
import { type Etag, type HttpPlatform, HttpRouter, type HttpServer } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import type { SandboxOnly } from "../api/Sandbox.ts"
import type { PartnerAuth } from "../api/Security.ts"
import type { RequestValidation } from "../api/Validation.ts"
import * as Metrics from "../Metrics.ts"
import * as Authentication from "./Authentication.ts"
import * as ContractsHandlers from "./ContractsHandlers.ts"
import * as DocsPage from "./DocsPage.ts"
import * as OpenApiDocument from "./OpenApiDocument.ts"
import * as PartnersHandlers from "./PartnersHandlers.ts"
import * as QuotesHandlers from "./QuotesHandlers.ts"
import { RateLimiter } from "./RateLimiter.ts"
import * as RequestLog from "./RequestLog.ts"
import type { Readiness } from "./Readiness.ts"
import * as ResponseEnvelope from "./ResponseEnvelope.ts"
import * as SandboxHandlers from "./SandboxHandlers.ts"
import * as SandboxInboxHandlers from "./SandboxInboxHandlers.ts"
import * as SandboxOnlyLayer from "./SandboxOnly.ts"
import * as SchemaErrors from "./SchemaErrors.ts"
import * as SystemHandlers from "./SystemHandlers.ts"
import * as Tracing from "./Tracing.ts"
import * as WebhooksHandlers from "./WebhooksHandlers.ts"

/** What the host provides for the routes. */
export type Ports =
  | QuoteRepo.QuoteRepo
  | ContractRepo.ContractRepo
  | CorridorLimitRepo.CorridorLimitRepo
  | EventRepo.EventRepo
  | IdempotencyRepo.IdempotencyRepo
  | PartnerRepo.PartnerRepo
  | ChainGateway.ChainGateway
  | SimulatedChain.SimulatedChain
  | MarketData.MarketData
  | IdGenerator.IdGenerator
  | Digest.Digest
  | Mac.Mac
  | WebhookInboxRepo.WebhookInboxRepo
  | Readiness

/** What serving needs besides the ports: `NodeHttpServer.layer` provides all of it. */
export type Platform =
  | HttpServer.HttpServer
  | HttpPlatform.HttpPlatform
  | Etag.Generator
  | FileSystem.FileSystem
  | Path.Path

/** The middleware of the API definition: authentication (with the rate limit), 422 bodies, sandbox-only routes. */
export const layerMiddleware: Layer.Layer<
  PartnerAuth | RequestValidation | SandboxOnly,
  never,
  PartnerRepo.PartnerRepo | Digest.Digest
> = Layer.mergeAll(
  Authentication.layer.pipe(Layer.provide(RateLimiter.layer)),
  SchemaErrors.layer,
  SandboxOnlyLayer.layer
)

/** The routes on the `HttpRouter`, for hosts that serve them themselves. */
export const layerRoutes: Layer.Layer<
  never,
  never,
  | HttpRouter.HttpRouter
  | Exclude<Platform, HttpServer.HttpServer>
  | PartnerRepo.PartnerRepo
  | Digest.Digest
  | Readiness
  | HttpRouter.Request.From<"Requires", Ports>
> = Layer.mergeAll(HttpApiBuilder.layer(Api), OpenApiDocument.layer, DocsPage.layer).pipe(
  // each route notes its template for the request metrics
  Layer.provide(Metrics.routeTemplate),
  Layer.provide(
    Layer.mergeAll(
      PartnersHandlers.layer,
      QuotesHandlers.layer,
      ContractsHandlers.layer,
      WebhooksHandlers.layer,
      SandboxHandlers.layer,
      SandboxInboxHandlers.layer,
      SystemHandlers.layer
    ).pipe(Layer.provide(layerMiddleware))
  )
)

/**
 * The routes served on the `HttpServer`, with the envelope middleware around every request; each
 * request a span once a tracer is installed (`Tracing.ts`). `HttpRouter.serve` hands on what it
 * built its routes with (its router among them); provided through `Layer.provide`, none of it
 * reaches a server built beside this one (the operator listener's), which would otherwise add its
 * routes to this router.
 */
export const layer: Layer.Layer<never, never, Ports | Platform> = Layer.effectDiscard(Effect.void).pipe(
  Layer.provide(
    HttpRouter.serve(Layer.mergeAll(layerRoutes, ResponseEnvelope.layer), {
      // path parameters up to 256 characters (`customer_reference_id`) must reach validation, not 404
      routerConfig: { maxParamLength: 1024 },
      disableLogger: true,
      middleware: (app) => RequestLog.middleware(Metrics.measureRequests("partner")(app))
    }).pipe(Layer.provide(Tracing.layer))
  )
)

/**
 * The crypto the server needs (and `IdGenerator.layer` on top of it): SHA-256 and HMAC (the
 * sandbox inbox checks signatures) on `node:crypto`
 * (the same digests as Web Crypto, computed synchronously: `crypto.subtle.digest` sends each call
 * to Node's threadpool, the largest cost of authenticating a request), randomness on Web Crypto.
 */
export const layerCrypto: Layer.Layer<Digest.Digest | Mac.Mac | SecureRandom.SecureRandom> = Layer.mergeAll(
  NodeCrypto.layerDigest,
  NodeCrypto.layerMac,
  SecureRandom.layerWebCrypto
)
