/**
 * The e2e server of `server.ts` on a real PostgreSQL: `DATABASE_URL`'s server, in a fresh database
 * (`ratelock_http_test_<random>`) created for the layer and dropped with it, with a pool of 10, so
 * requests run in parallel transactions (PGlite serialises them on one connection). Everything else
 * is `server.ts`'s; without `DATABASE_URL` the suites using it are skipped (CI sets it).
 */
import { PgStore } from "@ratelock/adapters-store"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { Readiness } from "../../src/server/Readiness.ts"
import { type Provided, layer as serverLayer } from "./server.ts"

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

/** `server.ts`'s `layer()` with its defaults, on PostgreSQL at `url`. */
export const layer = (url: string): Layer.Layer<Provided> =>
  serverLayer({
    store: Readiness.layerSql.pipe(
      Layer.provideMerge(PgStore.layer.pipe(Layer.provideMerge(freshDatabase(url)))),
      Layer.orDie
    )
  })
