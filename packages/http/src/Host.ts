/**
 * The running service as one layer: the database (migrated on start), the simulated chain for
 * the sandbox, market data, ids and crypto, the API on a Node HTTP server, and the start-up
 * announcement (listening URL, demo partner).
 *
 * Shutdown is the layer's release, in reverse order: the HTTP server stops accepting and waits
 * for in-flight requests (up to `RATELOCK_SHUTDOWN_GRACE_SECONDS`), then the database closes,
 * then the data-directory lock goes.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { PgMigrator } from "@effect/sql-pg"
import { MarketData, MarketSnapshotRepo, type Partners } from "@ratelock/core"
import { Config, Console, Duration, Effect, Layer, Option, References, Schema } from "effect"
import { HttpServer } from "effect/http"
import type { NetAddress } from "effect/net"
import { createServer } from "node:http"
import { hostname } from "node:os"
import * as Chains from "./Chains.ts"
import * as HostConfig from "./HostConfig.ts"
import { HostError } from "./HostError.ts"
import * as DemoPartner from "./DemoPartner.ts"
import * as RateLimitShares from "./server/RateLimitShares.ts"
import { Readiness } from "./server/Readiness.ts"
import * as Server from "./server/Server.ts"
import * as MarketFeed from "./MarketFeed.ts"
import * as Services from "./Services.ts"
import * as Store from "./Store.ts"
import * as Telemetry from "./Telemetry.ts"
import * as WebhookClient from "./WebhookClient.ts"
import * as Workers from "./Workers.ts"

export { HostError } from "./HostError.ts"

/**
 * Market data from the latest stored snapshot under the freshness rules. The latest is read again
 * at most once a second, so a snapshot imported by any process is in force everywhere within a
 * second, and a quote does not decode the document each time.
 */
const marketData = (settings: HostConfig.Settings) =>
  Layer.effect(
    MarketData.MarketData,
    Effect.gen(function* () {
      const repo = yield* MarketSnapshotRepo.MarketSnapshotRepo
      const latest = yield* Effect.cachedWithTTL(
        Effect.map(
          repo.latest(),
          Option.map((stored) => ({ id: stored.id, snapshot: stored.document }))
        ),
        Duration.seconds(1)
      )
      return MarketData.fromLatest({ latest, maxAge: settings.marketMaxAge })
    })
  )

/** Everything the handlers and programs need besides the database and the HTTP server. */
const services = (settings: HostConfig.Settings) =>
  Layer.mergeAll(
    Chains.layer(settings),
    marketData(settings),
    Services.layer,
    HostConfig.layer(settings),
    Readiness.layerSql
  )

/** The base URL to print: `localhost` when listening on every interface. */
export const baseUrl = (address: NetAddress.SocketAddress): string =>
  address._tag === "UnixPathAddress" ? HttpServer.formatAddress(address) : `http://localhost:${address.port}`

/** The demo partner's credentials when this start created it, then the ready line: the start-up is done. */
const announce = (settings: HostConfig.Settings) =>
  Effect.gen(function* () {
    const url = baseUrl((yield* HttpServer.HttpServer).address)
    if (settings.demoPartner && settings.sandbox) {
      const demo = yield* DemoPartner.ensure(url)
      if (Option.isSome(demo)) yield* Console.log(DemoPartner.banner(demo.value, url))
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

const cannotListen = (port: number, cause: unknown) =>
  new HostError({
    message: `cannot listen on port ${port}: ${cause instanceof Error ? cause.message : String(cause)} (set PORT to another port)`
  })

/** Why the service could not start. */
export type StartError = HostError | Store.ClientError | PgMigrator.MigrationError | Partners.Failure

/** This process's name on the work it claims and on its `api_replicas` row. */
const processName = () => `${hostname()}:${process.pid}`

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
      Layer.merge(
        Workers.layer({
          pollInterval: settings.workerPoll,
          concurrency: settings.workerConcurrency,
          owner: processName(),
          leaseFor: Option.getOrUndefined(lease)
        }),
        marketFeed(settings)
      )
    ).pipe(Effect.mapError(invalidConfiguration))
  ).pipe(
    Layer.provide(WebhookClient.layer),
    Layer.provide(services(settings)),
    Layer.provide(Store.layer(settings)),
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
      NodeHttpServer.layer(createServer, { port: settings.port, gracefulShutdownTimeout: settings.shutdownGrace })
    ),
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
