/**
 * The e2e server of `server.ts` on a real PostgreSQL: `DATABASE_URL`'s server, in a fresh database
 * (`ratelock_http_test_<random>`) created for the layer and dropped with it, with a pool of 10, so
 * requests run in parallel transactions (PGlite serialises them on one connection). The same
 * settings and seeded partners as `server.ts`; without `DATABASE_URL` the suites using it are
 * skipped (CI sets it for the store suites).
 */
import { NodeHttpServer } from "@effect/platform-node"
import { PgStore } from "@ratelock/adapters-store"
import { PgClient } from "@effect/sql-pg"
import { IdGenerator, MarketData, type Partner, PartnerRepo, QuotePolicy } from "@ratelock/core"
import { DateTime, Duration, Effect, Layer, Redacted, References } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import { ChainAvailability } from "../../src/server/ChainAvailability.ts"
import * as Credentials from "../../src/server/Credentials.ts"
import { RateLimitConfig } from "../../src/server/RateLimiter.ts"
import { Readiness } from "../../src/server/Readiness.ts"
import * as Server from "../../src/server/Server.ts"
import * as Chain from "./chain.ts"
import { type Key, type Provided, type SeededPartner, TestServer } from "./server.ts"

export const databaseUrl = process.env.DATABASE_URL

const withDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

/** A `PgClient` on a new database, dropped when the layer is released. */
const freshDatabase = (url: string) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const name = `ratelock_http_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
      const admin = PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })
      const run = (statement: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.provide(admin), Effect.orDie)
      yield* Effect.acquireRelease(run(`CREATE DATABASE ${name}`), () =>
        run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      )
      return PgClient.layer({ url: Redacted.make(withDatabase(url, name)), maxConnections: 10 })
    })
  )

const seedPartner = Effect.fnUntraced(function* (name: string) {
  const partners = yield* PartnerRepo.PartnerRepo
  const ids = yield* IdGenerator.IdGenerator
  const now = yield* DateTime.now
  const id = yield* ids.uuid
  yield* partners.insertPartner({ id, name, createdAt: now })
  const key = Effect.fnUntraced(function* (environment: Partner.Environment, revoked = false) {
    const keyId = yield* ids.uuid
    const secret = yield* Credentials.newSecret
    yield* partners.insertApiKey({
      id: keyId,
      partnerId: id,
      environment,
      secretHash: yield* Credentials.hashSecret(secret),
      createdAt: now,
      revokedAt: revoked ? now : null
    })
    return { keyId, secret, environment } satisfies Key
  })
  return {
    id,
    name,
    sandbox: yield* key("sandbox"),
    production: yield* key("production"),
    revoked: yield* key("sandbox", true)
  } satisfies SeededPartner
})

/** `server.ts`'s `layer()` with its defaults, on PostgreSQL at `url`. */
export const layer = (url: string): Layer.Layer<Provided> => {
  const store = Readiness.layerSql.pipe(Layer.provideMerge(PgStore.layer.pipe(Layer.provideMerge(freshDatabase(url)))))
  const ports = Layer.mergeAll(
    store,
    Chain.layer,
    MarketData.MarketData.layerDefaults,
    IdGenerator.IdGenerator.layer.pipe(Layer.provideMerge(Server.layerCrypto))
  )
  const settings = Layer.mergeAll(
    Layer.succeed(QuotePolicy.QuotePolicy, { ...QuotePolicy.defaults, quoteTtl: Duration.seconds(90) }),
    Layer.succeed(RateLimitConfig, { ratePerSecond: 1000, burst: 1000 }),
    Layer.succeed(ChainAvailability, { sandbox: true, production: true }),
    Layer.succeed(References.MinimumLogLevel, "Error")
  )
  const testServer = Layer.effect(
    TestServer,
    Effect.gen(function* () {
      const address = (yield* HttpServer.HttpServer).address
      const port = address._tag === "UnixPathAddress" ? 0 : address.port
      return TestServer.of({
        baseUrl: `http://127.0.0.1:${port}`,
        a: yield* seedPartner("Acme Pay"),
        b: yield* seedPartner("Beta Remit")
      })
    })
  )
  return testServer.pipe(
    Layer.provideMerge(Server.layer),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0 })),
    Layer.provideMerge(ports),
    Layer.provide(settings),
    Layer.orDie
  )
}
