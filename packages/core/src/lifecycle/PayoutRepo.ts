/**
 * Persistence port for payouts. One payout per contract (a unique key): the row, with the signed
 * transaction the chain adapter prepared, is written before anything is broadcast, so a payout is
 * sent at most once whatever crashes.
 */
import { Context, Schema } from "effect"
import type { Effect, Option } from "effect"
import type { Claim } from "../kernel/Lease.ts"
import type { Decimal } from "../kernel/Money.ts"
import { Environment } from "../terms/Partner.ts"
import { Chain, FundsCurrency } from "../kernel/Rail.ts"
import type { StoreError } from "../kernel/StoreError.ts"
import { PayoutWait } from "../terms/PayoutWait.ts"
import type { NonceAccount, PreparedPayout } from "./ChainGateway.ts"

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
  /** The chain adapter's persisted transactions (every version: bytes, nonce / blockhash), opaque to core. */
  prepared: Schema.NullOr(Schema.String),
  /** The latest version's hash; once settled, the hash of the version that was mined. */
  transactionHash: Schema.NullOr(Schema.String),
  /** EVM: the hot wallet's nonce the store allocated to it (every version shares it). */
  nonce: Schema.NullOr(Schema.Int),
  /** Why a signed payout has not landed yet, as the last pass found it. */
  waiting: Schema.NullOr(PayoutWait),
  /** Versions signed after the first: fee replacements, bumps, cancellations. */
  replacements: Schema.Int,
  blockNumber: Schema.NullOr(Schema.Int),
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  nextAttemptAt: Schema.DateTimeUtc,
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}).annotate({ identifier: "PayoutRecord" })
export type PayoutRecord = typeof PayoutRecord.Type

/**
 * A chain job nothing was signed for yet (a payout, a sweep, a refund): no transaction, no nonce,
 * no attempt, nothing it waits for.
 */
export const unsigned = {
  status: "pending",
  prepared: null,
  transactionHash: null,
  nonce: null,
  waiting: null,
  replacements: 0,
  blockNumber: null,
  attempts: 0,
  lastError: null
} as const

/** The payout as `recordSigned` writes it once `sign` answered `prepared` at `nonce`. */
export const signedRecord = (payout: PayoutRecord, prepared: PreparedPayout, nonce: number | null): PayoutRecord => ({
  ...payout,
  prepared: prepared.persisted,
  transactionHash: prepared.transactionHash,
  nonce
})

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
  /**
   * Signs the payout and records it over `expected` (compare-and-set) in one transaction. With a
   * nonce account, the nonce is allocated in that transaction (the lowest at or above its floor
   * that no recorded transaction of the account holds) and `sign` runs inside it, so concurrent
   * workers never sign two transactions with one nonce. The record written (`prepared`,
   * `transactionHash` and `nonce` from the signing), or none when the row had moved: then nothing
   * is kept, and the nonce stays free.
   */
  readonly recordSigned: <E>(
    payout: PayoutRecord,
    expected: Expected,
    nonceAccount: NonceAccount | null,
    sign: (nonce: number | null) => Effect.Effect<PreparedPayout, E>
  ) => Effect.Effect<Option.Option<PayoutRecord>, E | StoreError>
  /**
   * Payouts in these statuses, oldest first (an environment's only, and only those waiting for one
   * of `waiting`, when given): an operator's list.
   */
  readonly list: (query: {
    readonly statuses: ReadonlyArray<PayoutStatus>
    readonly environment?: Environment | undefined
    readonly waiting?: ReadonlyArray<PayoutWait> | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<PayoutRecord>, StoreError>
  /**
   * What the rail's hot wallet has promised: the exact sum of the amounts of its payouts signed
   * and not yet confirmed (status `prepared`, same environment, chain and currency), zero when
   * there are none. A payout mined but not yet at depth still counts until it is confirmed: a
   * draft that waits a little longer is safe, one signed without the funds reverts.
   */
  readonly committed: (rail: {
    readonly environment: Environment
    readonly chain: Chain
    readonly currency: FundsCurrency
  }) => Effect.Effect<Decimal, StoreError>
  /** Claims payouts not yet confirmed or failed whose next attempt is due at `claim.now`, oldest first. */
  readonly claimDue: (claim: Claim) => Effect.Effect<ReadonlyArray<PayoutRecord>, StoreError>
}

export class PayoutRepo extends Context.Service<PayoutRepo, PayoutRepoShape>()("@ratelock/core/PayoutRepo") {}
