/**
 * Persistence port for payouts. One payout per contract (a unique key): the row, with the signed
 * transaction the chain adapter prepared, is written before anything is broadcast, so a payout is
 * sent at most once whatever crashes.
 */
import { Context, Schema } from "effect"
import type { Effect, Option } from "effect"
import type { Claim } from "../kernel/Lease.ts"
import { Environment } from "../terms/Partner.ts"
import { Chain, FundsCurrency } from "../kernel/Rail.ts"
import type { StoreError } from "../kernel/StoreError.ts"

/**
 * `pending`: computed, nothing signed yet. `prepared`: signed transaction persisted; it may or may
 * not have reached the chain. `confirmed`. `failed`: given up after the retry schedule, an
 * operator takes over.
 */
export const PayoutStatus = Schema.Literals(["pending", "prepared", "confirmed", "failed"])
export type PayoutStatus = typeof PayoutStatus.Type

/** A payout as the service keeps it (stores decode their rows into it). */
export const PayoutRecord = Schema.Struct({
  id: Schema.String,
  contractId: Schema.String,
  partnerId: Schema.String,
  environment: Environment,
  chain: Chain,
  currency: FundsCurrency,
  destination: Schema.String,
  amount: Schema.BigDecimal,
  fxDeltaInQuoteCurrency: Schema.BigDecimal,
  status: PayoutStatus,
  /** The chain adapter's persisted transaction (bytes, nonce / blockhash), opaque to core. */
  prepared: Schema.NullOr(Schema.String),
  transactionHash: Schema.NullOr(Schema.String),
  blockNumber: Schema.NullOr(Schema.Int),
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  nextAttemptAt: Schema.DateTimeUtc,
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}).annotate({ identifier: "PayoutRecord" })
export type PayoutRecord = typeof PayoutRecord.Type

/** What a compare-and-set update expects to find. */
export type Expected = Pick<PayoutRecord, "status" | "updatedAt">

/** A second payout for the same contract: the first one stands. */
export class PayoutExists extends Schema.TaggedError<PayoutExists>()("PayoutExists", { contractId: Schema.String }) {}

export interface PayoutRepoShape {
  readonly insert: (payout: PayoutRecord) => Effect.Effect<void, PayoutExists | StoreError>
  readonly findByContract: (contractId: string) => Effect.Effect<Option.Option<PayoutRecord>, StoreError>
  /** The payouts of these contracts (those that have one), in one read: a worker pass's page at once. */
  readonly findByContracts: (
    contractIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<PayoutRecord>, StoreError>
  /**
   * Saves the payout and releases its lease, only if the stored row is still `expected` (same
   * status and `updatedAt`): a worker whose lease ran out cannot overwrite the work of the one that
   * took over. Answers whether it was written.
   */
  readonly update: (payout: PayoutRecord, expected: Expected) => Effect.Effect<boolean, StoreError>
  /** Claims payouts not yet confirmed or failed whose next attempt is due at `claim.now`, oldest first. */
  readonly claimDue: (claim: Claim) => Effect.Effect<ReadonlyArray<PayoutRecord>, StoreError>
}

export class PayoutRepo extends Context.Service<PayoutRepo, PayoutRepoShape>()("@ratelock/core/PayoutRepo") {}
