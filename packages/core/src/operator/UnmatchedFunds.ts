/**
 * The operator's view of funds that did not fund a contract (after it stopped awaiting funds, or
 * of another token): recorded by the funding worker, listed here for refund, oldest first.
 */
import * as ContractRepo from "../lifecycle/ContractRepo.ts"
import type * as StoreError from "../kernel/StoreError.ts"
import { DateTime, Effect } from "effect"

export interface UnmatchedListing {
  readonly fx_contract_id: string
  readonly partner_id: string
  readonly environment: string
  readonly chain: string
  readonly transaction_hash: string
  readonly index: number
  readonly block_number: number
  /** The settlement currency, or the token contract / mint of a wrong-token transfer. */
  readonly token: string
  readonly amount: string
  /** `token`: a decimal amount of the token; `base_units`: raw units of a token we do not settle. */
  readonly unit: string
  readonly reason: string
  readonly contract_status: string
  readonly observed_at: string
}

export const list: (filter: {
  readonly contractId?: string | undefined
  readonly limit: number
}) => Effect.Effect<ReadonlyArray<UnmatchedListing>, StoreError.StoreError, ContractRepo.ContractRepo> = Effect.fn(
  "UnmatchedFunds.list"
)(function* (filter) {
  const found = yield* (yield* ContractRepo.ContractRepo).unmatchedTransfers(filter)
  return found.map(
    (t): UnmatchedListing => ({
      fx_contract_id: t.contractId,
      partner_id: t.partnerId,
      environment: t.environment,
      chain: t.chain,
      transaction_hash: t.transactionHash,
      index: t.index,
      block_number: t.blockNumber,
      token: t.token,
      amount: t.amount,
      unit: t.unit,
      reason: t.reason,
      contract_status: t.contractStatus,
      observed_at: DateTime.formatIso(t.observedAt)
    })
  )
})
