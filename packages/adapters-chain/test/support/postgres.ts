/**
 * Real Postgres for the SQL chain's tests: each run works in fresh databases created on the server
 * named by `DATABASE_URL` and dropped afterwards (as in the store's tests). Without `DATABASE_URL`
 * the Postgres suites are skipped (the run's last line says so); the PGlite ones still run.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"

export const databaseUrl = process.env.DATABASE_URL

const withDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

/** The URL of a new, empty database, dropped when the scope closes. */
export const freshDatabaseUrl = (url: string) =>
  Effect.gen(function* () {
    const name = `ratelock_sim_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
    const admin = PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })
    const run = (statement: string) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.provide(admin), Effect.orDie)
    yield* Effect.acquireRelease(run(`CREATE DATABASE ${name}`), () =>
      run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    )
    return withDatabase(url, name)
  })

/** A client of its own on `url`: one per simulated process. */
export const client = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 10 })

/** A `PgClient` on a new database that is dropped when the layer is released. */
export const freshDatabase = (url: string) => Layer.unwrap(Effect.map(freshDatabaseUrl(url), client))
