/**
 * Readiness for `GET /ready`: the database answers and every migration was applied (the operator's
 * status lists them). The memory store has nothing to wait for, so it is always ready.
 */
import { PgMigrations, PgStore } from "@ratelock/adapters-store"
import { Context, Data, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

export class NotReady extends Data.TaggedError("NotReady")<{ readonly message: string }> {}

export interface ReadinessShape {
  readonly check: Effect.Effect<void, NotReady>
  /** The migrations applied, `<id>_<name>` in order (none on the memory store, which has no schema). */
  readonly migrations: Effect.Effect<ReadonlyArray<string>, NotReady>
}

export class Readiness extends Context.Service<Readiness, ReadinessShape>()("@ratelock/http/Readiness") {
  /** `SELECT 1` and the migrations table on the store's `SqlClient`, within 2 seconds. */
  static readonly layerSql = Layer.effect(
    Readiness,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const expected = Object.keys(PgMigrations.migrations).length
      const check = Effect.gen(function* () {
        yield* sql`SELECT 1`
        const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(PgStore.migrationsTable)}`
        if ((rows[0]?.n ?? 0) < expected) return yield* new NotReady({ message: "migrations pending" })
      }).pipe(
        Effect.timeoutOrElse({
          duration: "2 seconds",
          orElse: () => Effect.fail(new NotReady({ message: "timeout" }))
        }),
        Effect.catchTag("SqlError", (e) => Effect.fail(new NotReady({ message: e.message })))
      )
      const migrations = sql<{ readonly migration_id: number; readonly name: string }>`
        SELECT migration_id, name FROM ${sql(PgStore.migrationsTable)} ORDER BY migration_id`.pipe(
        Effect.map((rows) => rows.map((row) => `${row.migration_id}_${row.name}`)),
        Effect.catchTag("SqlError", (e) => Effect.fail(new NotReady({ message: e.message })))
      )
      return Readiness.of({ check, migrations })
    })
  )

  static readonly layerAlways = Layer.succeed(
    Readiness,
    Readiness.of({ check: Effect.void, migrations: Effect.succeed([]) })
  )
}
