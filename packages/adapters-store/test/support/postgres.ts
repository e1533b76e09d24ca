/**
 * Real Postgres for tests: each run works in its own fresh database, created on the server named
 * by `DATABASE_URL` and dropped afterwards, so concurrent runs never collide. Without
 * `DATABASE_URL` the Postgres suites are skipped (the run's last line says so).
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

/** A `PgClient` on a new, empty database that is dropped when the layer is released. */
export const freshDatabase = (url: string) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const name = `ratelock_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
      const admin = PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })
      const run = (statement: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.provide(admin), Effect.orDie)
      yield* Effect.acquireRelease(run(`CREATE DATABASE ${name}`), () =>
        run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      )
      return PgClient.layer({ url: Redacted.make(withDatabase(url, name)), maxConnections: 10 })
    })
  )
