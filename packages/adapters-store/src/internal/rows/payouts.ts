/**
 * `payouts` rows and `PayoutRecord`s (lease columns are the store's own): the one place the
 * columns of a payout are named, in the schema a read decodes and the mapping a write binds.
 */
import { Partner, PayoutRepo, PayoutWait, Rail } from "@ratelock/core"
import { Schema } from "effect"
import {
  decimal,
  Int8,
  int8OrNull,
  intOrNull,
  Numeric,
  numeric,
  rowSchema,
  Timestamp,
  timestamp,
  utc
} from "./columns.ts"

const PayoutColumns = Schema.Struct({
  id: Schema.String,
  contract_id: Schema.String,
  partner_id: Schema.String,
  environment: Partner.Environment,
  chain: Rail.Chain,
  currency: Rail.FundsCurrency,
  destination: Schema.String,
  amount: Numeric,
  fx_delta_in_quote_currency: Numeric,
  status: PayoutRepo.PayoutStatus,
  prepared: Schema.NullOr(Schema.String),
  transaction_hash: Schema.NullOr(Schema.String),
  nonce: Schema.NullOr(Int8),
  waiting: Schema.NullOr(PayoutWait.PayoutWait),
  replacements: Schema.Int,
  block_number: Schema.NullOr(Int8),
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp
})

/** The row a payout is written as. */
export const payoutRow = (p: PayoutRepo.PayoutRecord): typeof PayoutColumns.Type => ({
  id: p.id,
  contract_id: p.contractId,
  partner_id: p.partnerId,
  environment: p.environment,
  chain: p.chain,
  currency: p.currency,
  destination: p.destination,
  amount: numeric(p.amount),
  fx_delta_in_quote_currency: numeric(p.fxDeltaInQuoteCurrency),
  status: p.status,
  prepared: p.prepared,
  transaction_hash: p.transactionHash,
  nonce: int8OrNull(p.nonce),
  waiting: p.waiting,
  replacements: p.replacements,
  block_number: int8OrNull(p.blockNumber),
  attempts: p.attempts,
  last_error: p.lastError,
  next_attempt_at: timestamp(p.nextAttemptAt),
  created_at: timestamp(p.createdAt),
  updated_at: timestamp(p.updatedAt)
})

/** A `payouts` row → `PayoutRecord`. */
export const PayoutRow = rowSchema("PayoutRow", PayoutColumns, PayoutRepo.PayoutRecord, (r) => ({
  id: r.id,
  contractId: r.contract_id,
  partnerId: r.partner_id,
  environment: r.environment,
  chain: r.chain,
  currency: r.currency,
  destination: r.destination,
  amount: decimal(r.amount),
  fxDeltaInQuoteCurrency: decimal(r.fx_delta_in_quote_currency),
  status: r.status,
  prepared: r.prepared,
  transactionHash: r.transaction_hash,
  nonce: intOrNull(r.nonce),
  waiting: r.waiting,
  replacements: r.replacements,
  blockNumber: intOrNull(r.block_number),
  attempts: r.attempts,
  lastError: r.last_error,
  nextAttemptAt: utc(r.next_attempt_at),
  createdAt: utc(r.created_at),
  updatedAt: utc(r.updated_at)
}))
