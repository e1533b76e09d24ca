/**
 * Keyset pagination shared by every list: fetch one row more than asked to know whether a next
 * page exists, and turn the last row into an opaque cursor.
 */
import { DateTime, Effect } from "effect"
import { ValidationError } from "../../kernel/ApiError.ts"
import * as Cursor from "../../kernel/Cursor.ts"
import { defaultPageLimit } from "../../kernel/Fields.ts"
import type { Slice } from "../../terms/Page.ts"

/** Decodes an optional cursor; a malformed one is a 422 on `query.cursor`. */
export const position = (cursor: string | undefined) =>
  cursor === undefined
    ? Effect.succeed(undefined)
    : Cursor.decode(cursor).pipe(
        Effect.mapError((e) =>
          ValidationError.fromIssues([{ loc: ["query", "cursor"], msg: e.message, type: "value_error" }])
        )
      )

export const pageSize = (limit: number | undefined) => limit ?? defaultPageLimit

/** Cuts `rows` (fetched with `limit + 1`) to a page and its cursor. */
export const slice = <A extends { readonly id: string; readonly createdAt: DateTime.Utc }>(
  rows: ReadonlyArray<A>,
  limit: number
): Slice<A> => {
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  return {
    items,
    nextCursor:
      rows.length > limit && last !== undefined
        ? Cursor.encode({ createdAt: DateTime.formatIso(last.createdAt), id: last.id })
        : null
  }
}
