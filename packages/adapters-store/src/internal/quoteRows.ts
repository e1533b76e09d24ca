/**
 * `quotes` rows ↔ `QuoteRecord`s.
 */
import type { Corridor, Quote, QuoteRequest, Partner, Rail } from "@ratelock/core"
import { decimal, decimalOrNull, numeric, numericOrNull, timestamp, timestampOrNull, utc, utcOrNull } from "./codec.ts"

export type QuoteRow = {
  readonly id: string
  readonly partner_id: string
  readonly environment: string
  readonly customer_reference_id: string
  readonly customer_name: string
  readonly contract_type: string
  readonly direction: string
  readonly notional_currency: string
  readonly notional_amount: string
  readonly provider_rate: string
  readonly market_rate: string
  readonly market_rate_timestamp: Date
  readonly strike_mode: string
  readonly target_strike: string | null
  readonly provider_extra_spread: string
  readonly status: string
  readonly failure_code: string | null
  readonly failure_message: string | null
  readonly locked_rate: string
  readonly strike_advantage_bps: number
  readonly premium_amount: string
  readonly deposit_amount: string | null
  readonly total_amount: string
  readonly max_transaction_amount: string
  readonly window_start: Date
  readonly window_end: Date
  readonly chain: string
  readonly settlement_currency: string
  readonly expires_at: Date
  readonly created_at: Date
  readonly accepted_at: Date | null
}

export const toRow = (q: Quote.QuoteRecord): QuoteRow => ({
  id: q.id,
  partner_id: q.partnerId,
  environment: q.environment,
  customer_reference_id: q.customerReferenceId,
  customer_name: q.customerName,
  contract_type: q.contractType,
  direction: q.direction,
  notional_currency: q.notionalCurrency,
  notional_amount: numeric(q.notionalAmount),
  provider_rate: numeric(q.providerRate),
  market_rate: numeric(q.marketRate),
  market_rate_timestamp: timestamp(q.marketRateTimestamp),
  strike_mode: q.strikeMode,
  target_strike: numericOrNull(q.targetStrike),
  provider_extra_spread: numeric(q.providerExtraSpread),
  status: q.status,
  failure_code: q.failureReason?.code ?? null,
  failure_message: q.failureReason?.message ?? null,
  locked_rate: numeric(q.lockedRate),
  strike_advantage_bps: q.strikeAdvantageBps,
  premium_amount: numeric(q.premiumAmount),
  deposit_amount: numericOrNull(q.depositAmount),
  total_amount: numeric(q.totalAmount),
  max_transaction_amount: numeric(q.maxTransactionAmount),
  window_start: timestamp(q.windowStart),
  window_end: timestamp(q.windowEnd),
  chain: q.chain,
  settlement_currency: q.settlementCurrency,
  expires_at: timestamp(q.expiresAt),
  created_at: timestamp(q.createdAt),
  accepted_at: timestampOrNull(q.acceptedAt)
})

export const fromRow = (r: QuoteRow): Quote.QuoteRecord => ({
  id: r.id,
  partnerId: r.partner_id,
  environment: r.environment as Partner.Environment,
  customerReferenceId: r.customer_reference_id,
  customerName: r.customer_name,
  contractType: r.contract_type as QuoteRequest.ContractType,
  direction: r.direction as Corridor.Direction,
  notionalCurrency: r.notional_currency as Corridor.NotionalCurrency,
  notionalAmount: decimal(r.notional_amount),
  providerRate: decimal(r.provider_rate),
  marketRate: decimal(r.market_rate),
  marketRateTimestamp: utc(r.market_rate_timestamp),
  strikeMode: r.strike_mode as QuoteRequest.StrikeMode,
  targetStrike: decimalOrNull(r.target_strike),
  providerExtraSpread: decimal(r.provider_extra_spread),
  status: r.status as Quote.QuoteStatus,
  failureReason:
    r.failure_code === null
      ? null
      : { code: r.failure_code as Quote.QuoteFailureCode, message: r.failure_message ?? "" },
  lockedRate: decimal(r.locked_rate),
  strikeAdvantageBps: r.strike_advantage_bps,
  premiumAmount: decimal(r.premium_amount),
  depositAmount: decimalOrNull(r.deposit_amount),
  totalAmount: decimal(r.total_amount),
  maxTransactionAmount: decimal(r.max_transaction_amount),
  windowStart: utc(r.window_start),
  windowEnd: utc(r.window_end),
  chain: r.chain as Rail.Chain,
  settlementCurrency: r.settlement_currency as Rail.SettlementCurrency,
  expiresAt: utc(r.expires_at),
  createdAt: utc(r.created_at),
  acceptedAt: utcOrNull(r.accepted_at)
})
