/**
 * A quote: the wire response (`QuoteResponse`) and the record the service keeps, as a schema.
 */
import { Schema } from "effect"
import type { DateTime } from "effect"
import { Datetime, Uuid } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { PricingInputs } from "./PricingInputs.ts"
import { Chain, SettlementCurrency } from "../kernel/Rail.ts"
import { lockTermFields, StrikeMode } from "./QuoteRequest.ts"
import { ownedFields } from "./Partner.ts"

export const QuoteStatus = Schema.Literals(["created", "failed"])
export type QuoteStatus = typeof QuoteStatus.Type

export const QuoteFailureCode = Schema.Literals([
  "no_market_parameters",
  "provider_rate_off_market",
  "market_rate_off_reference",
  "custom_strike_off_market",
  /** No longer given: quotes refused before corridor limits carry it (now `corridor_capacity_exceeded`). */
  "notional_above_limit",
  /** The lock would breach a corridor limit: `max_lock_notional`, `max_open_notional` or `max_net_delta`. */
  "corridor_capacity_exceeded",
  "unsupported_settlement_rail",
  /** Production: no market data snapshot within the maximum age (market-data.md, Freshness). */
  "market_data_stale"
])
export type QuoteFailureCode = typeof QuoteFailureCode.Type

/**
 * The terms a quote prices and its contract locks, under the same names in `QuoteRecord` and
 * `ContractRecord`: what the lock costs, the most it covers, its window and its rail.
 */
export const pricedTermFields = {
  premiumAmount: Schema.BigDecimal,
  depositAmount: Schema.NullOr(Schema.BigDecimal),
  totalAmount: Schema.BigDecimal,
  maxTransactionAmount: Schema.BigDecimal,
  windowStart: Schema.DateTimeUtc,
  windowEnd: Schema.DateTimeUtc,
  chain: Chain,
  settlementCurrency: SettlementCurrency
}

export const FailureReason = Schema.Struct({ code: QuoteFailureCode, message: Schema.String })
export type FailureReason = typeof FailureReason.Type

export const QuoteResponse = Schema.Struct({
  id: Uuid,
  status: QuoteStatus,
  locked_rate: Money.DecimalString,
  strike_mode: Schema.optionalKey(StrikeMode),
  target_strike: Schema.optionalKey(Schema.NullOr(Money.DecimalString)),
  strike_advantage_bps: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  provider_extra_spread: Schema.optionalKey(Schema.NullOr(Money.DecimalString)),
  premium_amount: Money.DecimalString,
  deposit_amount: Schema.optionalKey(Schema.NullOr(Money.DecimalString)),
  total_amount: Money.DecimalString,
  window_start: Datetime,
  window_end: Datetime,
  chain: Chain,
  settlement_currency: SettlementCurrency,
  expires_at: Datetime,
  created_at: Datetime,
  /** Beyond the spec (api-decisions.md): why pricing failed, on `status: failed` only. */
  failure_reason: Schema.optionalKey(FailureReason)
}).annotate({ identifier: "QuoteResponse" })
export type QuoteResponse = typeof QuoteResponse.Type

/** What the service stores for a quote: the priced fields plus the request context. */
export const QuoteRecord = Schema.Struct({
  ...ownedFields,
  customerReferenceId: Schema.String,
  customerName: Schema.String,
  ...lockTermFields,
  providerRate: Schema.BigDecimal,
  marketRate: Schema.BigDecimal,
  marketRateTimestamp: Schema.DateTimeUtc,
  strikeMode: StrikeMode,
  targetStrike: Schema.NullOr(Schema.BigDecimal),
  providerExtraSpread: Schema.BigDecimal,
  status: QuoteStatus,
  failureReason: Schema.NullOr(FailureReason),
  lockedRate: Schema.BigDecimal,
  strikeAdvantageBps: Schema.Int,
  ...pricedTermFields,
  expiresAt: Schema.DateTimeUtc,
  createdAt: Schema.DateTimeUtc,
  /** Set when a contract was created from it. */
  acceptedAt: Schema.NullOr(Schema.DateTimeUtc),
  /** The market snapshot that priced it (`MarketSnapshotRepo`); null when it failed before pricing. */
  snapshotId: Schema.NullOr(Schema.String),
  /** The model inputs the engine took, to reprice it exactly; null when it failed before pricing. */
  pricingInputs: Schema.NullOr(PricingInputs)
}).annotate({ identifier: "QuoteRecord" })
export type QuoteRecord = typeof QuoteRecord.Type

/**
 * The status a partner sees: a priced quote that expired without a contract reads `failed`
 * (api-decisions.md), whatever is stored.
 */
export const visibleStatus = (quote: QuoteRecord, now: DateTime.Utc): QuoteStatus =>
  quote.status === "created" && quote.acceptedAt === null && now.epochMilliseconds >= quote.expiresAt.epochMilliseconds
    ? "failed"
    : quote.status

/**
 * The priced terms under their wire names, as `QuoteResponse` and `FxContractResponse` both give
 * them (the contract's `max_transaction_amount` stands apart, after its other fields).
 */
export const pricedTermsResponse = (t: Omit<Schema.Struct.Type<typeof pricedTermFields>, "maxTransactionAmount">) => ({
  premium_amount: t.premiumAmount,
  deposit_amount: t.depositAmount,
  total_amount: t.totalAmount,
  window_start: t.windowStart,
  window_end: t.windowEnd,
  chain: t.chain,
  settlement_currency: t.settlementCurrency
})

export const toResponse = (quote: QuoteRecord, now: DateTime.Utc): QuoteResponse => ({
  id: quote.id,
  status: visibleStatus(quote, now),
  locked_rate: quote.lockedRate,
  strike_mode: quote.strikeMode,
  target_strike: quote.targetStrike,
  strike_advantage_bps: quote.strikeAdvantageBps,
  provider_extra_spread: quote.providerExtraSpread,
  ...pricedTermsResponse(quote),
  expires_at: quote.expiresAt,
  created_at: quote.createdAt,
  ...(quote.failureReason === null ? {} : { failure_reason: quote.failureReason })
})
