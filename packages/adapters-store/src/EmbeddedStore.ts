/**
 * The Postgres store on PGlite in this process: the same SQL and migrations as `PgStore`, the
 * data in `dataDir` (in memory when omitted). Opening takes a few seconds; the database is closed
 * when the layer is released.
 *
 * One process has the database to itself, so whatever a previous process left half-done when it
 * died is known to be dead: `recover` clears it when the store opens.
 */
import type { PgClient, PgMigrator } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import * as PgIdempotencyRepo from "./PgIdempotencyRepo.ts"
import * as PgliteClient from "./PgliteClient.ts"
import * as PgStore from "./PgStore.ts"

/**
 * The recovery work of an embedded store's start: the idempotency keys of requests that never
 * answered are freed, so the partners' retries run at once. Logs what it did.
 */
export const recover: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect.flatMap(
  PgIdempotencyRepo.releaseUnanswered,
  (released) =>
    released === 0
      ? Effect.void
      : Effect.logInfo(`recovery: freed ${released} idempotency key(s) of requests cut off by the last stop`)
)

/** Every repository on a migrated database that this process has to itself, recovered. */
export const layerRecovered = <E, R>(
  client: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, E, R>
): Layer.Layer<
  PgStore.Repos | PgClient.PgClient | SqlClient.SqlClient,
  E | PgMigrator.MigrationError | SqlError.SqlError,
  R
> => Layer.effectDiscard(recover).pipe(Layer.provideMerge(PgStore.layer), Layer.provideMerge(client))

export const layer = (
  options: { readonly dataDir?: string | undefined } = {}
): Layer.Layer<
  PgStore.Repos | PgClient.PgClient | SqlClient.SqlClient,
  PgMigrator.MigrationError | SqlError.SqlError
> => layerRecovered(PgliteClient.layer(options))
