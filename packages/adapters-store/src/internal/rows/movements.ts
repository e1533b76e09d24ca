/**
 * `movements` rows and `Movement`s (lease columns are the store's own): the one place the columns
 * of a movement are named, in the schema a read decodes and the mapping a write binds.
 */
import { MovementRepo, Partner, Rail } from "@ratelock/core"
import { Schema } from "effect"
import { decimal, Numeric, numeric, rowSchema } from "./columns.ts"
import { SignedJobColumns, signedJobOf, signedJobRow } from "./signedJobs.ts"

const MovementColumns = Schema.Struct({
  id: Schema.String,
  kind: MovementRepo.MovementKind,
  purpose: MovementRepo.MovementPurpose,
  key: Schema.String,
  contract_id: Schema.String,
  partner_id: Schema.String,
  environment: Partner.Environment,
  chain: Rail.Chain,
  currency: Rail.SettlementCurrency,
  source: Schema.NullOr(Schema.String),
  funding_index: Schema.NullOr(Schema.Int),
  destination: Schema.NullOr(Schema.String),
  amount: Numeric,
  status: MovementRepo.MovementStatus,
  waiting: Schema.NullOr(MovementRepo.MovementWait),
  requested_by: Schema.String,
  ...SignedJobColumns.fields
})

/** The row a movement is written as. */
export const movementRow = (m: MovementRepo.Movement): typeof MovementColumns.Type => ({
  id: m.id,
  kind: m.kind,
  purpose: m.purpose,
  key: m.key,
  contract_id: m.contractId,
  partner_id: m.partnerId,
  environment: m.environment,
  chain: m.chain,
  currency: m.currency,
  source: m.source,
  funding_index: m.fundingIndex,
  destination: m.destination,
  amount: numeric(m.amount),
  status: m.status,
  waiting: m.waiting,
  requested_by: m.requestedBy,
  ...signedJobRow(m)
})

/** A `movements` row → `Movement`. */
export const MovementRow = rowSchema("MovementRow", MovementColumns, MovementRepo.Movement, (r) => ({
  id: r.id,
  kind: r.kind,
  purpose: r.purpose,
  key: r.key,
  contractId: r.contract_id,
  partnerId: r.partner_id,
  environment: r.environment,
  chain: r.chain,
  currency: r.currency,
  source: r.source,
  fundingIndex: r.funding_index,
  destination: r.destination,
  amount: decimal(r.amount),
  status: r.status,
  waiting: r.waiting,
  requestedBy: r.requested_by,
  ...signedJobOf(r)
}))
