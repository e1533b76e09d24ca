/**
 * `payouts` rows ↔ `PayoutRecord`s (lease columns are the store's own): the one place the
 * columns of a payout are named.
 */
import { Partner, PayoutRepo, Rail } from "@ratelock/core"
import { Schema, SchemaGetter } from "effect"
import { compiled, Int8, Numeric, Timestamp } from "./columns.ts"

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
  block_number: Schema.NullOr(Int8),
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp
})

export const PayoutRow = compiled(
  PayoutColumns.pipe(
    Schema.decodeTo(PayoutRepo.PayoutRecord, {
      decode: SchemaGetter.transform(
        (r): PayoutRepo.PayoutRecord => ({
          id: r.id,
          contractId: r.contract_id,
          partnerId: r.partner_id,
          environment: r.environment,
          chain: r.chain,
          currency: r.currency,
          destination: r.destination,
          amount: r.amount,
          fxDeltaInQuoteCurrency: r.fx_delta_in_quote_currency,
          status: r.status,
          prepared: r.prepared,
          transactionHash: r.transaction_hash,
          blockNumber: r.block_number,
          attempts: r.attempts,
          lastError: r.last_error,
          nextAttemptAt: r.next_attempt_at,
          createdAt: r.created_at,
          updatedAt: r.updated_at
        })
      ),
      encode: SchemaGetter.transform((p: PayoutRepo.PayoutRecord): typeof PayoutColumns.Type => ({
        id: p.id,
        contract_id: p.contractId,
        partner_id: p.partnerId,
        environment: p.environment,
        chain: p.chain,
        currency: p.currency,
        destination: p.destination,
        amount: p.amount,
        fx_delta_in_quote_currency: p.fxDeltaInQuoteCurrency,
        status: p.status,
        prepared: p.prepared,
        transaction_hash: p.transactionHash,
        block_number: p.blockNumber,
        attempts: p.attempts,
        last_error: p.lastError,
        next_attempt_at: p.nextAttemptAt,
        created_at: p.createdAt,
        updated_at: p.updatedAt
      }))
    })
  ).annotate({ identifier: "PayoutRow" })
)
