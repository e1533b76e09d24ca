/**
 * Keyset pagination over `(created_at, id)`: strictly before a position (newest first lists) or
 * strictly after it (the oldest-first payout feed). The position comes from a decoded cursor and
 * is bound as parameters, never interpolated. A table whose instant has another name (the audit
 * log's `at`) names that column.
 */
import type { Cursor } from "@ratelock/core"
import type { SqlClient } from "effect/sql"

/** A page of a list: at most `limit` rows, strictly after `after` in the list's order. */
export interface Page {
  readonly limit: number
  readonly after?: Cursor.Position | undefined
}

export const before = (sql: SqlClient.SqlClient, position: Cursor.Position, column = "created_at") =>
  sql`(${sql(column)}, id) < (${position.createdAt}::timestamptz, ${position.id}::uuid)`

export const after = (sql: SqlClient.SqlClient, position: Cursor.Position) =>
  sql`(created_at, id) > (${position.createdAt}::timestamptz, ${position.id}::uuid)`
