/**
 * `HotWalletRepo` on Postgres: `hot_wallet_readings`, one row per environment, chain and asset,
 * upserted by the hot-wallet pass. A reading older than the stored one (a slow worker's) does not
 * replace it.
 */
import { HotWalletRepo } from "@ratelock/core"
import { Array, Effect, Layer } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { ReadingRow, readingRow } from "./internal/rows/hotWallets.ts"
import { orStoreError, Parameters } from "./internal/sql.ts"

export const layer: Layer.Layer<HotWalletRepo.HotWalletRepo, never, SqlClient.SqlClient> = Layer.effect(
  HotWalletRepo.HotWalletRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const save = Effect.fn("PgHotWalletRepo.save")(function* (readings: ReadonlyArray<HotWalletRepo.HotWalletReading>) {
      // one row per key: an INSERT cannot touch a row twice
      const rows: ReadonlyArray<ReturnType<typeof readingRow>> = HotWalletRepo.latestOfEach(readings).map(readingRow)
      if (!Array.isReadonlyArrayNonEmpty(rows)) return
      yield* sql`INSERT INTO hot_wallet_readings ${sql.insert(rows)}
        ON CONFLICT (environment, chain, asset) DO UPDATE SET address = EXCLUDED.address,
          amount = EXCLUDED.amount, read_at = EXCLUDED.read_at
        WHERE hot_wallet_readings.read_at <= EXCLUDED.read_at`
    }, orStoreError("PgHotWalletRepo.save"))

    const all = SqlSchema.findAll({
      Request: Parameters<void>(),
      Result: ReadingRow,
      // NATIVE first, then the tokens by name (the byte order: the same whatever the collation)
      execute: () => sql`SELECT * FROM hot_wallet_readings
        ORDER BY environment COLLATE "C", chain COLLATE "C", asset <> 'NATIVE', asset COLLATE "C"`
    })

    const list = Effect.fn("PgHotWalletRepo.list")(function* () {
      return yield* all(undefined)
    }, orStoreError("PgHotWalletRepo.list"))

    return HotWalletRepo.HotWalletRepo.of({ save, list })
  })
)
