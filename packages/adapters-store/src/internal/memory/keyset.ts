/**
 * Keyset ordering by `(created_at, id)`, as the SQL lists do: newest first with a strict
 * `(created_at, id) < cursor`, or oldest first with `>`. Ids compare as strings, which for
 * lowercase UUIDs is the order Postgres gives `uuid`.
 */
import { DateTime } from "effect"
import type { Cursor } from "@ratelock/core"
import type { Page } from "../keyset.ts"

export interface Key {
  readonly createdAt: DateTime.Utc
  readonly id: string
}

/** Ascending by `createdAt` to the millisecond, then by `id`. */
export const compareKeys = (a: Key, b: Key): number =>
  a.createdAt.epochMilliseconds - b.createdAt.epochMilliseconds || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const keyOfPosition = (position: Cursor.Position): Key => ({
  createdAt: DateTime.makeUnsafe(position.createdAt),
  id: position.id
})

const ordered = <A>(rows: Iterable<A>, keyOf: (row: A) => Key, page: Page, direction: 1 | -1): Array<A> => {
  const after = page.after === undefined ? undefined : keyOfPosition(page.after)
  return Array.from(rows)
    .filter((row) => after === undefined || direction * compareKeys(keyOf(row), after) > 0)
    .sort((a, b) => direction * compareKeys(keyOf(a), keyOf(b)))
    .slice(0, Math.max(0, page.limit))
}

/** At most `page.limit` rows strictly after `page.after`, newest first. */
export const newestFirst = <A>(rows: Iterable<A>, keyOf: (row: A) => Key, page: Page): Array<A> =>
  ordered(rows, keyOf, page, -1)

/** At most `page.limit` rows strictly after `page.after`, oldest first. */
export const oldestFirst = <A>(rows: Iterable<A>, keyOf: (row: A) => Key, page: Page): Array<A> =>
  ordered(rows, keyOf, page, 1)

/** For rows that are their own key. */
export const self = <A extends Key>(row: A): Key => row
