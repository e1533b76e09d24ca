/**
 * `hot_wallet_readings`: the one place its columns are named, in the schema reads decode and the
 * mapping writes bind.
 */
import { HotWalletRepo, Partner, Rail } from "@ratelock/core"
import { Schema } from "effect"
import { decimal, Numeric, numeric, rowSchema, Timestamp, timestamp, utc } from "./columns.ts"

const ReadingColumns = Schema.Struct({
  environment: Partner.Environment,
  chain: Rail.Chain,
  asset: HotWalletRepo.HotWalletAsset,
  address: Schema.String,
  amount: Numeric,
  read_at: Timestamp
})

/** The row a reading is written as. */
export const readingRow = (r: HotWalletRepo.HotWalletReading): typeof ReadingColumns.Type => ({
  environment: r.environment,
  chain: r.chain,
  asset: r.asset,
  address: r.address,
  amount: numeric(r.amount),
  read_at: timestamp(r.readAt)
})

/** A `hot_wallet_readings` row → `HotWalletReading`. */
export const ReadingRow = rowSchema("HotWalletReadingRow", ReadingColumns, HotWalletRepo.HotWalletReading, (r) => ({
  environment: r.environment,
  chain: r.chain,
  asset: r.asset,
  address: r.address,
  amount: decimal(r.amount),
  readAt: utc(r.read_at)
}))
