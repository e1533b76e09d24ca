/**
 * The Postgres store on PGlite in this process: the same SQL and migrations as `PgStore`, the
 * data in `dataDir` (in memory when omitted). Opening takes a few seconds; the database is closed
 * when the layer is released.
 */
import type { PgClient, PgMigrator } from "@effect/sql-pg"
import { Layer } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import * as PgliteClient from "./PgliteClient.ts"
import * as PgStore from "./PgStore.ts"

export const layer = (
  options: { readonly dataDir?: string | undefined } = {}
): Layer.Layer<
  PgStore.Repos | PgClient.PgClient | SqlClient.SqlClient,
  PgMigrator.MigrationError | SqlError.SqlError
> => PgStore.layer.pipe(Layer.provideMerge(PgliteClient.layer(options)))
