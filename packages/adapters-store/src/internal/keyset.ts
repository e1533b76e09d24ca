/**
 * Keyset pagination over `(created_at, id)`: strictly before a position (newest first lists) or
 * strictly after it (the oldest-first payout feed). The position comes from a decoded cursor and
 * is bound as parameters, never interpolated.
 */
import type { Cursor } from "@ratelock/core"
import type { SqlClient } from "effect/sql"

export const before = (sql: SqlClient.SqlClient, position: Cursor.Position) =>
  sql`(created_at, id) < (${position.createdAt}::timestamptz, ${position.id}::uuid)`

export const after = (sql: SqlClient.SqlClient, position: Cursor.Position) =>
  sql`(created_at, id) > (${position.createdAt}::timestamptz, ${position.id}::uuid)`
