/**
 * A quote: the wire response (`QuoteResponse`) and the record the service keeps.
 */
import { Schema } from "effect"
import type { DateTime } from "effect"
import type { Direction, NotionalCurrency } from "./Corridor.ts"
import { Datetime, Uuid } from "./Fields.ts"
import * as Money from "./Money.ts"
import { Chain, SettlementCurrency } from "./Rail.ts"
import { type ContractType, StrikeMode } from "./QuoteRequest.ts"
import type { Environment } from "./Partner.ts"

export const QuoteStatus = Schema.Literals(["created", "failed"])
export type QuoteStatus = typeof QuoteStatus.Type

export const QuoteFailureCode = Schema.Literals([
  "no_market_parameters",
  "provider_rate_off_market",
  "market_rate_off_reference",
  "custom_strike_off_market",
  "notional_above_limit",
  "unsupported_settlement_rail"
])
export type QuoteFailureCode = typeof QuoteFailureCode.Type

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
export interface QuoteRecord {
  readonly id: string
  readonly partnerId: string
  readonly environment: Environment
  readonly customerReferenceId: string
  readonly customerName: string
  readonly contractType: ContractType
  readonly direction: Direction
  readonly notionalCurrency: NotionalCurrency
  readonly notionalAmount: Money.Decimal
  readonly providerRate: Money.Decimal
  readonly marketRate: Money.Decimal
  readonly marketRateTimestamp: DateTime.Utc
  readonly strikeMode: StrikeMode
  readonly targetStrike: Money.Decimal | null
  readonly providerExtraSpread: Money.Decimal
  readonly status: QuoteStatus
  readonly failureReason: FailureReason | null
  readonly lockedRate: Money.Decimal
  readonly strikeAdvantageBps: number
  readonly premiumAmount: Money.Decimal
  readonly depositAmount: Money.Decimal | null
  readonly totalAmount: Money.Decimal
  readonly maxTransactionAmount: Money.Decimal
  readonly windowStart: DateTime.Utc
  readonly windowEnd: DateTime.Utc
  readonly chain: Chain
  readonly settlementCurrency: SettlementCurrency
  readonly expiresAt: DateTime.Utc
  readonly createdAt: DateTime.Utc
  /** Set when a contract was created from it. */
  readonly acceptedAt: DateTime.Utc | null
}

/**
 * The status a partner sees: a priced quote that expired without a contract reads `failed`
 * (api-decisions.md), whatever is stored.
 */
export const visibleStatus = (quote: QuoteRecord, now: DateTime.Utc): QuoteStatus =>
  quote.status === "created" && quote.acceptedAt === null && now.epochMilliseconds >= quote.expiresAt.epochMilliseconds
    ? "failed"
    : quote.status

export const toResponse = (quote: QuoteRecord, now: DateTime.Utc): QuoteResponse => ({
  id: quote.id,
  status: visibleStatus(quote, now),
  locked_rate: quote.lockedRate,
  strike_mode: quote.strikeMode,
  target_strike: quote.targetStrike,
  strike_advantage_bps: quote.strikeAdvantageBps,
  provider_extra_spread: quote.providerExtraSpread,
  premium_amount: quote.premiumAmount,
  deposit_amount: quote.depositAmount,
  total_amount: quote.totalAmount,
  window_start: quote.windowStart,
  window_end: quote.windowEnd,
  chain: quote.chain,
  settlement_currency: quote.settlementCurrency,
  expires_at: quote.expiresAt,
  created_at: quote.createdAt,
  ...(quote.failureReason === null ? {} : { failure_reason: quote.failureReason })
})
