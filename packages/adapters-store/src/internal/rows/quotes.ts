/**
 * `quotes` rows and `QuoteRecord`s: the one place the columns of a quote are named, in the schema
 * a read decodes and the mapping a write binds.
 */
import { Partner, PricingInputs, Quote, QuoteRequest } from "@ratelock/core"
import { Schema } from "effect"
import {
  decimal,
  decimalOrNull,
  json,
  Numeric,
  numeric,
  numericOrNull,
  rowSchema,
  Timestamp,
  timestamp,
  timestampOrNull,
  utc,
  utcOrNull
} from "./columns.ts"
import { LockTermsColumns, lockTermsOf, lockTermsRow } from "./lockTerms.ts"

const QuoteColumns = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Partner.Environment,
  customer_reference_id: Schema.String,
  customer_name: Schema.String,
  ...LockTermsColumns.fields,
  provider_rate: Numeric,
  market_rate: Numeric,
  market_rate_timestamp: Timestamp,
  strike_mode: QuoteRequest.StrikeMode,
  target_strike: Schema.NullOr(Numeric),
  provider_extra_spread: Numeric,
  status: Quote.QuoteStatus,
  // the failure reason: both set or neither, as the table CHECKs
  failure_code: Schema.NullOr(Quote.QuoteFailureCode),
  failure_message: Schema.NullOr(Schema.String),
  locked_rate: Numeric,
  strike_advantage_bps: Schema.Int,
  expires_at: Timestamp,
  created_at: Timestamp,
  accepted_at: Schema.NullOr(Timestamp),
  snapshot_id: Schema.NullOr(Schema.String),
  /** `json`, parsed by the driver: the encoded inputs (numbers as JSON numbers, each double exactly). */
  pricing_inputs: Schema.NullOr(Schema.toEncoded(PricingInputs.PricingInputs))
}).check(
  Schema.makeFilter(
    (r) =>
      (r.failure_code === null) === (r.failure_message === null) ||
      "failure_code and failure_message are both set or both null"
  )
)

const encodeInputs = Schema.encodeSync(PricingInputs.PricingInputs)

/** The row a quote is written as (its pricing inputs as JSON text). */
export const quoteRow = (
  q: Quote.QuoteRecord
): Omit<typeof QuoteColumns.Type, "pricing_inputs"> & { readonly pricing_inputs: string | null } => ({
  id: q.id,
  partner_id: q.partnerId,
  environment: q.environment,
  customer_reference_id: q.customerReferenceId,
  customer_name: q.customerName,
  ...lockTermsRow(q),
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
  expires_at: timestamp(q.expiresAt),
  created_at: timestamp(q.createdAt),
  accepted_at: timestampOrNull(q.acceptedAt),
  snapshot_id: q.snapshotId,
  pricing_inputs: q.pricingInputs === null ? null : json(encodeInputs(q.pricingInputs))
})

/** A `quotes` row → `QuoteRecord`. */
export const QuoteRow = rowSchema("QuoteRow", QuoteColumns, Quote.QuoteRecord, (r) => ({
  id: r.id,
  partnerId: r.partner_id,
  environment: r.environment,
  customerReferenceId: r.customer_reference_id,
  customerName: r.customer_name,
  ...lockTermsOf(r),
  providerRate: decimal(r.provider_rate),
  marketRate: decimal(r.market_rate),
  marketRateTimestamp: utc(r.market_rate_timestamp),
  strikeMode: r.strike_mode,
  targetStrike: decimalOrNull(r.target_strike),
  providerExtraSpread: decimal(r.provider_extra_spread),
  status: r.status,
  failureReason:
    r.failure_code === null || r.failure_message === null ? null : { code: r.failure_code, message: r.failure_message },
  lockedRate: decimal(r.locked_rate),
  strikeAdvantageBps: r.strike_advantage_bps,
  expiresAt: utc(r.expires_at),
  createdAt: utc(r.created_at),
  acceptedAt: utcOrNull(r.accepted_at),
  snapshotId: r.snapshot_id,
  // decoded by the record's schema
  pricingInputs: r.pricing_inputs
}))
