/**
 * What a partner asks to lock and the terms a quote prices and its contract locks: the same
 * columns in `quotes` and `contracts` and the same fields in `QuoteRecord` and `ContractRecord`,
 * named and mapped once for both row modules.
 */
import { Corridor, type Quote, QuoteRequest, Rail } from "@ratelock/core"
import { Schema } from "effect"
import { decimal, decimalOrNull, Numeric, numeric, numericOrNull, Timestamp, timestamp, utc } from "./columns.ts"

/** The columns (spread into both row schemas through `.fields`). */
export const LockTermsColumns = Schema.Struct({
  contract_type: QuoteRequest.ContractType,
  direction: Corridor.Direction,
  notional_currency: Corridor.NotionalCurrency,
  notional_amount: Numeric,
  premium_amount: Numeric,
  deposit_amount: Schema.NullOr(Numeric),
  total_amount: Numeric,
  max_transaction_amount: Numeric,
  window_start: Timestamp,
  window_end: Timestamp,
  chain: Rail.Chain,
  settlement_currency: Rail.SettlementCurrency
})

/** The fields, as both records type them (core's two groups, spread into both). */
type LockTerms = Schema.Struct.Type<typeof QuoteRequest.lockTermFields & typeof Quote.pricedTermFields>

/** The columns the terms are written as. */
export const lockTermsRow = (t: LockTerms): typeof LockTermsColumns.Type => ({
  contract_type: t.contractType,
  direction: t.direction,
  notional_currency: t.notionalCurrency,
  notional_amount: numeric(t.notionalAmount),
  premium_amount: numeric(t.premiumAmount),
  deposit_amount: numericOrNull(t.depositAmount),
  total_amount: numeric(t.totalAmount),
  max_transaction_amount: numeric(t.maxTransactionAmount),
  window_start: timestamp(t.windowStart),
  window_end: timestamp(t.windowEnd),
  chain: t.chain,
  settlement_currency: t.settlementCurrency
})

/** The terms a row holds. */
export const lockTermsOf = (r: typeof LockTermsColumns.Type): LockTerms => ({
  contractType: r.contract_type,
  direction: r.direction,
  notionalCurrency: r.notional_currency,
  notionalAmount: decimal(r.notional_amount),
  premiumAmount: decimal(r.premium_amount),
  depositAmount: decimalOrNull(r.deposit_amount),
  totalAmount: decimal(r.total_amount),
  maxTransactionAmount: decimal(r.max_transaction_amount),
  windowStart: utc(r.window_start),
  windowEnd: utc(r.window_end),
  chain: r.chain,
  settlementCurrency: r.settlement_currency
})
