/**
 * `market_snapshots` rows and `StoredSnapshot`s: the one place the columns of a stored market
 * snapshot are named. The document is kept as the encoded `MarketSnapshot` (decimal strings, so
 * every number keeps its text) and decoded through its schema on read.
 */
import { MarketSnapshot, MarketSnapshotRepo } from "@ratelock/core"
import { Schema } from "effect"
import { json, rowSchema, Timestamp, timestamp, utc } from "./columns.ts"

const SnapshotColumns = Schema.Struct({
  id: Schema.String,
  hash: Schema.String,
  as_of: Timestamp,
  source: Schema.String,
  /** `json`, parsed by the driver: the document's wire form. */
  document: Schema.toEncoded(MarketSnapshot.MarketSnapshot),
  imported_at: Timestamp
})

const encodeDocument = Schema.encodeSync(MarketSnapshot.MarketSnapshot)

/** The document as the JSON text a row keeps (also what the migration writes for the illustrative one). */
export const documentJson = (document: MarketSnapshot.MarketSnapshot): string => json(encodeDocument(document))

/** The row a snapshot is written as (its document as JSON text). */
export const snapshotRow = (
  s: MarketSnapshotRepo.StoredSnapshot
): Omit<typeof SnapshotColumns.Type, "document"> & { readonly document: string } => ({
  id: s.id,
  hash: s.hash,
  as_of: timestamp(s.asOf),
  source: s.source,
  document: documentJson(s.document),
  imported_at: timestamp(s.importedAt)
})

/** A `market_snapshots` row → `StoredSnapshot` (the document decoded by `MarketSnapshot`'s schema). */
export const SnapshotRow = rowSchema("SnapshotRow", SnapshotColumns, MarketSnapshotRepo.StoredSnapshot, (r) => ({
  id: r.id,
  hash: r.hash,
  asOf: utc(r.as_of),
  source: r.source,
  document: r.document,
  importedAt: utc(r.imported_at)
}))
