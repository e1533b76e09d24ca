/**
 * Persistence port for contracts. A transition is committed as one unit with its history entry,
 * its outbound event (transactional outbox), its ledger entries, the inbound event that caused it
 * and the funding transfer it counted, guarded by the contract's version (compare-and-set).
 */
import { Context, Schema } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { CorridorCapacityExceeded, QuoteAlreadyAccepted } from "../kernel/ApiError.ts"
import { type ContractRecord, ContractStatus } from "../terms/Contract.ts"
import type { Position } from "../kernel/Cursor.ts"
import type { IncomingEvent, OutgoingEvent } from "./EventRepo.ts"
import type { Claim } from "../kernel/Lease.ts"
import type { LedgerEntry } from "./Ledger.ts"
import { Environment, type PartnerScope } from "../terms/Partner.ts"
import { Chain, SettlementCurrency } from "../kernel/Rail.ts"
import type { StaleContract, StoreError } from "../kernel/StoreError.ts"

/** The version a change was computed from: the number of history entries. */
export const version = (contract: ContractRecord): number => contract.history.length

/**
 * Where a confirmed transfer stands on its chain: a transfer is unique by chain, transaction and
 * log/instruction index, whether it is counted (`FundingTransfer`) or recorded (`UnmatchedTransfer`).
 */
const onChainFields = {
  chain: Chain,
  transactionHash: Schema.String,
  index: Schema.Int,
  blockNumber: Schema.Int
}

/** A confirmed funding transfer, counted once. */
export const FundingTransfer = Schema.Struct({
  ...onChainFields,
  amount: Schema.BigDecimal
}).annotate({ identifier: "FundingTransfer" })
export type FundingTransfer = typeof FundingTransfer.Type

/** Why a confirmed transfer into a funding address did not fund its contract. */
export const UnmatchedReason = Schema.Literals(["not_awaiting_funds", "wrong_token"])
export type UnmatchedReason = typeof UnmatchedReason.Type

/** How an unmatched transfer's amount is written: an exact decimal in tokens, or raw base units. */
export const UnmatchedUnit = Schema.Literals(["token", "base_units"])
export type UnmatchedUnit = typeof UnmatchedUnit.Type

/**
 * A confirmed transfer into a contract's funding address that did not fund it: the settlement
 * token after the contract stopped awaiting funds, or another token. Recorded once by (chain,
 * transaction, index) so an operator can refund it; it never changes the contract.
 */
export const UnmatchedTransfer = Schema.Struct({
  contractId: Schema.String,
  partnerId: Schema.String,
  environment: Environment,
  ...onChainFields,
  /** The settlement currency code (e.g. `USDC`), or the other token's contract address / mint. */
  token: Schema.String,
  /** An exact decimal in tokens (`unit: "token"`), or raw base units whose decimals may be unknown. */
  amount: Schema.String,
  unit: UnmatchedUnit,
  reason: UnmatchedReason,
  /** The contract's status when the transfer was observed. */
  contractStatus: ContractStatus,
  observedAt: Schema.DateTimeUtc
}).annotate({ identifier: "UnmatchedTransfer" })
export type UnmatchedTransfer = typeof UnmatchedTransfer.Type

export interface UnmatchedFilter {
  readonly contractId?: string | undefined
  /** Only transfers of this transaction (EVM hashes compared without case): an operator names one by its hash. */
  readonly transactionHash?: string | undefined
  readonly limit: number
}

export interface ContractChange {
  readonly contract: ContractRecord
  /** `version(before)`: the commit fails with `StaleContract` if the stored contract moved on. */
  readonly expectedVersion: number
  readonly outgoing: OutgoingEvent | null
  readonly incoming: IncomingEvent | null
  readonly transfer: FundingTransfer | null
  readonly ledger: ReadonlyArray<LedgerEntry>
  /**
   * Where the contract's funding watch continues, saved with the commit: the transfer it counts
   * and the cursor past it are written together (a separate write would cost another round trip).
   */
  readonly fundingCursor?: string | undefined
}

/**
 * What a funding pass needs of a contract awaiting funds, without its history: where to look, in
 * which token, and from where the last observation left off.
 */
export const FundingWatch = Schema.Struct({
  contractId: Schema.String,
  partnerId: Schema.String,
  status: ContractStatus,
  environment: Environment,
  chain: Chain,
  token: SettlementCurrency,
  address: Schema.String,
  cursor: Schema.NullOr(Schema.String),
  createdAt: Schema.DateTimeUtc
}).annotate({ identifier: "FundingWatch" })
export type FundingWatch = typeof FundingWatch.Type

/** The statuses a funding pass watches (`Contract.awaitingFunds`). */
export { awaitingFunds } from "../terms/Contract.ts"

/** A contract's funding watch, given where its observation left off. */
export const fundingWatch = (contract: ContractRecord, cursor: string | null): FundingWatch => ({
  contractId: contract.id,
  partnerId: contract.partnerId,
  status: contract.status,
  environment: contract.environment,
  chain: contract.chain,
  token: contract.settlementCurrency,
  address: contract.fundingWalletAddress,
  cursor,
  createdAt: contract.createdAt
})

export interface LockFilter {
  readonly status?: ContractStatus | undefined
  readonly limit: number
  readonly after?: Position | undefined
}

export interface ContractRepoShape {
  /**
   * Inserts a new contract and marks its quote accepted, atomically; a second contract for a quote fails.
   * In the same step, a contract in a holding status adds its `CorridorLimit.lockNotional` to its
   * corridor's open notional, or fails with `CorridorCapacityExceeded` when that would breach a limit
   * set on the corridor (`CorridorLimit.breached`; the default `max_lock_notional` is the quote's check).
   */
  readonly insert: (
    contract: ContractRecord
  ) => Effect.Effect<void, QuoteAlreadyAccepted | CorridorCapacityExceeded | StoreError>
  readonly find: (scope: PartnerScope, id: string) => Effect.Effect<Option.Option<ContractRecord>, StoreError>
  /** Unscoped read for the workers. */
  readonly findById: (id: string) => Effect.Effect<Option.Option<ContractRecord>, StoreError>
  readonly findByQuote: (
    scope: PartnerScope,
    quoteId: string
  ) => Effect.Effect<Option.Option<ContractRecord>, StoreError>
  /** At most `filter.limit` contracts of one customer, newest first by `(created_at, id)`. */
  readonly listByCustomer: (
    scope: PartnerScope,
    customerReferenceId: string,
    filter: LockFilter
  ) => Effect.Effect<ReadonlyArray<ContractRecord>, StoreError>
  /**
   * Commits a transition. It fails with `StaleContract` when the stored version moved on, when the
   * transfer was already counted, or when the incoming event's Idempotency-Key is already recorded.
   * A transition into or out of a holding status moves its corridor's open notional in the same
   * step (`CorridorLimit.transitionUsage`).
   */
  readonly commit: (change: ContractChange) => Effect.Effect<void, StaleContract | StoreError>
  /**
   * Contracts in one of `statuses`, oldest first by `(created_at, id)`, strictly after `after`:
   * workers page through all of them, so rows that stay (a payout given up on) never starve newer ones.
   */
  readonly listByStatus: (
    statuses: ReadonlyArray<ContractStatus>,
    limit: number,
    after?: Position
  ) => Effect.Effect<ReadonlyArray<ContractRecord>, StoreError>
  /**
   * Exercised contracts a payout pass has work for, oldest first by `(created_at, id)`, strictly
   * after `after`: those with no payout yet (to create) and those whose payout is confirmed (to
   * settle). One whose payout is pending, prepared or failed belongs to the chain pass or an
   * operator, so the pass does not read it again and again while it waits.
   */
  readonly listPayoutWork: (limit: number, after?: Position) => Effect.Effect<ReadonlyArray<ContractRecord>, StoreError>
  /** Claims `active` contracts whose window ended before `claim.now` (a commit releases the lease). */
  readonly claimDueForExpiry: (claim: Claim) => Effect.Effect<ReadonlyArray<ContractRecord>, StoreError>
  /** Claims unfunded contracts whose funding deadline passed before `claim.now`. */
  readonly claimDueForFundingDeadline: (claim: Claim) => Effect.Effect<ReadonlyArray<ContractRecord>, StoreError>
  /** The ledger entries booked for a contract, in booking order. */
  readonly ledgerEntries: (contractId: string) => Effect.Effect<ReadonlyArray<LedgerEntry>, StoreError>
  /** The next never-used HD index for funding addresses on `chain` in an environment. */
  readonly allocateFundingIndex: (scope: {
    readonly chain: Chain
    readonly environment: string
  }) => Effect.Effect<number, StoreError>
  /**
   * Contracts awaiting funds (`quote_created`, `funds_in_route`) as funding watches, oldest first
   * by `(created_at, id)`, at most `limit` after `after`: one light read per page for a funding pass.
   */
  readonly listFundingWatches: (
    limit: number,
    after?: Position
  ) => Effect.Effect<ReadonlyArray<FundingWatch>, StoreError>
  /**
   * Contracts no longer awaiting funds whose last transition is at or after `since`, as funding
   * watches, oldest first by `(created_at, id)`: their addresses are still watched for a while, so
   * funds sent late are recorded for refund.
   */
  readonly listLateFundingWatches: (
    since: DateTime.Utc,
    limit: number,
    after?: Position
  ) => Effect.Effect<ReadonlyArray<FundingWatch>, StoreError>
  /** Where funding observation of a contract resumes (block number / slot / signature), opaque to core. */
  readonly saveFundingCursor: (contractId: string, cursor: string) => Effect.Effect<void, StoreError>
  readonly fundingCursor: (contractId: string) => Effect.Effect<Option.Option<string>, StoreError>
  /**
   * Records a transfer that did not fund its contract. Idempotent: one row per (chain, transaction,
   * index); a transfer a commit already counted is funding, not unmatched, and is not recorded.
   */
  readonly recordUnmatchedTransfer: (transfer: UnmatchedTransfer) => Effect.Effect<void, StoreError>
  /**
   * At most `filter.limit` unmatched transfers (of one contract, or all), oldest first by
   * `(observedAt, blockNumber, index, transactionHash)`.
   */
  readonly unmatchedTransfers: (filter: UnmatchedFilter) => Effect.Effect<ReadonlyArray<UnmatchedTransfer>, StoreError>
  /**
   * The counted funding transfers with this transaction hash (any chain; EVM hashes compared
   * without case), and this log/instruction index when given, with the contract each funded: an
   * operator names a transfer by its hash.
   */
  readonly fundingTransfersByHash: (
    transactionHash: string,
    index?: number
  ) => Effect.Effect<ReadonlyArray<CountedTransfer>, StoreError>
}

/** A counted funding transfer and the contract it funded. */
export interface CountedTransfer {
  readonly contractId: string
  readonly chain: Chain
  readonly transactionHash: string
  readonly index: number
}

export class ContractRepo extends Context.Service<ContractRepo, ContractRepoShape>()("@ratelock/core/ContractRepo") {}
