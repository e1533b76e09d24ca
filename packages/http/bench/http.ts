/**
 * HTTP benchmark: the Partner API server against a bare `node:http` server, with autocannon, in
 * one run:
 *
 * - bare: `node:http` answering every request with a fixed JSON body (the reference);
 * - Ratelock (`Server.layer` on `NodeHttpServer`, request logs off, the rate limiter running with
 *   a budget it never exhausts) on the embedded store (PGlite in memory) and on PostgreSQL
 *   (`DATABASE_URL`, in a fresh database `ratelock_bench_http_<random>` dropped afterwards, pool
 *   10 as the host's default): `GET /api/v1/partners/me` and `POST /api/v1/fx/quotes` (a valid
 *   body, fresh `market_rate_timestamp`, no Idempotency-Key: every request prices and stores a
 *   quote), with a partner's sandbox key seeded through `PartnerRepo`; and `GET /health` (no
 *   credentials, no database), the floor the HTTP stack itself sets.
 *
 * - the shared rate limit: `partners/me` on PostgreSQL on two servers over one fresh database, one
 *   with each process's own limiter (as above), one with `RateLimitShares.layerSql` (heartbeats
 *   into `api_replicas`, with a second live replica row so each request's share is computed from
 *   two replicas' demand), measured in turn three times (per-process, shared, …): the
 *   ratio of the shared limiter's requests/s to the per-process one's, from the same run.
 *
 * - telemetry: `partners/me` and `quotes` on PostgreSQL from three servers over one fresh
 *   database, each with the operator listener beside it as the host runs it: one with
 *   OpenTelemetry on as `OTEL_EXPORTER_OTLP_ENDPOINT` turns it on (`Telemetry.layer`: every
 *   request traced; spans, metrics and logs exported over OTLP/HTTP JSON, metrics every second
 *   instead of every minute) to a local receiver in a worker thread, which also scrapes its
 *   `/metrics` every second while it is measured; one the same with 10 % of traces sampled
 *   (`OTEL_TRACES_SAMPLER=parentbased_traceidratio`); one with neither (the request metrics are
 *   recorded in every configuration, as the service always does), measured in turn three times:
 *   the ratio of traced to untraced requests/s and main-thread CPU per request, from the same
 *   run, the spans, metric exports and scrapes the receivers got, and the README's table.
 *
 * - operator writes: `PUT /operator/v1/limits/...` with its audit record against the same route's
 *   read and against the same write without the record's insert, on PostgreSQL, in turn three
 *   times: what the audit record costs a write.
 *
 * Each route: 10 connections, a warm-up, then the measured run; requests/s, p50 and p99 latency,
 * non-2xx answers (must be 0) and the ratio to the bare server. The servers run on this process's
 * main thread, autocannon in a worker thread. The load average is printed at the start and the end.
 *
 * Run: `pnpm bench:http` (= `node --conditions=source bench/http.ts` in packages/http, Node ≥ 24).
 * `DATABASE_URL` defaults to `postgres://postgres@127.0.0.1:5432/test`. `BENCH_SECONDS` (default
 * 10) and `BENCH_WARMUP_SECONDS` (default 2) change the durations; `BENCH_ONLY=embedded`,
 * `BENCH_ONLY=postgres`, `BENCH_ONLY=shared`, `BENCH_ONLY=telemetry` or `BENCH_ONLY=operator` runs one part (with the bare reference),
 * `BENCH_ROUTE=health`, `me` or `quotes` one route, e.g. under `--cpu-prof`.
 */
import { NodeHttpServer } from "@effect/platform-node"
import type { PgClient } from "@effect/sql-pg"
import { SimulatedChain } from "@ratelock/adapters-chain"
import { EmbeddedStore, PgStore } from "@ratelock/adapters-store"
import {
  ApiKeySecret,
  AuditRepo,
  Corridor,
  IdGenerator,
  MarketData,
  OperatorTokens,
  PartnerRepo,
  Requests
} from "@ratelock/core"
import * as Postgres from "@ratelock/test-support/Postgres"
import autocannon from "autocannon"
import { Cause, DateTime, Duration, Effect, Exit, Layer, References, type Scope } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { createServer, type Server as NodeServer } from "node:http"
import type { AddressInfo } from "node:net"
import { cpus, loadavg } from "node:os"
import { Worker } from "node:worker_threads"
import { OperatorInfo } from "../src/operator/OperatorInfo.ts"
import * as OperatorServer from "../src/operator/Server.ts"
import * as WebhookUrl from "../src/WebhookUrl.ts"
import { RateLimitConfig } from "../src/server/RateLimiter.ts"
import * as RateLimitShares from "../src/server/RateLimitShares.ts"
import { Readiness } from "../src/server/Readiness.ts"
import * as Server from "../src/server/Server.ts"
import * as Telemetry from "../src/Telemetry.ts"

const databaseUrl = Postgres.benchDatabaseUrl
const poolSize = 10
const connections = 10
const measureSeconds = Number(process.env.BENCH_SECONDS ?? 10)
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)
const only = process.env.BENCH_ONLY
const onlyRoute = process.env.BENCH_ROUTE
const targets = {
  meRatio: 0.6,
  quotesPostgres: 1_500,
  sharedLimitRatio: 0.95,
  tracingRatio: 0.9,
  auditCost: 0.1
} as const

// ---------------------------------------------------------------------------------------------
// Load

interface Call {
  readonly method: "GET" | "POST" | "PUT"
  readonly path: string
  /** Paths taken in turn by each connection instead of `path` alone. */
  readonly paths?: ReadonlyArray<string>
  readonly headers?: Record<string, string>
  readonly body?: string
}

interface Row {
  readonly server: string
  readonly route: string
  readonly perSecond: number
  readonly p50: number
  readonly p99: number
  readonly requests: number
  readonly non2xx: number
  readonly errors: number
  /** This process's main thread (the server's) CPU time per request, in microseconds. */
  readonly cpuMicros: number
}

const fire = (baseUrl: string, call: Call, seconds: number) =>
  Effect.promise(() =>
    autocannon({
      url: `${baseUrl}${call.path}`,
      method: call.method,
      ...(call.headers === undefined ? {} : { headers: call.headers }),
      ...(call.body === undefined ? {} : { body: call.body }),
      ...(call.paths === undefined ? {} : { requests: call.paths.map((path) => ({ path })) }),
      connections,
      duration: seconds,
      // the load in its own thread: the server has this process's main thread to itself
      workers: 1
    })
  )

const int = (n: number) => Math.round(n).toLocaleString("en-US")
/** autocannon's latency histogram counts whole milliseconds: 0 is under 1 ms. */
const ms = (n: number) => (n < 1 ? "<1 ms" : `${int(n)} ms`)

/**
 * Warm-up (unless `warm` is false), then the measured run of `call` against `baseUrl`, with the
 * main thread's CPU time over it: the servers run on it, autocannon in a worker thread.
 */
const measure = (server: string, route: string, baseUrl: string, call: () => Call, warm = true) =>
  Effect.gen(function* () {
    if (warm) yield* fire(baseUrl, call(), warmupSeconds)
    const cpuBefore = process.threadCpuUsage()
    const r = yield* fire(baseUrl, call(), measureSeconds)
    const cpu = process.threadCpuUsage(cpuBefore)
    const row: Row = {
      server,
      route,
      perSecond: r.requests.total / r.duration,
      p50: r.latency.p50,
      p99: r.latency.p99,
      requests: r.requests.total,
      non2xx: r.non2xx,
      errors: r.errors,
      cpuMicros: (cpu.user + cpu.system) / Math.max(1, r.requests.total)
    }
    console.log(
      `  · ${route}: ${int(row.perSecond)} req/s, p50 ${ms(row.p50)}, p99 ${ms(row.p99)}, ` +
        `${int(row.requests)} requests, non-2xx ${row.non2xx}, errors ${row.errors}, ` +
        `main-thread CPU ${int(row.cpuMicros)} µs/request`
    )
    return row
  })

// ---------------------------------------------------------------------------------------------
// Servers

const fixedBody = JSON.stringify({
  partner_id: "01a200b4-cf2f-757d-82b4-4d7ec8ddf3a7",
  partner_name: "Bench Pay",
  api_key_id: "01a200b4-cf2f-757d-82b4-4d7ec8ddf3a8",
  environment: "sandbox"
})

/** `node:http` answering every request with `fixedBody`, closed with the scope. */
const bare: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<NodeServer>((resolve) => {
        const server = createServer((_request, response) => {
          response.writeHead(200, {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(fixedBody)
          })
          response.end(fixedBody)
        })
        server.listen(0, "127.0.0.1", () => resolve(server))
      })
  ),
  (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

type Store = Layer.Layer<PgStore.Repos | PgClient.PgClient | SqlClient.SqlClient, unknown>

/**
 * The operator listener on a port of its own, as the host runs it beside the API in every process
 * (`/metrics` among its routes, the store's gauges sampled every 15 s).
 */
const operatorListener = OperatorServer.layer.pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
  Layer.provide(
    Layer.succeed(OperatorInfo, {
      role: "api",
      processName: "bench-http",
      startedAt: Date.now(),
      database: "postgresql",
      marketMaxAge: Duration.minutes(15),
      hedging: "off"
    })
  )
)

/**
 * `Server.layer` on `store`, as the host composes it; request logs off, a budget never exhausted,
 * shared with the other replicas on the database when `shared` (as the host does on PostgreSQL),
 * exporting its telemetry when `telemetry` is given, the operator listener beside it when `operator`.
 */
const ratelock = (store: Store, shared = false, telemetry?: Telemetry.Settings, operator = false) => {
  const ports = Layer.mergeAll(
    Readiness.layerSql.pipe(Layer.provideMerge(store)),
    SimulatedChain.layer,
    MarketData.MarketData.layerDefaults,
    IdGenerator.IdGenerator.layer.pipe(Layer.provideMerge(Server.layerCrypto)),
    // the webhook URL rules, as the host has them (the operator's partner routes check URLs)
    WebhookUrl.layer
  )
  const settings = Layer.mergeAll(
    Layer.succeed(RateLimitConfig, { ratePerSecond: 1e9, burst: 1e9 }),
    Layer.succeed(References.MinimumLogLevel, "Error")
  )
  return Server.layer.pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    // without the listener, its service says so (one layer type for both)
    Layer.provideMerge(
      operator ? operatorListener : Layer.succeed(OperatorServer.OperatorListener, { url: "(no operator listener)" })
    ),
    Layer.provide(shared ? RateLimitShares.layerSql("bench-shared") : Layer.empty),
    Layer.provideMerge(ports),
    Layer.provide(settings),
    Layer.provide(telemetry === undefined ? Layer.empty : Telemetry.layer(telemetry))
  )
}

/** A partner with a sandbox key, through the store's `PartnerRepo`. */
const seedPartner = Effect.gen(function* () {
  const partners = yield* PartnerRepo.PartnerRepo
  const ids = yield* IdGenerator.IdGenerator
  const now = yield* DateTime.now
  const partnerId = yield* ids.uuid
  yield* partners.insertPartner({ id: partnerId, name: "Bench Pay", createdAt: now })
  const keyId = yield* ids.uuid
  const secret = yield* ApiKeySecret.newSecret
  yield* partners.insertApiKey({
    id: keyId,
    partnerId,
    environment: "sandbox",
    secretHash: yield* ApiKeySecret.hashSecret(secret),
    createdAt: now,
    revokedAt: null
  })
  return {
    "x-partner-key-id": keyId,
    "x-partner-key-secret": secret,
    "x-partner-environment": "sandbox"
  }
})

/** A valid quote request at the current time (a 30-day option on 10,000 USD, USD_TO_BRL), starting in an hour. */
const quoteBody = () =>
  JSON.stringify(
    Requests.quoteAt(DateTime.nowUnsafe(), { customer_reference_id: "bench-customer" }, { startsIn: "1 hour" })
  )

/**
 * The routes on one running server (`name` says which store): `GET /health` (no credentials, no
 * database: the cost of the HTTP stack itself), `GET /api/v1/partners/me`, `POST /api/v1/fx/quotes`.
 */
const routes = (name: string, store: Store) =>
  Effect.scoped(
    Effect.gen(function* () {
      const context = yield* Layer.build(ratelock(store))
      const where = yield* Effect.provide(
        Effect.map(HttpServer.HttpServer, (s) => s.address),
        context
      )
      const baseUrl = `http://127.0.0.1:${where._tag === "UnixPathAddress" ? 0 : where.port}`
      const credentials = yield* Effect.provide(seedPartner, context)
      const sql = yield* Effect.provide(SqlClient.SqlClient, context)
      const version = (yield* sql<{ v: string }>`SELECT current_setting('server_version') AS v`)[0]?.v.split(" ")[0]
      console.log(`\n━━ Ratelock on ${name} (Postgres ${version}) at ${baseUrl} ━━`)
      const calls: ReadonlyArray<readonly [key: string, route: string, call: () => Call]> = [
        ["health", "GET /health", () => ({ method: "GET", path: "/health" })],
        ["me", "GET /api/v1/partners/me", () => ({ method: "GET", path: "/api/v1/partners/me", headers: credentials })],
        [
          "quotes",
          "POST /api/v1/fx/quotes",
          () => ({
            method: "POST",
            path: "/api/v1/fx/quotes",
            headers: { ...credentials, "content-type": "application/json" },
            body: quoteBody()
          })
        ]
      ]
      const rows: Array<Row> = []
      for (const [key, route, call] of calls) {
        if (onlyRoute === undefined || onlyRoute === key) rows.push(yield* measure(name, route, baseUrl, call))
      }
      const stored = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM quotes`
      console.log(`  · quotes stored: ${int(stored[0]?.n ?? 0)}`)
      // requests autocannon left in flight finish before the server closes
      yield* Effect.sleep("1 second")
      return rows
    })
  )

/** Creates `ratelock_bench_http_<random>` on the server of `url`; dropped when the scope closes. */
const freshDatabase = (url: string) => Postgres.fresh(url, { prefix: "ratelock_bench_http", report: true })

const postgres = Effect.scoped(
  Effect.gen(function* () {
    const db = yield* freshDatabase(databaseUrl)
    const client = Postgres.client(db.url, poolSize)
    return yield* routes(
      `PostgreSQL (database ${db.name} on ${new URL(databaseUrl).host}, pool ${poolSize})`,
      PgStore.layer.pipe(Layer.provideMerge(client))
    )
  })
)

const embedded = routes("the embedded store (PGlite in memory)", EmbeddedStore.layer({}))

/** A running server's base URL. */
const baseUrlOf = Effect.map(HttpServer.HttpServer, (s) =>
  s.address._tag === "UnixPathAddress" ? "" : `http://127.0.0.1:${s.address.port}`
)

/**
 * `partners/me` with each process's own limiter and with the shared one, on two servers over one
 * database, in turn three times; the second replica the shared one counts is a row that stays live.
 */
const sharedLimit = Effect.scoped(
  Effect.gen(function* () {
    const db = yield* freshDatabase(databaseUrl)
    const store = () => PgStore.layer.pipe(Layer.provideMerge(Postgres.client(db.url, poolSize)))
    const perProcess = yield* Layer.build(ratelock(store()))
    const shared = yield* Layer.build(ratelock(store(), true))
    const credentials = yield* Effect.provide(seedPartner, perProcess)
    const sql = yield* Effect.provide(SqlClient.SqlClient, perProcess)
    yield* sql`INSERT INTO api_replicas (id, expires_at, replicas, demand)
      VALUES ('bench-other', now() + interval '1 day', 2, ${JSON.stringify({ [credentials["x-partner-key-id"]]: 1 })}::jsonb)`
    const servers = [
      ["partners/me per-process", yield* Effect.provide(baseUrlOf, perProcess)],
      ["partners/me shared", yield* Effect.provide(baseUrlOf, shared)]
    ] as const
    console.log(`\n━━ Shared rate limit on PostgreSQL (database ${db.name}): per-process and shared limiter in turn ━━`)
    const rows: Array<Row> = []
    const call = () => ({ method: "GET", path: "/api/v1/partners/me", headers: credentials }) as const
    // both warmed up before either is measured: the first measured run is not the colder one
    for (const [, baseUrl] of servers) yield* fire(baseUrl, call(), warmupSeconds)
    for (const round of [1, 2, 3]) {
      for (const [route, baseUrl] of servers) {
        rows.push(yield* measure("PostgreSQL", `GET ${route} (${round})`, baseUrl, call, false))
      }
    }
    yield* Effect.sleep("1 second")
    return rows
  })
)

/**
 * An operator's write and its audit record: `PUT /operator/v1/limits/:environment/:corridor` (a
 * corridor limit set through `OperatorActions.setLimits`, its audit record inserted in the same
 * transaction; every corridor of both environments in turn) against the same route's read (`GET /operator/v1/limits`), and against the same
 * write on a second listener over the same database whose audit insert is left out (the store's
 * `AuditRepo.append` a no-op): the record's cost is 1 - audited / unaudited requests/s. Each in
 * turn, three times, on PostgreSQL and on the embedded store.
 */
const operatorWrites = (name: string, store: () => Store) =>
  Effect.scoped(
    Effect.gen(function* () {
      const audited = yield* Layer.build(ratelock(store(), false, undefined, true))
      const noAudit = Layer.succeed(AuditRepo.AuditRepo, {
        append: () => Effect.void,
        list: () => Effect.succeed([])
      })
      const unaudited = yield* Layer.build(
        ratelock(Layer.merge(store(), noAudit) as unknown as Store, false, undefined, true)
      )
      const token = yield* Effect.provide(
        Effect.orDie(OperatorTokens.create({ name: "bench", role: "admin" })),
        audited
      )
      const urlOf = (context: typeof audited) =>
        Effect.map(Effect.provide(OperatorServer.OperatorListener, context), (l) => l.url)
      const auditedUrl = yield* urlOf(audited)
      const unauditedUrl = yield* urlOf(unaudited)
      const headers = { authorization: `Bearer ${token.token}`, "content-type": "application/json" }
      let limit = 1_000_000
      // every corridor of both environments in turn: a corridor's row is locked while its change
      // commits, so writes to one corridor alone would measure waiting for that lock
      const corridorPaths = ["sandbox", "production"].flatMap((environment) =>
        Corridor.directions.map((direction) => `/operator/v1/limits/${environment}/${direction}`)
      )
      const write = (): Call => ({
        method: "PUT",
        path: corridorPaths[0]!,
        paths: corridorPaths,
        headers,
        // a new value for each run: its requests all write it again, each with its record
        body: JSON.stringify({ max_lock_notional: String(limit++) })
      })
      const read = (): Call => ({ method: "GET", path: "/operator/v1/limits?environment=production", headers })
      const runs = [
        ["GET /operator/v1/limits", auditedUrl, read],
        ["PUT limits audited", auditedUrl, write],
        ["PUT limits unaudited", unauditedUrl, write]
      ] as const
      console.log(
        `\n━━ Operator writes on ${name}: a read, the audited write, the write without its record, in turn ━━`
      )
      for (const [, url, call] of runs) yield* fire(url, call(), warmupSeconds)
      const rows: Array<Row> = []
      for (const round of [1, 2, 3]) {
        for (const [route, url, call] of runs) {
          rows.push(yield* measure(name, `${route} (${round})`, url, call, false))
        }
      }
      const sql = yield* Effect.provide(SqlClient.SqlClient, audited)
      const records = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM operator_audit`
      console.log(`  · audit records written: ${int(records[0]?.n ?? 0)}`)
      yield* Effect.sleep("1 second")
      return rows
    })
  )

const operatorOnPostgres = Effect.scoped(
  Effect.gen(function* () {
    const db = yield* freshDatabase(databaseUrl)
    return yield* operatorWrites(`PostgreSQL (database ${db.name}, pool ${poolSize})`, () =>
      PgStore.layer.pipe(Layer.provideMerge(Postgres.client(db.url, poolSize)))
    )
  })
)

interface ReceiverStats {
  readonly bytes: number
  readonly spans: number
  /** OTLP metric and log exports received. */
  readonly metricExports: number
  readonly logExports: number
  /** `/metrics` scrapes answered 200 with the request counter in them, and the others. */
  readonly scrapes: number
  readonly scrapeFailures: number
}

/**
 * An OTLP/HTTP receiver in a worker thread (a collector's work is not this process's main thread's):
 * it answers 200 and counts the bytes, the spans (`"spanId":"` in each body) and the metric and
 * log exports it got. It also plays Prometheus, from the same thread: `scrape` GETs an operator
 * listener's `/metrics` every second until `stop`.
 */
const otlpReceiver: Effect.Effect<
  {
    readonly url: string
    readonly stats: Effect.Effect<ReceiverStats>
    readonly scrape: (url: string, token: string) => Effect.Effect<void>
    readonly stop: Effect.Effect<void>
  },
  never,
  Scope.Scope
> = Effect.acquireRelease(
  Effect.promise(() => {
    const worker = new Worker(
      `const { parentPort } = require("node:worker_threads")
      const { createServer } = require("node:http")
      const stats = { bytes: 0, spans: 0, metricExports: 0, logExports: 0, scrapes: 0, scrapeFailures: 0 }
      const server = createServer((req, res) => {
        const chunks = []
        req.on("data", (c) => chunks.push(c))
        req.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8")
          stats.bytes += body.length
          if (req.url === "/v1/traces") stats.spans += body.split('"spanId":"').length - 1
          if (req.url === "/v1/metrics") stats.metricExports++
          if (req.url === "/v1/logs") stats.logExports++
          res.writeHead(200, { "content-type": "application/json" })
          res.end("{}")
        })
      })
      let scraper
      const scrape = (url, token) =>
        fetch(url + "/metrics", { headers: { authorization: "Bearer " + token } })
          .then(async (r) => { (r.ok && (await r.text()).includes("ratelock_http_requests_total")) ? stats.scrapes++ : stats.scrapeFailures++ })
          .catch(() => { stats.scrapeFailures++ })
      server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }))
      parentPort.on("message", (m) => {
        if (m.type === "scrape") scraper = setInterval(() => scrape(m.url, m.token), 1000)
        if (m.type === "stop") clearInterval(scraper)
        if (m.type === "stats" || m.type === "stop") parentPort.postMessage(stats)
      })`,
      { eval: true }
    )
    return new Promise<{ worker: Worker; port: number }>((resolve) =>
      worker.once("message", (m: { port: number }) => resolve({ worker, port: m.port }))
    )
  }),
  ({ worker }) => Effect.promise(() => worker.terminate())
).pipe(
  Effect.map(({ worker, port }) => {
    /** Sends `message`, and waits for the stats the worker answers with. */
    const ask = (message: object) =>
      Effect.promise(
        () =>
          new Promise<ReceiverStats>((resolve) => {
            worker.once("message", resolve)
            worker.postMessage(message)
          })
      )
    return {
      url: `http://127.0.0.1:${port}`,
      stats: ask({ type: "stats" }),
      scrape: (url: string, token: string) => Effect.sync(() => worker.postMessage({ type: "scrape", url, token })),
      stop: Effect.asVoid(ask({ type: "stop" }))
    }
  })
)

/** What `OTEL_EXPORTER_OTLP_ENDPOINT=<url>` alone turns on (every trace kept unless `ratio`), metrics sent every second. */
const telemetryTo = (url: string, ratio?: number): Telemetry.Settings => ({
  endpoints: { traces: `${url}/v1/traces`, metrics: `${url}/v1/metrics`, logs: `${url}/v1/logs` },
  protocol: "http/json",
  headers: { traces: {}, metrics: {}, logs: {} },
  compression: "none",
  serviceName: "ratelock-bench",
  serviceVersion: "bench",
  tracesInterval: Duration.seconds(5),
  logsInterval: Duration.seconds(1),
  metricsInterval: Duration.seconds(1),
  maxBatchSize: 512,
  sampler:
    ratio === undefined ? { name: "parentbased_always_on", ratio: 1 } : { name: "parentbased_traceidratio", ratio }
})

/** The fraction of traces the sampled server keeps (`OTEL_TRACES_SAMPLER=parentbased_traceidratio`). */
const sampledRatio = 0.1

/** What each telemetry-on server's receiver got over a route's rounds, for the summary. */
const exported = new Map<
  string,
  { readonly spansPerRequest: number; readonly metricExports: number; readonly scrapes: number }
>()

/**
 * `partners/me` and `quotes` with telemetry off, on, and on with 10 % of traces sampled: three
 * servers over one database, each with the operator listener beside it as in production, measured
 * in turn three times per route. The two on each export to a receiver of their own, and while one
 * is measured its receiver's thread scrapes its `/metrics` every second, as Prometheus would
 * (more often than the usual 15 s); nothing scrapes the server that is off.
 */
const telemetry = Effect.scoped(
  Effect.gen(function* () {
    const db = yield* freshDatabase(databaseUrl)
    const store = () => PgStore.layer.pipe(Layer.provideMerge(Postgres.client(db.url, poolSize)))
    const all = yield* otlpReceiver
    const tenth = yield* otlpReceiver
    const off = yield* Layer.build(ratelock(store(), false, undefined, true))
    const on = yield* Layer.build(ratelock(store(), false, telemetryTo(all.url), true))
    const sampled = yield* Layer.build(ratelock(store(), false, telemetryTo(tenth.url, sampledRatio), true))
    const credentials = yield* Effect.provide(seedPartner, off)
    const operatorToken = (yield* Effect.provide(
      Effect.orDie(OperatorTokens.create({ name: "bench", role: "admin" })),
      off
    )).token
    const operatorUrl = Effect.map(OperatorServer.OperatorListener, (listener) => listener.url)
    const servers = [
      ["off", yield* Effect.provide(baseUrlOf, off), undefined],
      ["on", yield* Effect.provide(baseUrlOf, on), { receiver: all, operator: yield* Effect.provide(operatorUrl, on) }],
      [
        "sampled",
        yield* Effect.provide(baseUrlOf, sampled),
        { receiver: tenth, operator: yield* Effect.provide(operatorUrl, sampled) }
      ]
    ] as const
    console.log(
      `\n━━ Telemetry on PostgreSQL (database ${db.name}): off, on (OTLP/HTTP JSON to a local receiver, ` +
        `metrics pushed every second, /metrics scraped every second), on with ${sampledRatio * 100} % of traces sampled, in turn ━━`
    )
    const calls = [
      ["me", () => ({ method: "GET", path: "/api/v1/partners/me", headers: credentials }) as Call],
      [
        "quotes",
        () =>
          ({
            method: "POST",
            path: "/api/v1/fx/quotes",
            headers: { ...credentials, "content-type": "application/json" },
            body: quoteBody()
          }) as Call
      ]
    ] as const
    const rows: Array<Row> = []
    for (const [key, call] of calls) {
      if (onlyRoute !== undefined && onlyRoute !== key) continue
      for (const [, baseUrl] of servers) yield* fire(baseUrl, call(), warmupSeconds)
      const before = { on: yield* all.stats, sampled: yield* tenth.stats }
      const requests = { on: 0, sampled: 0 }
      for (const round of [1, 2, 3]) {
        for (const [state, baseUrl, exporting] of servers) {
          const run = measure("PostgreSQL", `${key} telemetry ${state} (${round})`, baseUrl, call, false)
          const row =
            exporting === undefined
              ? yield* run
              : yield* Effect.acquireUseRelease(
                  exporting.receiver.scrape(exporting.operator, operatorToken),
                  () => run,
                  () => exporting.receiver.stop
                )
          rows.push(row)
          if (state !== "off") requests[state] += row.requests
        }
      }
      // the last batches arrive within the export interval (5 s)
      yield* Effect.sleep("6 seconds")
      for (const [state, receiver] of [
        ["on", all],
        ["sampled", tenth]
      ] as const) {
        const stats = yield* receiver.stats
        const spans = stats.spans - before[state].spans
        const got = {
          spansPerRequest: spans / Math.max(1, requests[state]),
          metricExports: stats.metricExports - before[state].metricExports,
          scrapes: stats.scrapes - before[state].scrapes
        }
        exported.set(`${key} ${state}`, got)
        console.log(
          `    ${key} telemetry ${state}: exported ${int(spans)} spans, ${got.spansPerRequest.toFixed(2)} per request, ` +
            `${int((stats.bytes - before[state].bytes) / 1024)} KiB (links count as spans); ` +
            `${got.metricExports} metric exports, ${stats.logExports - before[state].logExports} log exports; ` +
            `/metrics scraped ${got.scrapes} times (${stats.scrapeFailures - before[state].scrapeFailures} failed)`
        )
        if (stats.scrapeFailures > before[state].scrapeFailures) process.exitCode = 1
      }
    }
    yield* Effect.sleep("1 second")
    return rows
  })
)

// ---------------------------------------------------------------------------------------------

const pad = (s: string, n: number) => s.padEnd(n)
const lpad = (s: string, n: number) => s.padStart(n)

/** The load average over 1, 5 and 15 minutes (other processes on the machine skew every figure). */
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ")

const main = Effect.gen(function* () {
  console.log(`Ratelock HTTP benchmark — node ${process.version}, ${cpus().length} vCPU, ${cpus()[0]?.model ?? ""}`)
  console.log(`load average (1 / 5 / 15 min) at the start: ${load()}`)
  console.log(
    `autocannon ${connections} connections (1 worker thread), ${warmupSeconds} s warm-up + ${measureSeconds} s per route`
  )
  console.log(`\n━━ bare node:http, fixed ${fixedBody.length}-byte JSON body ━━`)
  const bareRow = yield* Effect.scoped(
    Effect.flatMap(bare, (url) => measure("bare node:http", "GET /", url, () => ({ method: "GET", path: "/" })))
  )
  const rows: Array<Row> = [bareRow]
  if (only === undefined || only === "embedded") rows.push(...(yield* embedded))
  if (only === undefined || only === "postgres") rows.push(...(yield* postgres))
  if (only === undefined || only === "shared") rows.push(...(yield* sharedLimit))
  if (only === undefined || only === "telemetry") rows.push(...(yield* telemetry))
  if (only === undefined || only === "operator") rows.push(...(yield* operatorOnPostgres))

  const server = (r: Row) =>
    r.server.startsWith("PostgreSQL") ? "PostgreSQL" : r.server.startsWith("the embedded") ? "PGlite" : "bare"
  console.log(`\n━━ Summary ━━`)
  console.log(
    `${pad("server", 11)} ${pad("route", 32)} ${lpad("req/s", 8)} ${lpad("p50", 9)} ${lpad("p99", 9)} ${lpad("non-2xx", 8)} ${lpad("vs bare", 8)} ${lpad("CPU µs", 7)}`
  )
  for (const r of rows) {
    console.log(
      `${pad(server(r), 11)} ${pad(r.route, 32)} ${lpad(int(r.perSecond), 8)} ${lpad(ms(r.p50), 9)} ${lpad(ms(r.p99), 9)} ` +
        `${lpad(String(r.non2xx + r.errors), 8)} ${lpad((r.perSecond / bareRow.perSecond).toFixed(2), 8)} ${lpad(int(r.cpuMicros), 7)}`
    )
  }
  const verdict = (ok: boolean) => (ok ? "met" : "MISSED")
  console.log("\nTargets:")
  for (const r of rows.filter((r) => r.route === "GET /api/v1/partners/me")) {
    const ratio = r.perSecond / bareRow.perSecond
    console.log(
      `  partners/me on ${server(r)} ≥ ${targets.meRatio} × bare: ${ratio.toFixed(2)} — ${verdict(ratio >= targets.meRatio)}`
    )
  }
  for (const r of rows.filter((r) => r.route === "POST /api/v1/fx/quotes" && server(r) === "PostgreSQL")) {
    console.log(
      `  quotes on PostgreSQL ≥ ${int(targets.quotesPostgres)}/s: ${int(r.perSecond)}/s — ${verdict(r.perSecond >= targets.quotesPostgres)}`
    )
  }
  // summed over the rounds: requests per second, and main-thread CPU per request (requests-weighted)
  const sumOf = (label: string, f: (r: Row) => number) =>
    rows.filter((r) => r.route.startsWith(`GET partners/me ${label}`)).reduce((sum, r) => sum + f(r), 0)
  if (sumOf("per-process", (r) => r.requests) > 0) {
    const cpuPerRequest = (label: string) =>
      sumOf(label, (r) => r.cpuMicros * r.requests) / sumOf(label, (r) => r.requests)
    const throughput = sumOf("shared", (r) => r.perSecond) / sumOf("per-process", (r) => r.perSecond)
    const capacity = cpuPerRequest("per-process") / cpuPerRequest("shared")
    console.log(
      `  partners/me with the shared limit ≥ ${targets.sharedLimitRatio} × per-process (same run): ` +
        `requests/s ${throughput.toFixed(3)} × — ${verdict(throughput >= targets.sharedLimitRatio)}; ` +
        `by main-thread CPU per request (${int(cpuPerRequest("shared"))} vs ${int(cpuPerRequest("per-process"))} µs) ` +
        `${capacity.toFixed(3)} × — ${verdict(capacity >= targets.sharedLimitRatio)}`
    )
  }
  // telemetry on (and sampled) against off, per route, summed over the rounds as for the shared limit
  const telemetryOf = (key: string, state: string) =>
    rows.filter((r) => r.route.startsWith(`${key} telemetry ${state} `))
  /** Requests/s averaged over the rounds; main-thread CPU per request weighted by requests. */
  const telemetryPerSecond = (key: string, state: string) =>
    telemetryOf(key, state).reduce((sum, r) => sum + r.perSecond, 0) / telemetryOf(key, state).length
  const telemetryCpu = (key: string, state: string) =>
    telemetryOf(key, state).reduce((sum, r) => sum + r.cpuMicros * r.requests, 0) /
    telemetryOf(key, state).reduce((sum, r) => sum + r.requests, 0)
  const telemetryRoutes = [
    ["me", "partners/me", "GET /api/v1/partners/me"],
    ["quotes", "quotes", "POST /api/v1/fx/quotes"]
  ].filter(([key]) => telemetryOf(key!, "on").length > 0)
  for (const [key, name] of telemetryRoutes as Array<[string, string, string]>) {
    for (const [state, label] of [
      ["on", "every trace"],
      ["sampled", `${sampledRatio * 100} % of traces`]
    ] as const) {
      const throughput = telemetryPerSecond(key, state) / telemetryPerSecond(key, "off")
      const capacity = telemetryCpu(key, "off") / telemetryCpu(key, state)
      console.log(
        `  ${name} with telemetry on (${label}) ≥ ${targets.tracingRatio} × off (same run): ` +
          `requests/s ${throughput.toFixed(3)} × — ${verdict(throughput >= targets.tracingRatio)}; ` +
          `by main-thread CPU per request (${int(telemetryCpu(key, state))} vs ${int(telemetryCpu(key, "off"))} µs) ` +
          `${capacity.toFixed(3)} × — ${verdict(capacity >= targets.tracingRatio)}`
      )
    }
  }
  if (telemetryRoutes.length > 0) {
    // the README's table as it stands, from this run
    console.log(`\nTelemetry, as the README's table (bare node:http ${int(bareRow.perSecond)} req/s in this run):`)
    console.log("| Route | Off | On, every trace | On, 1 trace in 10 | Spans exported per request (on) |")
    console.log("|---|---|---|---|---|")
    for (const [key, , route] of telemetryRoutes as Array<[string, string, string]>) {
      const cell = (state: string) => {
        const perSecond = `${int(telemetryPerSecond(key, state))} req/s`
        const cpu = `${int(telemetryCpu(key, state))} µs`
        if (state === "off") return `${perSecond}, ${cpu}`
        const ratios = [
          telemetryPerSecond(key, state) / telemetryPerSecond(key, "off"),
          telemetryCpu(key, "off") / telemetryCpu(key, state)
        ].map((r) => r.toFixed(2))
        return `${perSecond} (${ratios[0]}×), ${cpu} (${ratios[1]}×)`
      }
      const got = exported.get(`${key} on`)
      console.log(
        `| \`${route}\` | ${cell("off")} | ${cell("on")} | ${cell("sampled")} | ${got?.spansPerRequest.toFixed(1) ?? "?"} |`
      )
    }
    for (const [key, name] of telemetryRoutes as Array<[string, string, string]>) {
      for (const state of ["on", "sampled"]) {
        const got = exported.get(`${key} ${state}`)
        console.log(
          `  ${name} ${state}: ${got?.metricExports ?? 0} OTLP metric exports and ${got?.scrapes ?? 0} /metrics scrapes over its rounds`
        )
      }
    }
  }
  // the audit record's cost: the audited write against the same write without its record, summed over the rounds
  const operatorOf = (label: string) => rows.filter((r) => r.route.startsWith(label))
  const perSecondOf = (label: string) => operatorOf(label).reduce((sum, r) => sum + r.perSecond, 0)
  if (operatorOf("PUT limits audited").length > 0) {
    const cost = 1 - perSecondOf("PUT limits audited") / perSecondOf("PUT limits unaudited")
    const rounds = operatorOf("PUT limits audited").length
    console.log(
      `  PUT limits on PostgreSQL: ${int(perSecondOf("PUT limits audited") / rounds)}/s audited, ` +
        `${int(perSecondOf("PUT limits unaudited") / rounds)}/s without the record, ` +
        `GET limits ${int(perSecondOf("GET /operator/v1/limits") / rounds)}/s; ` +
        `the audit record costs ${(cost * 100).toFixed(1)} % of the write (≤ ${targets.auditCost * 100} %) — ${verdict(cost <= targets.auditCost)}`
    )
  }
  console.log(`\nload average (1 / 5 / 15 min) at the end: ${load()}`)
  const failed = rows.filter((r) => r.non2xx + r.errors > 0)
  if (failed.length > 0) {
    console.error(`non-2xx answers or errors on: ${failed.map((r) => `${server(r)} ${r.route}`).join(", ")}`)
    process.exitCode = 1
  }
})

const controller = new AbortController()
process.once("SIGINT", () => controller.abort())
const exit = await Effect.runPromiseExit(main, { signal: controller.signal })
if (Exit.isFailure(exit)) {
  console.error(Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : Cause.pretty(exit.cause))
  process.exitCode = 1
}
