/**
 * Persistence port for the treasury's movements and its ledger. A movement is a transfer Ratelock
 * makes of its own accord: a **sweep** of a funding address's whole balance into the hot wallet or
 * the treasury, or a **refund** from the hot wallet to a partner's refund address (a forward's
 * deposit, a surplus or a defaulted contract's partial funds, an unmatched transfer).
 *
 * As payouts: one row per movement's `key` (a second is refused), every signed version persisted
 * on it before it is broadcast (`recordSigned`, sharing the hot wallet's nonces with the payouts),
 * claimed with a lease, written compare-and-set; confirming it books its ledger entries in the same
 * write (`confirm`).
 */
import { Context, Schema } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { Claim } from "../kernel/Lease.ts"
import type { Decimal } from "../kernel/Money.ts"
import { Chain, SettlementCurrency } from "../kernel/Rail.ts"
import type { StoreError } from "../kernel/StoreError.ts"
import { ContractStatus } from "../terms/Contract.ts"
import { Environment } from "../terms/Partner.ts"
import { PayoutWait } from "../terms/PayoutWait.ts"
import type { NonceAccount, PreparedPayout } from "./ChainGateway.ts"
import { unsigned } from "./PayoutRepo.ts"
import type { TreasuryAccount, TreasuryCurrency, TreasuryEntry } from "./TreasuryLedger.ts"

export const MovementKind = Schema.Literals(["sweep", "refund"])
export type MovementKind = typeof MovementKind.Type

/**
 * Why it moves. A sweep: `hot_wallet` (below its float) or `treasury`. A refund: `deposit` (a
 * forward's, once its payout settled), `surplus` (funds received beyond what the contract needed,
 * or a defaulted contract's partial funds), `unmatched` (a transfer that funded nothing).
 */
export const MovementPurpose = Schema.Literals(["hot_wallet", "treasury", "deposit", "surplus", "unmatched"])
export type MovementPurpose = typeof MovementPurpose.Type

/** As a payout's: `pending` (nothing signed), `prepared` (signed and persisted), `confirmed`, `failed` (an operator's). */
export const MovementStatus = Schema.Literals(["pending", "prepared", "confirmed", "failed"])
export type MovementStatus = typeof MovementStatus.Type

/**
 * Why a movement has not landed: a payout's waits, or `no_refund_address` (the partner has none
 * on the chain: it waits, listed, until an operator sets one) and `watch_only` (the funding keys
 * are not held: only an xpub is configured, so nothing can sign a sweep).
 */
export const MovementWait = Schema.Union([PayoutWait, Schema.Literals(["no_refund_address", "watch_only"])])
export type MovementWait = typeof MovementWait.Type

export const Movement = Schema.Struct({
  id: Schema.String,
  kind: MovementKind,
  purpose: MovementPurpose,
  /** Unique: `deposit:<contract>`, `transfer:<chain>:<hash>:<index>`, `sweep:<id>`. A second movement with it is refused. */
  key: Schema.String,
  contractId: Schema.String,
  partnerId: Schema.String,
  environment: Environment,
  chain: Chain,
  currency: SettlementCurrency,
  /** A sweep: the funding address, and the HD index its key derives from. A refund: null (the hot wallet). */
  source: Schema.NullOr(Schema.String),
  fundingIndex: Schema.NullOr(Schema.Int),
  /** A sweep: the treasury address, or null for the hot wallet. A refund: the address, null until known. */
  destination: Schema.NullOr(Schema.String),
  amount: Schema.BigDecimal,
  status: MovementStatus,
  prepared: Schema.NullOr(Schema.String),
  transactionHash: Schema.NullOr(Schema.String),
  nonce: Schema.NullOr(Schema.Int),
  waiting: Schema.NullOr(MovementWait),
  replacements: Schema.Int,
  blockNumber: Schema.NullOr(Schema.Int),
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  /** Who asked for it: `worker` for the passes, or the operator's actor for `funds refund`. */
  requestedBy: Schema.String,
  nextAttemptAt: Schema.DateTimeUtc,
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}).annotate({ identifier: "Movement" })
export type Movement = typeof Movement.Type

/** A movement to record, nothing signed yet, due at `now`. */
export const newMovement = (
  fields: Omit<Movement, keyof typeof unsigned | "nextAttemptAt" | "createdAt" | "updatedAt">,
  now: DateTime.Utc
): Movement => ({ ...fields, ...unsigned, nextAttemptAt: now, createdAt: now, updatedAt: now })

/** What a compare-and-set write expects to find. */
export type Expected = Pick<Movement, "status" | "updatedAt">

/** The movement as `recordSigned` writes it once signed at `nonce`. */
export const signedMovement = (movement: Movement, prepared: PreparedPayout, nonce: number | null): Movement => ({
  ...movement,
  prepared: prepared.persisted,
  transactionHash: prepared.transactionHash,
  nonce
})

/**
 * A second movement with the same key, or a second sweep in flight (pending or prepared) of one
 * funding address: the first one stands.
 */
export class MovementExists extends Schema.TaggedError<MovementExists>()("MovementExists", { key: Schema.String }) {}

/**
 * A funding address's token balance by the books: the contract's `funding_wallet` (funds
 * received) plus the treasury ledger's at that address (unmatched funds in, sweeps out). Only
 * addresses whose balance is not zero.
 */
export const FundingBalance = Schema.Struct({
  contractId: Schema.String,
  partnerId: Schema.String,
  address: Schema.String,
  fundingIndex: Schema.NullOr(Schema.Int),
  currency: SettlementCurrency,
  status: ContractStatus,
  balance: Schema.BigDecimal,
  /** A sweep of the address is pending or prepared. */
  sweeping: Schema.Boolean
}).annotate({ identifier: "FundingBalance" })
export type FundingBalance = typeof FundingBalance.Type

/** A wallet account's balance by the books (the hot wallet, the treasury), per currency. */
export interface WalletBalance {
  readonly account: Extract<TreasuryAccount, "payout_wallet" | "treasury">
  /** The treasury's address; null for the hot wallet. */
  readonly address: string | null
  readonly currency: TreasuryCurrency
  readonly balance: Decimal
}

export interface RailScope {
  readonly environment: Environment
  readonly chain: Chain
}

export interface MovementRepoShape {
  readonly insert: (movement: Movement) => Effect.Effect<void, MovementExists | StoreError>
  readonly findById: (id: string) => Effect.Effect<Option.Option<Movement>, StoreError>
  readonly findByKey: (key: string) => Effect.Effect<Option.Option<Movement>, StoreError>
  /** Compare-and-set over `expected`, releasing the lease; a movement written without a nonce frees the one it held. */
  readonly update: (movement: Movement, expected: Expected) => Effect.Effect<boolean, StoreError>
  /** As `PayoutRepo.recordSigned`: the nonce allocated from the same hot wallet's, inside the transaction. */
  readonly recordSigned: <E>(
    movement: Movement,
    expected: Expected,
    nonceAccount: NonceAccount | null,
    sign: (nonce: number | null) => Effect.Effect<PreparedPayout, E>
  ) => Effect.Effect<Option.Option<Movement>, E | StoreError>
  /**
   * Marks the movement confirmed over `expected` and books `entries` (balanced per currency, under
   * their source) in one transaction. False, with nothing booked, when the row had moved.
   */
  readonly confirm: (
    movement: Movement,
    expected: Expected,
    entries: ReadonlyArray<TreasuryEntry>
  ) => Effect.Effect<boolean, StoreError>
  /**
   * Books entries, of one source or several, each source only unless it is booked already (each
   * source's entries balance per currency): how many sources were booked now.
   */
  readonly book: (entries: ReadonlyArray<TreasuryEntry>) => Effect.Effect<number, StoreError>
  /** Movements due at `claim.now` (pending or prepared), oldest first, leased to the claimer. */
  readonly claimDue: (claim: Claim) => Effect.Effect<ReadonlyArray<Movement>, StoreError>
  /** Newest first: an operator's list. */
  readonly list: (query: {
    readonly kinds?: ReadonlyArray<MovementKind> | undefined
    readonly statuses?: ReadonlyArray<MovementStatus> | undefined
    readonly environment?: Environment | undefined
    readonly since?: DateTime.Utc | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<Movement>, StoreError>
  /** The exact sum of the refunds signed and not confirmed on a rail: what they draw on the hot wallet. */
  readonly committed: (
    rail: RailScope & { readonly currency: SettlementCurrency }
  ) => Effect.Effect<Decimal, StoreError>
  /** Every funding address of the rail whose balance by the books is not zero. */
  readonly fundingBalances: (rail: RailScope) => Effect.Effect<ReadonlyArray<FundingBalance>, StoreError>
  /** The hot wallet's and the treasury's balances by the books, per currency (contracts' payouts included). */
  readonly walletBalances: (rail: RailScope) => Effect.Effect<ReadonlyArray<WalletBalance>, StoreError>
  /** Every treasury entry booked under `source`, in booking order. */
  readonly entriesOf: (source: string) => Effect.Effect<ReadonlyArray<TreasuryEntry>, StoreError>
  /** Treasury entries booked at or after `since` (an environment's only, when given). */
  readonly entriesSince: (query: {
    readonly since: DateTime.Utc
    readonly environment?: Environment | undefined
  }) => Effect.Effect<ReadonlyArray<TreasuryEntry>, StoreError>
}

export class MovementRepo extends Context.Service<MovementRepo, MovementRepoShape>()("@ratelock/core/MovementRepo") {}
