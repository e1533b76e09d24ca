/**
 * Keyset pagination over `(created_at, id)`: strictly before a position (newest first lists) or
 * strictly after it (the oldest-first payout feed). The position comes from a decoded cursor and
 * is bound as parameters, never interpolated.
 */
import type { Cursor } from "@ratelock/core"
import { Schema } from "effect"
import type { SqlClient } from "effect/sql"

/**
 * A position as statement parameters. Not checked again: a cursor is validated where it is
 * decoded, and the workers' positions are rows of the store.
 */
export const Position = Schema.Struct({ createdAt: Schema.String, id: Schema.String })

export const before = (sql: SqlClient.SqlClient, position: Cursor.Position) =>
  sql`(created_at, id) < (${position.createdAt}::timestamptz, ${position.id}::uuid)`

export const after = (sql: SqlClient.SqlClient, position: Cursor.Position) =>
  sql`(created_at, id) > (${position.createdAt}::timestamptz, ${position.id}::uuid)`
