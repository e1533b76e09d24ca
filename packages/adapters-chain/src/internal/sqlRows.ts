/**
 * Rows of the SQL simulated chain and what they become: transfers, broadcasts, the matching form
 * of addresses, and storage failures as the chain's `unavailable`.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import { SqlError } from "effect/sql"
import type { SimulatedTransfer } from "./ledger.ts"
import { chainError } from "./checks.ts"

/** `bigint` columns arrive as a `bigint` or a string, by driver. */
export type BigintColumn = number | bigint | string

export interface TransferRow {
  readonly transaction_hash: string
  readonly chain: ChainGateway.Rail["chain"]
  readonly environment: ChainGateway.Rail["environment"]
  readonly token: ChainGateway.Rail["token"]
  readonly address: string
  readonly amount: string
  readonly block_number: BigintColumn
  readonly confirmed_at: Date
}

export interface BroadcastRow {
  readonly block_number: BigintColumn
  readonly failure: ChainGateway.FailureReason | null
  readonly confirmed_at: Date
}

export const toTransfer = (row: TransferRow): SimulatedTransfer => ({
  rail: { chain: row.chain, environment: row.environment, token: row.token },
  address: row.address,
  transactionHash: row.transaction_hash,
  index: 0,
  blockNumber: Number(row.block_number),
  amount: Money.unsafe(row.amount),
  confirmedAt: DateTime.fromDateUnsafe(row.confirmed_at)
})

/** A recorded broadcast at `now`: `Pending` until confirmed, then `Confirmed` or `Failed`. */
export const toLookup = (row: BroadcastRow | undefined, now: DateTime.Utc): ChainGateway.PayoutLookup => {
  if (row === undefined) return { _tag: "Unknown" }
  const confirmedAt = DateTime.fromDateUnsafe(row.confirmed_at)
  if (confirmedAt.epochMilliseconds > now.epochMilliseconds) return { _tag: "Pending" }
  if (row.failure !== null) return { _tag: "Failed", reason: row.failure }
  return { _tag: "Confirmed", blockNumber: Number(row.block_number), confirmedAt }
}

/** The form addresses are stored and matched in: EVM ones in any letter case, Solana's exactly. */
export const addressKey = (rail: ChainGateway.Rail, address: string): string =>
  rail.chain === "solana" ? address : address.toLowerCase()

/** Storage failures become the chain's `unavailable`, as an RPC outage would; others pass through. */
export const orUnavailable =
  (chain: string, operation: string) =>
  <A, E, R>(
    self: Effect.Effect<A, E, R>
  ): Effect.Effect<A, Exclude<E, SqlError.SqlError> | ChainGateway.ChainError, R> =>
    Effect.mapError(self, (e) =>
      SqlError.isSqlError(e) ? chainError(chain, "rpc_unavailable", `${operation}: ${e.reason._tag}`) : e
    ) as Effect.Effect<A, Exclude<E, SqlError.SqlError> | ChainGateway.ChainError, R>
