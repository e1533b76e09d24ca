/**
 * Persistence port for market-data snapshots (market-data.md): each imported document stored once,
 * immutable, under its id and its canonical hash. Quotes name the snapshot that priced them
 * (`QuoteRecord.snapshotId`), so a stored snapshot is never updated or deleted.
 */
import { Context, Effect, Schema } from "effect"
import type { DateTime, Option } from "effect"
import type { Digest } from "effect/crypto"
import { Uuid } from "../kernel/Fields.ts"
import * as MarketSnapshot from "./MarketSnapshot.ts"
import type { StoreError } from "../kernel/StoreError.ts"

/** A stored snapshot: the document with what identifies it and when it was imported. */
export const StoredSnapshot = Schema.Struct({
  id: Uuid,
  /** `MarketSnapshot.hash` of the document: equal documents, equal hashes, one snapshot. */
  hash: Schema.String,
  /** The document's `as_of` and `source`, kept beside it so `latest` reads an index. */
  asOf: Schema.DateTimeUtc,
  source: Schema.String,
  document: MarketSnapshot.MarketSnapshot,
  importedAt: Schema.DateTimeUtc
}).annotate({ identifier: "StoredSnapshot" })
export type StoredSnapshot = typeof StoredSnapshot.Type

/** What `insert` answers: the stored snapshot, and whether this call stored it (false: it was there). */
export interface Inserted {
  readonly snapshot: StoredSnapshot
  readonly created: boolean
}

export interface MarketSnapshotRepoShape {
  /**
   * Stores a snapshot unless one with the same hash is stored: then answers that one (its id and
   * import time, not the record's) with `created: false`. Concurrent inserts of one hash store one.
   */
  readonly insert: (snapshot: StoredSnapshot) => Effect.Effect<Inserted, StoreError>
  /** The snapshot in force: newest `asOf`, then newest `importedAt`, then the greatest id. */
  readonly latest: () => Effect.Effect<Option.Option<StoredSnapshot>, StoreError>
  readonly find: (id: string) => Effect.Effect<Option.Option<StoredSnapshot>, StoreError>
}

export class MarketSnapshotRepo extends Context.Service<MarketSnapshotRepo, MarketSnapshotRepoShape>()(
  "@ratelock/core/MarketSnapshotRepo"
) {}

/** The record of a document about to be stored: its hash, `asOf` and `source` taken from it. */
export const record = Effect.fn("MarketSnapshotRepo.record")(function* (
  document: MarketSnapshot.MarketSnapshot,
  options: { readonly id: string; readonly importedAt: DateTime.Utc }
): Effect.fn.Return<StoredSnapshot, never, Digest.Digest> {
  return {
    id: options.id,
    hash: yield* MarketSnapshot.hash(document),
    asOf: document.as_of,
    source: document.source,
    document,
    importedAt: options.importedAt
  }
})
