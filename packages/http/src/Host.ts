/**
 * The running service as one layer: the database (migrated on start), the simulated chain for
 * the sandbox, market data, ids and crypto, the API on a Node HTTP server (`RATELOCK_HOST`:`PORT`),
 * the operator API on a second one (`RATELOCK_OPERATOR_HOST`:`RATELOCK_OPERATOR_PORT`), and the
 * start-up announcement (listening URLs, demo partner and operator token).
 *
 * Shutdown is the layer's release, in reverse order: the HTTP server stops accepting and waits
 * for in-flight requests (up to `RATELOCK_SHUTDOWN_GRACE_SECONDS`), then the operator listener
 * (metrics stay readable while the API drains), then the database closes, then the
 * data-directory lock goes.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { PgMigrator } from "@effect/sql-pg"
import { SimulatedHedgeVenue } from "@ratelock/adapters-store"
import { ManualHedgeVenue, type Partners, Revaluation } from "@ratelock/core"
import { Config, Console, Duration, Effect, Layer, Option, References, Schema } from "effect"
import { HttpServer } from "effect/http"
import type { NetAddress } from "effect/net"
import { createServer } from "node:http"
import * as Chains from "./Chains.ts"
import * as HostConfig from "./HostConfig.ts"
import { HostError } from "./HostError.ts"
import * as DemoPartner from "./DemoPartner.ts"
import * as OperatorInfo from "./operator/OperatorInfo.ts"
import * as OperatorServer from "./operator/Server.ts"
import * as RateLimitShares from "./server/RateLimitShares.ts"
import { Readiness } from "./server/Readiness.ts"
import * as Server from "./server/Server.ts"
import * as MarketFeed from "./MarketFeed.ts"
import * as MarketInForce from "./MarketInForce.ts"
import * as Services from "./Services.ts"
import * as Store from "./Store.ts"
import * as Telemetry from "./Telemetry.ts"
import * as WebhookClient from "./WebhookClient.ts"
import * as Workers from "./Workers.ts"

export { HostError } from "./HostError.ts"

/**
 * Where the hedging pass sends its orders (`RATELOCK_HEDGING`): no venue when `off`, so the pass
 * places nothing; the trader's desk (`manual`); or the simulated venue, its books in this
 * database. The pass also needs the book's delta (`BookDelta`), which the risk revaluation gives.
 */
const hedgeVenue = (settings: HostConfig.Settings) => {
  switch (settings.hedging) {
    case "off":
      return Layer.empty
    case "manual":
      return ManualHedgeVenue.layer
    case "simulated":
      return SimulatedHedgeVenue.layerSql({ spreadBps: settings.hedgeSpreadBps })
  }
}

/** Everything the handlers and programs need besides the database and the HTTP server. */
const services = (settings: HostConfig.Settings) =>
  Layer.mergeAll(
    Chains.layer(settings),
    hedgeVenue(settings),
    // the simulated venue's controls, whatever the mode: an operator may arm it before switching to it
    SimulatedHedgeVenue.layerSqlControl,
    // the hedger hedges the delta of the workers' latest revaluation, made this often
    Revaluation.bookDelta,
    Layer.succeed(Revaluation.Settings, { interval: settings.riskInterval }),
    Services.layer,
    HostConfig.layer(settings),
    Readiness.layerSql
  ).pipe(Layer.provideMerge(MarketInForce.layer({ maxAge: settings.marketMaxAge })))

/**
 * The base URL to print: `localhost` when listening on every interface, else the interface
 * `RATELOCK_HOST` bound (`localhost` might not reach it).
 */
export const baseUrl = (address: NetAddress.SocketAddress): string => OperatorServer.urlOf(address)

/** Where the operator API listens: logged by every process that runs it (the API's and the workers'). */
const announceOperator = Effect.gen(function* () {
  const { url } = yield* OperatorServer.OperatorListener
  yield* Effect.logInfo(
    `Operator API on ${url} (Authorization: Bearer <operator token>; /metrics, /operator/v1/status; console: ${url}/console)`
  )
  return url
})

/**
 * The operator listener's line, the demo partner's credentials and operator token when this
 * start created them, then the ready line: the start-up is done.
 */
const announce = (settings: HostConfig.Settings) =>
  Effect.gen(function* () {
    const url = baseUrl((yield* HttpServer.HttpServer).address)
    const operatorUrl = yield* announceOperator
    if (settings.demoPartner && settings.sandbox) {
      const demo = yield* DemoPartner.ensure(url)
      if (Option.isSome(demo)) yield* Console.log(DemoPartner.banner(demo.value, url, operatorUrl))
      else {
        const reminder = yield* DemoPartner.reminder()
        if (Option.isSome(reminder)) yield* Effect.logInfo(reminder.value)
      }
    }
    const production = settings.productionChains.length > 0 ? settings.productionChains.join(", ") : "off"
    yield* Effect.logInfo(
      `Ratelock ready on ${url} (${HostConfig.describeStore(settings)}; ` +
        `sandbox ${settings.sandbox ? "on, simulated chains" : "off"}; production ${production})`
    )
  })

const cannotListen = (port: number, cause: unknown, variable = "PORT") =>
  new HostError({
    message: `cannot listen on port ${port}: ${cause instanceof Error ? cause.message : String(cause)} (set ${variable} to another port)`
  })

/** Why the service could not start. */
export type StartError = HostError | Store.ClientError | PgMigrator.MigrationError | Partners.Failure

/** This process's name on the work it claims, its heartbeats and its `api_replicas` row. */
const processName = OperatorInfo.processName

/** The market feed, when `RATELOCK_MARKET_FEED_URL` names one: polled where the workers run. */
const marketFeed = (settings: HostConfig.Settings) =>
  Option.match(settings.marketFeedUrl, {
    onNone: () => Layer.empty,
    onSome: (url) => MarketFeed.layer({ url, interval: settings.marketFeedInterval })
  })

/** The lifecycle workers, unless `RATELOCK_WORKERS=false` (API-only replicas). */
const workers = (settings: HostConfig.Settings) =>
  settings.workers
    ? Layer.merge(
        Workers.layer({
          pollInterval: settings.workerPoll,
          concurrency: settings.workerConcurrency,
          owner: processName()
        }).pipe(Layer.provide(WebhookClient.layer)),
        marketFeed(settings)
      )
    : Layer.empty

/**
 * On PostgreSQL, API replicas share each key's budget (`RateLimitShares.layerSql`); the embedded
 * store has one process, which enforces the whole budget.
 */
const rateLimitShares = (settings: HostConfig.Settings) =>
  Option.isSome(settings.databaseUrl) ? RateLimitShares.layerSql(processName()) : Layer.empty

/**
 * The operator API on its own listener, in every process (`pnpm start` and `ratelock worker`):
 * each serves its own metrics. A port in use stops the start, naming the variable to change.
 */
const operatorListener = (settings: HostConfig.Settings, role: "api" | "worker") =>
  OperatorServer.layer.pipe(
    Layer.provide(
      NodeHttpServer.layer(createServer, {
        port: settings.operatorPort,
        host: settings.operatorHost,
        gracefulShutdownTimeout: settings.shutdownGrace
      })
    ),
    Layer.provide(
      Layer.succeed(OperatorInfo.OperatorInfo, {
        role,
        processName: processName(),
        startedAt: Date.now(),
        database: Option.isSome(settings.databaseUrl) ? "postgresql" : "embedded",
        marketMaxAge: settings.marketMaxAge,
        hedging: settings.hedging
      })
    ),
    Layer.catchTag("ServeError", (error) =>
      Layer.effect(
        OperatorServer.OperatorListener,
        Effect.fail(cannotListen(settings.operatorPort, error.cause, "RATELOCK_OPERATOR_PORT"))
      )
    )
  )

/**
 * `RATELOCK_WORKER_LEASE_MS`: how long a worker's claim lasts before another worker may take the
 * job over (default one minute). Read here, not in `HostConfig.ts`, for the worker command only.
 */
const workerLease = Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), "RATELOCK_WORKER_LEASE_MS").pipe(
  Config.map(Duration.millis),
  Config.option
)

const invalidConfiguration = (error: Config.ConfigError) =>
  new HostError({ message: `Invalid configuration: ${String(error)}` })

/**
 * The lifecycle workers alone (`pnpm ratelock worker`), for deployments that scale API replicas
 * (`RATELOCK_WORKERS=false`) and workers separately on one PostgreSQL; exporting their traces,
 * metrics and logs when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (`Telemetry.ts`).
 */
export const workersOnly = (settings: HostConfig.Settings): Layer.Layer<never, StartError> =>
  Layer.unwrap(
    Effect.map(workerLease, (lease) =>
      Layer.mergeAll(
        Workers.layer({
          pollInterval: settings.workerPoll,
          concurrency: settings.workerConcurrency,
          owner: processName(),
          leaseFor: Option.getOrUndefined(lease)
        }),
        marketFeed(settings),
        Layer.effectDiscard(announceOperator)
      )
    ).pipe(Effect.mapError(invalidConfiguration))
  ).pipe(
    Layer.provide(WebhookClient.layer),
    Layer.provide(operatorListener(settings, "worker")),
    Layer.provide(services(settings)),
    Layer.provide(Store.layer(settings)),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, settings.logLevel)),
    Layer.provide(
      Layer.catchTag(Telemetry.layerConfig, "ConfigError", (error) =>
        Layer.effectDiscard(Effect.fail(invalidConfiguration(error)))
      )
    )
  )

export const layer = (settings: HostConfig.Settings): Layer.Layer<never, StartError> =>
  Layer.effectDiscard(announce(settings)).pipe(
    Layer.provideMerge(Server.layer),
    Layer.provideMerge(workers(settings)),
    Layer.provide(
      NodeHttpServer.layer(createServer, {
        port: settings.port,
        // unset: Node's default, every interface
        host: Option.getOrUndefined(settings.host),
        gracefulShutdownTimeout: settings.shutdownGrace
      })
    ),
    // built before the API's server, closed after it
    Layer.provide(operatorListener(settings, "api")),
    Layer.provide(rateLimitShares(settings)),
    Layer.provide(services(settings)),
    Layer.provide(Store.layer(settings)),
    // the log level for the start's own steps too (the store's included), not only the API's
    Layer.provide(Layer.succeed(References.MinimumLogLevel, settings.logLevel)),
    Layer.catchTag("ServeError", (error) => Layer.effectDiscard(Effect.fail(cannotListen(settings.port, error.cause))))
  )

/**
 * `layer` with the settings read from the environment, exporting its traces, metrics and logs
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (`Telemetry.ts`): the exporters are the last to close,
 * so they send what the service's shutdown recorded.
 */
export const layerConfig: Layer.Layer<never, StartError | Config.ConfigError> = Layer.unwrap(
  Effect.map(HostConfig.settings, layer)
).pipe(Layer.provide(Telemetry.layerConfig))
