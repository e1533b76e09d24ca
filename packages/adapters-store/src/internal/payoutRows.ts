/**
 * `payouts` rows ↔ `PayoutRecord`s (lease columns are the store's own).
 */
import type { Partner, PayoutRepo, Rail } from "@ratelock/core"
import { decimal, int, intOrNull, numeric, timestamp, utc } from "./codec.ts"

export type PayoutRow = {
  readonly id: string
  readonly contract_id: string
  readonly partner_id: string
  readonly environment: string
  readonly chain: string
  readonly currency: string
  readonly destination: string
  readonly amount: string
  readonly fx_delta_in_quote_currency: string
  readonly status: string
  readonly prepared: string | null
  readonly transaction_hash: string | null
  readonly block_number: bigint | number | null
  readonly attempts: number
  readonly last_error: string | null
  readonly next_attempt_at: Date
  readonly created_at: Date
  readonly updated_at: Date
}

export const toRow = (p: PayoutRepo.PayoutRecord): PayoutRow => ({
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
  block_number: p.blockNumber,
  attempts: p.attempts,
  last_error: p.lastError,
  next_attempt_at: timestamp(p.nextAttemptAt),
  created_at: timestamp(p.createdAt),
  updated_at: timestamp(p.updatedAt)
})

export const fromRow = (r: PayoutRow): PayoutRepo.PayoutRecord => ({
  id: r.id,
  contractId: r.contract_id,
  partnerId: r.partner_id,
  environment: r.environment as Partner.Environment,
  chain: r.chain as Rail.Chain,
  currency: r.currency as Rail.FundsCurrency,
  destination: r.destination,
  amount: decimal(r.amount),
  fxDeltaInQuoteCurrency: decimal(r.fx_delta_in_quote_currency),
  status: r.status as PayoutRepo.PayoutStatus,
  prepared: r.prepared,
  transactionHash: r.transaction_hash,
  blockNumber: intOrNull(r.block_number),
  attempts: int(r.attempts),
  lastError: r.last_error,
  nextAttemptAt: utc(r.next_attempt_at),
  createdAt: utc(r.created_at),
  updatedAt: utc(r.updated_at)
})
