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
import type { Settings } from "./Config.ts"
import * as DataDirLock from "./DataDirLock.ts"

export type ClientError = SqlError.SqlError | DataDirLock.DataDirInUse

/** The embedded database in the data directory, under its lock (taken before it opens, released after it closes). */
const embeddedClient = (s: Settings) =>
  Layer.unwrap(Effect.as(DataDirLock.acquire(s.dataDir), PgliteClient.layer({ dataDir: s.dataDir })))

/** The database client alone (no migrations): what `ratelock migrate` runs on. */
export const clientLayer = (s: Settings): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, ClientError> =>
  Option.match(s.databaseUrl, {
    onSome: (url) => PgClient.layer({ url, maxConnections: s.databasePoolSize }),
    onNone: () => embeddedClient(s)
  })

/** Every repository, on a database migrated when the layer is built. */
export const layer = (
  s: Settings
): Layer.Layer<PgStore.Repos | PgClient.PgClient | SqlClient.SqlClient, ClientError | PgMigrator.MigrationError> =>
  Option.isSome(s.databaseUrl)
    ? PgStore.layer.pipe(Layer.provideMerge(clientLayer(s)))
    : EmbeddedStore.layerRecovered(embeddedClient(s))
