/**
 * `unmatched_transfers` rows and `UnmatchedTransfer`s. The amount is `numeric` either way: an exact
 * decimal in tokens, or an integer of raw base units (which may not fit a double), kept as text.
 */
import { Contract, ContractRepo, Partner, Rail } from "@ratelock/core"
import { Schema } from "effect"
import { int, Int8, int8, rowSchema, Timestamp, timestamp, utc } from "./columns.ts"

const UnmatchedColumns = Schema.Struct({
  chain: Rail.Chain,
  transaction_hash: Schema.String,
  log_index: Schema.Int,
  contract_id: Schema.String,
  partner_id: Schema.String,
  environment: Partner.Environment,
  block_number: Int8,
  token: Schema.String,
  amount: Schema.String,
  unit: ContractRepo.UnmatchedUnit,
  reason: ContractRepo.UnmatchedReason,
  contract_status: Contract.ContractStatus,
  observed_at: Timestamp
})

/** The row an unmatched transfer is written as. */
export const unmatchedRow = (t: ContractRepo.UnmatchedTransfer): typeof UnmatchedColumns.Type => ({
  chain: t.chain,
  transaction_hash: t.transactionHash,
  log_index: t.index,
  contract_id: t.contractId,
  partner_id: t.partnerId,
  environment: t.environment,
  block_number: int8(t.blockNumber),
  token: t.token,
  amount: t.amount,
  unit: t.unit,
  reason: t.reason,
  contract_status: t.contractStatus,
  observed_at: timestamp(t.observedAt)
})

/** An `unmatched_transfers` row → `UnmatchedTransfer`. */
export const UnmatchedRow = rowSchema("UnmatchedRow", UnmatchedColumns, ContractRepo.UnmatchedTransfer, (r) => ({
  contractId: r.contract_id,
  partnerId: r.partner_id,
  environment: r.environment,
  chain: r.chain,
  transactionHash: r.transaction_hash,
  index: r.log_index,
  blockNumber: int(r.block_number),
  token: r.token,
  amount: r.amount,
  unit: r.unit,
  reason: r.reason,
  contractStatus: r.contract_status,
  observedAt: utc(r.observed_at)
}))
