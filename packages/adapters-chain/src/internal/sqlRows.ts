/**
 * Rows of the SQL simulated chain as schemas (transfers, broadcasts, a payout's or a sweep's prepare
 * state, balances) and what they become, the matching form of addresses, and failures of its
 * storage (a statement, or a row outside its schema) as the chain's `rpc_unavailable`.
 */
import { ChainGateway, Money, Partner, Rail } from "@ratelock/core"
import { Cause, type DateTime, Effect, Schema, SchemaGetter } from "effect"
import { SqlError } from "effect/sql"
import { chainError } from "./checks.ts"
import { lookupOf, SimulatedTransfer } from "./ledger.ts"

/** `bigint` columns (a `bigint` from the driver) ↔ numbers: block numbers and counts fit a double. */
const Int8 = Schema.BigInt.pipe(
  Schema.decodeTo(Schema.Int, {
    decode: SchemaGetter.transform((value: bigint) => Number(value)),
    encode: SchemaGetter.transform((value: number) => BigInt(value))
  })
)

const TransferColumns = Schema.Struct({
  transaction_hash: Schema.String,
  chain: Rail.Chain,
  environment: Partner.Environment,
  token: Rail.FundsCurrency,
  address: Schema.String,
  amount: Money.DecimalString,
  block_number: Int8,
  confirmed_at: Schema.DateTimeUtcFromDate
})

/** A `sim_transfers` row ↔ the transfer it records (one per transaction: index 0). */
export const TransferRow = TransferColumns.pipe(
  Schema.decodeTo(SimulatedTransfer, {
    decode: SchemaGetter.transform(
      (r): SimulatedTransfer => ({
        rail: { chain: r.chain, environment: r.environment, token: r.token },
        address: r.address,
        transactionHash: r.transaction_hash,
        index: 0,
        blockNumber: r.block_number,
        amount: r.amount,
        confirmedAt: r.confirmed_at
      })
    ),
    encode: SchemaGetter.transform((t: SimulatedTransfer): typeof TransferColumns.Type => ({
      transaction_hash: t.transactionHash,
      chain: t.rail.chain,
      environment: t.rail.environment,
      token: t.rail.token,
      address: t.address,
      amount: t.amount,
      block_number: t.blockNumber,
      confirmed_at: t.confirmedAt
    }))
  })
).annotate({ identifier: "SimTransferRow" })

/** What a lookup reads of a `sim_broadcasts` row. */
export const BroadcastRow = Schema.Struct({
  block_number: Int8,
  /** Why the chain rejected it; null when it was accepted. */
  failure: Schema.NullOr(ChainGateway.FailureReason),
  confirmed_at: Schema.DateTimeUtcFromDate
}).annotate({ identifier: "SimBroadcastRow" })

/** What preparing a payout reads: its rejected attempts so far, and the contracts armed to fail. */
export const PrepareStateRow = Schema.Struct({
  rejected: Int8,
  armed: Schema.Array(Schema.String)
}).annotate({ identifier: "SimPrepareStateRow" })

/** What drafting a sweep reads: its rejected attempts so far. */
export const SweepStateRow = Schema.Struct({ rejected: Int8 }).annotate({ identifier: "SimSweepStateRow" })

/** An address's balance, as the balance query sums it. */
export const BalanceRow = Schema.Struct({ balance: Money.DecimalString }).annotate({ identifier: "SimBalanceRow" })

/** A recorded broadcast at `now`: `Pending` until confirmed, then `Confirmed` or `Failed` (`Ledger.lookupOf`). */
export const toLookup = (
  transactionHash: string,
  row: typeof BroadcastRow.Type | undefined,
  now: DateTime.Utc
): ChainGateway.PayoutLookup =>
  lookupOf(
    transactionHash,
    row && { blockNumber: row.block_number, confirmedAt: row.confirmed_at, failure: row.failure },
    now
  )

/** The form addresses are stored and matched in: EVM ones in any letter case, Solana's exactly. */
export const addressKey = (rail: ChainGateway.Rail, address: string): string =>
  rail.chain === "solana" ? address : address.toLowerCase()

type StorageFailure = SqlError.SqlError | Schema.SchemaError | Cause.NoSuchElementError

const isStorageFailure = (e: unknown): e is StorageFailure =>
  SqlError.isSqlError(e) || Schema.isSchemaError(e) || Cause.isNoSuchElementError(e)

const describe = (e: StorageFailure): string =>
  SqlError.isSqlError(e)
    ? e.reason._tag
    : Schema.isSchemaError(e)
      ? `a row does not fit its schema: ${e.message.replace(/\s*\n\s*/g, " ")}`
      : "the statement returned no row"

/**
 * Storage failures become the chain's `rpc_unavailable`, as an RPC outage (or a node answering
 * garbage) would: a failed statement, a row outside its schema, a row missing. Other failures
 * pass through.
 */
export const orUnavailable =
  (chain: string, operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, StorageFailure> | ChainGateway.ChainError, R> =>
    Effect.mapError(self, (e) =>
      isStorageFailure(e) ? chainError(chain, "rpc_unavailable", `${operation}: ${describe(e)}`) : e
    ) as Effect.Effect<A, Exclude<E, StorageFailure> | ChainGateway.ChainError, R>
