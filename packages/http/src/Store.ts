/**
 * The database the host runs on, chosen the same way for the server and the operator CLI:
 * PostgreSQL when `DATABASE_URL` is set, else the embedded database (PGlite) in the data
 * directory, held with `DataDirLock` for as long as it is open, and recovered when it opens
 * (`EmbeddedStore.recover`: this process has it to itself).
 */
import { PgClient, type PgMigrator } from "@effect/sql-pg"
import { EmbeddedStore, PgliteClient, PgStore } from "@ratelock/adapters-store"
import { Effect, Layer, Option } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import type { Settings } from "./HostConfig.ts"
import * as DataDirLock from "./DataDirLock.ts"

export type ClientError = SqlError.SqlError | DataDirLock.DataDirInUse

/** The embedded database in the data directory, under its lock (taken before it opens, released after it closes). */
const embeddedClient = (s: Settings) =>
  Layer.unwrap(
    Effect.gen(function* () {
      yield* DataDirLock.acquire(s.dataDir)
      yield* Effect.logDebug(`data directory ${s.dataDir} locked`)
      return PgliteClient.layer({ dataDir: s.dataDir }).pipe(Layer.tap(() => Effect.logDebug("embedded database open")))
    })
  )

/** The database client alone (no migrations): what `ratelock migrate` runs on. */
export const clientLayer = (s: Settings): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, ClientError> =>
  Option.match(s.databaseUrl, {
    onSome: (url) => PgClient.layer({ url, maxConnections: s.databasePoolSize }),
    onNone: () => embeddedClient(s)
  })

/**
 * Every repository, on a database migrated (and, embedded, recovered) when the layer is built. The
 * start's steps are logged at debug level, for the time each takes (`pnpm bench:restart` reads them).
 */
export const layer = (
  s: Settings
): Layer.Layer<PgStore.Repos | PgClient.PgClient | SqlClient.SqlClient, ClientError | PgMigrator.MigrationError> =>
  (Option.isSome(s.databaseUrl)
    ? PgStore.layer.pipe(Layer.provideMerge(clientLayer(s)))
    : EmbeddedStore.layerRecovered(embeddedClient(s))
  ).pipe(Layer.tap(() => Effect.logDebug("schema up to date")))
