/**
 * The Postgres store on PGlite in this process: the same SQL and migrations as `PgStore`, the
 * data in `dataDir` (in memory when omitted). Opening takes a few seconds; the database is closed
 * when the layer is released.
 *
 * One process has the database to itself, so whatever a previous process left half-done when it
 * died is known to be dead: `recover` clears it when the store opens.
 */
import type { PgClient, PgMigrator } from "@effect/sql-pg"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError, SqlSchema } from "effect/sql"
import * as PgIdempotencyRepo from "./PgIdempotencyRepo.ts"
import * as PgliteClient from "./PgliteClient.ts"
import * as PgStore from "./PgStore.ts"

/**
 * Frees every worker lease still held (on each table with a `lease_expires_at` column: contracts,
 * payouts, movements, webhook events, hedge policies, the revaluation's, the daily close's), returning how many. Only for a store
 * one process has to itself: at start-up every lease belongs to a worker that died with the previous
 * process, and its work should go on now rather than once the lease runs out (a minute by default).
 * Freeing a lease early is what its expiry would do; what the work itself left half-done is
 * recovered as after any expiry (a payout or hedge order stored before it is sent is looked up,
 * never sent twice).
 */
export const releaseLeases = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // the catalog answering anything but names would be a broken database: a defect, not an error
  const tables = yield* SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ table_name: Schema.String }),
    // the catalog itself, not information_schema: its views cost a fresh process a fifth of a second of planning
    execute: () => sql`SELECT c.relname AS table_name FROM pg_catalog.pg_attribute a
      JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
        AND a.attname = 'lease_expires_at' AND NOT a.attisdropped ORDER BY c.relname`
  })().pipe(Effect.catchTag("SchemaError", Effect.die))
  let released = 0
  for (const { table_name } of tables) {
    const rows = yield* sql`UPDATE ${sql(table_name)} SET lease_owner = NULL, lease_expires_at = NULL
      WHERE lease_expires_at IS NOT NULL RETURNING 1`
    released += rows.length
  }
  return released
})

/**
 * The recovery work of an embedded store's start: the idempotency keys of requests that never
 * answered are freed, so the partners' retries run at once, and the workers' leases, so their work
 * goes on at once. Logs what it did.
 */
export const recover: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function* () {
  const keys = yield* PgIdempotencyRepo.releaseUnanswered
  if (keys > 0) yield* Effect.logInfo(`recovery: freed ${keys} idempotency key(s) of requests cut off by the last stop`)
  const leases = yield* releaseLeases
  if (leases > 0) yield* Effect.logInfo(`recovery: freed ${leases} worker lease(s) held when the last process stopped`)
})

/** Every repository on a migrated database that this process has to itself, recovered. */
export const layerRecovered = <E, R>(
  client: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, E, R>
): Layer.Layer<
  PgStore.Repos | PgClient.PgClient | SqlClient.SqlClient,
  E | PgMigrator.MigrationError | SqlError.SqlError,
  R
> => Layer.effectDiscard(recover).pipe(Layer.provideMerge(PgStore.layer), Layer.provideMerge(client))

export const layer = (
  options: PgliteClient.Options = {}
): Layer.Layer<
  PgStore.Repos | PgClient.PgClient | SqlClient.SqlClient,
  PgMigrator.MigrationError | SqlError.SqlError
> => layerRecovered(PgliteClient.layer(options))
