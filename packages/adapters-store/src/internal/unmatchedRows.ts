/**
 * `unmatched_transfers` rows ↔ `UnmatchedTransfer`s. The amount is `numeric` either way: an exact
 * decimal in tokens, or an integer of raw base units (which may not fit a double).
 */
import type { Contract, ContractRepo, Partner, Rail } from "@ratelock/core"
import { int, timestamp, utc } from "./codec.ts"

export type UnmatchedRow = {
  readonly chain: string
  readonly transaction_hash: string
  readonly log_index: number
  readonly contract_id: string
  readonly partner_id: string
  readonly environment: string
  readonly block_number: bigint | number
  readonly token: string
  readonly amount: string
  readonly unit: string
  readonly reason: string
  readonly contract_status: string
  readonly observed_at: Date
}

export const unmatchedRow = (t: ContractRepo.UnmatchedTransfer): UnmatchedRow => ({
  chain: t.chain,
  transaction_hash: t.transactionHash,
  log_index: t.index,
  contract_id: t.contractId,
  partner_id: t.partnerId,
  environment: t.environment,
  block_number: t.blockNumber,
  token: t.token,
  amount: t.amount,
  unit: t.unit,
  reason: t.reason,
  contract_status: t.contractStatus,
  observed_at: timestamp(t.observedAt)
})

export const unmatchedFromRow = (r: UnmatchedRow): ContractRepo.UnmatchedTransfer => ({
  contractId: r.contract_id,
  partnerId: r.partner_id,
  environment: r.environment as Partner.Environment,
  chain: r.chain as Rail.Chain,
  transactionHash: r.transaction_hash,
  index: r.log_index,
  blockNumber: int(r.block_number),
  token: r.token,
  amount: r.amount,
  unit: r.unit as ContractRepo.UnmatchedTransfer["unit"],
  reason: r.reason as ContractRepo.UnmatchedReason,
  contractStatus: r.contract_status as Contract.ContractStatus,
  observedAt: utc(r.observed_at)
})
