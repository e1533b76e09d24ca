/**
 * `daily_closes` and `daily_close_locks` rows and core's `DailyClose`: the one place their columns are named. A
 * close's columns are what it is found and ordered by; the rest of its summary is one `jsonb` document (the encoded
 * `CloseSummary` less those columns) and its market snapshot another (the encoded `MarketSnapshot`), both decoded
 * through core's schemas on read. Locks are written from JSON (`jsonb_to_recordset`), each double as its exact text.
 */
import { DailyClose, MarketSnapshot, Partner } from "@ratelock/core"
import { Schema, Struct } from "effect"
import { float8Text, Int8, int, json, recordset, rowSchema, Timestamp, timestamp, timestampOrNull } from "./columns.ts"
import { documentJson } from "./snapshots.ts"

/** The rest of the summary, one `jsonb` document: everything but the columns. */
const SummaryDocument = DailyClose.CloseSummary.mapFields(
  Struct.omit(["id", "environment", "closed_at", "scheduled_for", "snapshot_id"])
)

const encodeSummary = Schema.encodeSync(SummaryDocument)

const SummaryColumns = Schema.Struct({
  id: Schema.String,
  environment: Partner.Environment,
  closed_at: Timestamp,
  scheduled_for: Schema.NullOr(Timestamp),
  snapshot_id: Schema.NullOr(Schema.String),
  summary: Schema.toEncoded(SummaryDocument)
})

/** The columns a summary is read from: a list leaves the snapshot unread. */
export const summaryColumnList = Object.keys(SummaryColumns.fields).join(", ")

/** The row a close is written as; its locks are rows of their own (`lockJson`). */
export const closeRow = (close: DailyClose.DailyClose) => ({
  id: close.id,
  environment: close.environment,
  closed_at: timestamp(close.closed_at),
  scheduled_for: timestampOrNull(close.scheduled_for),
  snapshot_id: close.snapshot_id,
  summary: json(encodeSummary(close)),
  snapshot: documentJson(close.snapshot)
})

/** The encoded summary a row holds; its instants as core encodes them (UTC, milliseconds). */
const summaryOf = (r: typeof SummaryColumns.Type): typeof DailyClose.CloseSummary.Encoded => ({
  id: r.id,
  environment: r.environment,
  closed_at: r.closed_at.toISOString(),
  scheduled_for: r.scheduled_for === null ? null : r.scheduled_for.toISOString(),
  snapshot_id: r.snapshot_id,
  ...r.summary
})

/** A `daily_closes` row (`summaryColumnList`) → `CloseSummary`. */
export const SummaryRow = rowSchema("DailyCloseSummaryRow", SummaryColumns, DailyClose.CloseSummary, summaryOf)

/** A close but its locks, which are read on their own. */
const CloseHead = DailyClose.DailyClose.mapFields(Struct.omit(["locks"]))

const CloseColumns = SummaryColumns.mapFields(
  Struct.assign({ snapshot: Schema.toEncoded(MarketSnapshot.MarketSnapshot) })
)

/** A whole `daily_closes` row → the close but its locks. */
export const CloseRow = rowSchema("DailyCloseRow", CloseColumns, CloseHead, (r) => ({
  ...summaryOf(r),
  snapshot: r.snapshot
}))

/** The columns a lock is written as, with the SQL type each is read from JSON as. */
const lockWritten = {
  close_id: "text",
  contract_id: "text",
  partner_id: "text",
  direction: "text",
  notional_base: "float8",
  strike: "float8",
  window_start: "bigint",
  window_end: "bigint",
  mtm: "float8",
  delta: "float8",
  gamma: "float8",
  vega: "float8",
  theta: "float8",
  vanna: "float8",
  volga: "float8",
  vol: "float8"
} as const

/** The column list of an insert, and the column definitions of a `jsonb_to_recordset` of locks. */
export const { columns: lockColumnList, definitions: lockRecordset } = recordset(lockWritten)

/** The JSON object a lock of close `closeId` is written from (the columns of `lockRecordset`). */
export const lockJson =
  (closeId: string) =>
  (l: DailyClose.CloseLock): Record<keyof typeof lockWritten, string | number> => ({
    close_id: closeId,
    contract_id: l.contract_id,
    partner_id: l.partner_id,
    direction: l.direction,
    notional_base: float8Text(l.notional_base),
    strike: float8Text(l.strike),
    window_start: l.window_start,
    window_end: l.window_end,
    mtm: float8Text(l.mtm),
    delta: float8Text(l.delta),
    gamma: float8Text(l.gamma),
    vega: float8Text(l.vega),
    theta: float8Text(l.theta),
    vanna: float8Text(l.vanna),
    volga: float8Text(l.volga),
    vol: float8Text(l.vol)
  })

/** `float8` columns come as the doubles they hold; the window's epoch milliseconds as `int8`. */
const LockColumns = Schema.Struct({ ...DailyClose.CloseLock.fields, window_start: Int8, window_end: Int8 })

/** A `daily_close_locks` row → `CloseLock`. */
export const LockRow = rowSchema("DailyCloseLockRow", LockColumns, DailyClose.CloseLock, (r) => ({
  ...r,
  window_start: int(r.window_start),
  window_end: int(r.window_end)
}))
