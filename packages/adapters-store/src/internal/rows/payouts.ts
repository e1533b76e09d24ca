/**
 * `payouts` rows and `PayoutRecord`s (lease columns are the store's own): the one place the
 * columns of a payout are named, in the schema a read decodes and the mapping a write binds.
 */
import { Partner, PayoutRepo, PayoutWait, Rail } from "@ratelock/core"
import { Schema } from "effect"
import { decimal, Numeric, numeric, rowSchema } from "./columns.ts"
import { SignedJobColumns, signedJobOf, signedJobRow } from "./signedJobs.ts"

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
  waiting: Schema.NullOr(PayoutWait.PayoutWait),
  ...SignedJobColumns.fields
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
  waiting: p.waiting,
  ...signedJobRow(p)
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
  waiting: r.waiting,
  ...signedJobOf(r)
}))
