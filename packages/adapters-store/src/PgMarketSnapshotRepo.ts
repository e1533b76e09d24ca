/**
 * `MarketSnapshotRepo` on Postgres: `market_snapshots`, one immutable row per document hash.
 *
 * An insert whose hash is stored already writes nothing (`ON CONFLICT (hash) DO NOTHING`) and
 * reads the stored row in a second statement: a concurrent insert of the same hash makes ours
 * wait until it commits, and a statement's own snapshot, taken before that commit, cannot see
 * the row, while the next statement's can.
 */
import { MarketSnapshotRepo } from "@ratelock/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { SnapshotRow, snapshotRow } from "./internal/rows/snapshots.ts"
import { isUuid, orStoreError, Parameters } from "./internal/sql.ts"

export const layer: Layer.Layer<MarketSnapshotRepo.MarketSnapshotRepo, never, SqlClient.SqlClient> = Layer.effect(
  MarketSnapshotRepo.MarketSnapshotRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const added = SqlSchema.findOneOption({
      Request: Parameters<MarketSnapshotRepo.StoredSnapshot>(),
      Result: SnapshotRow,
      execute: (s) => sql`INSERT INTO market_snapshots ${sql.insert(snapshotRow(s))}
        ON CONFLICT (hash) DO NOTHING RETURNING *`
    })

    const byHash = SqlSchema.findOne({
      Request: Parameters<{ readonly hash: string }>(),
      Result: SnapshotRow,
      execute: (r) => sql`SELECT * FROM market_snapshots WHERE hash = ${r.hash}`
    })

    const insert = Effect.fn("PgMarketSnapshotRepo.insert")(function* (snapshot: MarketSnapshotRepo.StoredSnapshot) {
      const stored = yield* added(snapshot)
      if (Option.isSome(stored)) return { snapshot: stored.value, created: true }
      return { snapshot: yield* byHash({ hash: snapshot.hash }), created: false }
    }, orStoreError("PgMarketSnapshotRepo.insert"))

    const newest = SqlSchema.findOneOption({
      Request: Parameters<void>(),
      Result: SnapshotRow,
      execute: () => sql`SELECT * FROM market_snapshots ORDER BY as_of DESC, imported_at DESC, id DESC LIMIT 1`
    })

    const latest = Effect.fn("PgMarketSnapshotRepo.latest")(function* () {
      return yield* newest(undefined)
    }, orStoreError("PgMarketSnapshotRepo.latest"))

    const byId = SqlSchema.findOneOption({
      Request: Parameters<{ readonly id: string }>(),
      Result: SnapshotRow,
      execute: (r) => sql`SELECT * FROM market_snapshots WHERE id = ${r.id}`
    })

    const find = Effect.fn("PgMarketSnapshotRepo.find")(function* (id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* byId({ id })
    }, orStoreError("PgMarketSnapshotRepo.find"))

    return MarketSnapshotRepo.MarketSnapshotRepo.of({ insert, latest, find })
  })
)
