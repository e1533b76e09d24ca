/**
 * The book as the risk revaluation reads it (risk.md, What is in the book): the service's contracts, whatever
 * their status, and the payouts of exercised ones. A `ContractRecord` and a `PayoutRecord` are what a store
 * returns; the revaluation needs only the fields picked here, so a partner team can build a book of its own.
 *
 * - Open locks: `active` contracts, valued as short window puts.
 * - Committed, not yet funded: `quote_created` and `funds_in_route` (`Contract.awaitingFunds`), reported apart.
 * - Payouts due: `exercised` contracts (not yet settled), a fixed amount in their payout token.
 * - Everything else (settled, expired, failed, defaulted, deposit forfeited) is no longer the service's risk.
 */
import type { ContractRecord } from "../../terms/Contract.ts"
import { isAwaitingFunds } from "../../terms/Contract.ts"
import { type Direction, marketPair, marketPairKey } from "../../kernel/Corridor.ts"
import * as Money from "../../kernel/Money.ts"
import type { Environment } from "../../terms/Partner.ts"
import type { PayoutRecord } from "../../lifecycle/PayoutRepo.ts"
import * as Settlement from "../../terms/Settlement.ts"

export type BookContract = Pick<
  ContractRecord,
  | "id"
  | "partnerId"
  | "environment"
  | "status"
  | "direction"
  | "notionalCurrency"
  | "notionalAmount"
  | "maxTransactionAmount"
  | "lockedRate"
  | "windowStart"
  | "windowEnd"
  | "chain"
  | "exercise"
>

export type BookPayout = Pick<PayoutRecord, "contractId" | "chain" | "currency" | "amount" | "status">

export interface Book {
  /** Every contract of the environments to report (any status; those not at risk are left out). */
  readonly contracts: ReadonlyArray<BookContract>
  /** The payouts of exercised contracts, where the payout pass has made one (absent: computed from the exercise). */
  readonly payouts?: ReadonlyArray<BookPayout> | undefined
}

export type Standing = "open" | "committed" | "payout_due" | "closed"

/** Where a contract stands in the book. */
export const standing = (contract: Pick<ContractRecord, "status">): Standing => {
  if (contract.status === "active") return "open"
  if (isAwaitingFunds(contract.status)) return "committed"
  if (contract.status === "exercised") return "payout_due"
  return "closed"
}

/**
 * One lock as the model revalues it: plain data (numbers and strings, so that a host may send slices of the
 * book to worker threads), the notional and strike as model floats.
 */
export interface LockTerms {
  readonly id: string
  readonly partnerId: string
  readonly environment: Environment
  readonly direction: Direction
  /** The market pair in its usual order (`USD/BRL` for `BRL_TO_USD`). */
  readonly pair: string
  /** `true` when the direction is the inverse of the pair (`BRL_TO_USD` on USD/BRL). */
  readonly inverted: boolean
  /** `N_b`, in the direction's BASE units: what the put is on (`Settlement.notionalBase`). */
  readonly notionalBase: number
  /** The locked rate K, the direction's QUOTE per 1 BASE. */
  readonly strike: number
  /** Epoch milliseconds. */
  readonly windowStart: number
  readonly windowEnd: number
}

/** What `lockTerms` reads: a contract's, or a quote's (a `QuoteRecord` has them too, for a lock not yet made). */
export type Terms = Omit<BookContract, "status" | "chain" | "exercise">

/** A lock's terms for the model: `N_b` is `Settlement.notionalBaseModel` (what a payout is paid on). */
export const lockTerms = (contract: Terms): LockTerms => ({
  id: contract.id,
  partnerId: contract.partnerId,
  environment: contract.environment,
  direction: contract.direction,
  pair: marketPairKey(contract.direction),
  inverted: marketPair(contract.direction).inverted,
  notionalBase: Settlement.notionalBaseModel(contract),
  strike: Money.toModel(contract.lockedRate),
  windowStart: contract.windowStart.epochMilliseconds,
  windowEnd: contract.windowEnd.epochMilliseconds
})

/** The terms of the book's open locks in `environments`, in the book's order. */
export const openLocks = (book: Book, environments: ReadonlyArray<Environment>): ReadonlyArray<LockTerms> =>
  book.contracts.filter((c) => standing(c) === "open" && environments.includes(c.environment)).map(lockTerms)

/**
 * `N_b` in the pair's BASE: as it is for a direction in the pair's order, at the locked rate for an inverted
 * one (`N_b` BRL of a `BRL_TO_USD` lock is `N_b × K` USD).
 */
export const pairNotional = (lock: Pick<LockTerms, "inverted" | "notionalBase" | "strike">): number =>
  lock.inverted ? lock.notionalBase * lock.strike : lock.notionalBase
