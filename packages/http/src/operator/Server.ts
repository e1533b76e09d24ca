/**
 * The operator listener's server: every route of `OperatorApi`, and the console's page and files
 * (`Console.ts`), behind the same envelope middleware as the partner API (unknown routes 404 `not_found`, bodies over the limit 413,
 * defects 500), each request counted in the HTTP metrics, and the store's gauges sampled while it
 * runs. It serves no partner route, and the partner server serves none of these.
 *
 * The host provides its own `HttpServer` (`RATELOCK_OPERATOR_HOST`:`RATELOCK_OPERATOR_PORT`), the
 * store's repositories, `Digest` and `IdGenerator`, `Readiness`, and `OperatorInfo`.
 */
import type { AuditRepo, OperatorTokenRepo } from "@ratelock/core"
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import type { NetAddress } from "effect/net"
import { HttpApiBuilder } from "effect/http-api"
import { OperatorApi } from "../api/OperatorApi.ts"
import * as Metrics from "../Metrics.ts"
import * as RequestLog from "../server/RequestLog.ts"
import * as ResponseEnvelope from "../server/ResponseEnvelope.ts"
import * as SchemaErrors from "../server/SchemaErrors.ts"
import type { Platform } from "../server/Server.ts"
import * as AccessHandlers from "./AccessHandlers.ts"
import * as Authentication from "./Authentication.ts"
import * as Console from "./Console.ts"
import * as DeskHandlers from "./DeskHandlers.ts"
import * as FinanceHandlers from "./FinanceHandlers.ts"
import * as Handlers from "./Handlers.ts"
import * as MoneyHandlers from "./MoneyHandlers.ts"
import * as PartnersHandlers from "./PartnersHandlers.ts"

/** Where the operator listener listens, for the start-up lines and the demo banner. */
export class OperatorListener extends Context.Service<OperatorListener, { readonly url: string }>()(
  "@ratelock/http/OperatorListener"
) {}

/** `http://host:port`; `localhost` for a listener on every interface. */
export const urlOf = (address: NetAddress.SocketAddress): string =>
  HttpServer.formatAddress(address).replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, "http://localhost")

/** What the operator routes need from the host. */
export type Ports =
  | Handlers.Requirements
  | DeskHandlers.Requirements
  | MoneyHandlers.Requirements
  | FinanceHandlers.Requirements
  | PartnersHandlers.Requirements
  | AccessHandlers.Requirements
  | OperatorTokenRepo.OperatorTokenRepo
  | AuditRepo.AuditRepo

/** The routes on the `HttpRouter` (the API's and the console's), each noting its template for the request metrics. */
const layerRoutes = Layer.mergeAll(
  HttpApiBuilder.layer(OperatorApi).pipe(
    Layer.provide(
      Layer.mergeAll(
        Handlers.layer,
        DeskHandlers.layer,
        PartnersHandlers.layer,
        AccessHandlers.layer,
        MoneyHandlers.layer,
        FinanceHandlers.layer
      ).pipe(Layer.provide(Layer.merge(Authentication.layer, SchemaErrors.layer)))
    )
  ),
  // the console's files are read at start: without them the listener does not start
  Console.layer.pipe(Layer.orDie)
).pipe(Layer.provide(Metrics.routeTemplate))

/** The served routes and the gauges' sampler. */
const served = Layer.mergeAll(
  HttpRouter.serve(Layer.mergeAll(layerRoutes, ResponseEnvelope.layer), {
    disableLogger: true,
    // the host announces the listener itself (with the partner API's, and in the demo banner)
    disableListenLog: true,
    middleware: (app) => RequestLog.middleware(Metrics.measureRequests("operator")(app))
  }),
  Metrics.layerSampler
)

/**
 * The operator server, providing only where it listens. `HttpRouter.serve` hands on everything its
 * routes were built with (the router among them, and the memo map that built it); a server built
 * on top of that would add its routes to this router. Provided through `Layer.provide`, nothing of
 * it reaches the partner API's server, which builds a router of its own.
 */
export const layer: Layer.Layer<OperatorListener, never, Ports | Platform> = Layer.effect(
  OperatorListener,
  Effect.gen(function* () {
    return { url: urlOf((yield* HttpServer.HttpServer).address) }
  })
).pipe(Layer.provide(served))
