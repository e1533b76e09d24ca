/**
 * `contracts` rows (with their `contract_history` aggregated as JSON) ↔ `ContractRecord`s, and the
 * rows a commit writes beside them.
 */
import type { Contract, ContractRepo, Corridor, Ledger, Partner, QuoteRequest, Rail } from "@ratelock/core"
import { DateTime } from "effect"
import type { SqlClient } from "effect/sql"
import { decimal, decimalOrNull, numeric, numericOrNull, timestamp, timestampOrNull, utc } from "./codec.ts"

/** The columns a contract record maps to (lease and funding cursor are the store's own). */
export type ContractColumns = {
  readonly id: string
  readonly partner_id: string
  readonly environment: string
  readonly quote_id: string
  readonly service_contract_reference: string
  readonly customer_reference_id: string
  readonly partner_transaction_reference: string | null
  readonly contract_type: string
  readonly direction: string
  readonly notional_currency: string
  readonly notional_amount: string
  readonly locked_rate: string
  readonly provider_rate_at_lock: string
  readonly market_rate_at_lock: string
  readonly premium_amount: string
  readonly deposit_amount: string | null
  readonly total_amount: string
  readonly max_transaction_amount: string
  readonly window_start: Date
  readonly window_end: Date
  readonly chain: string
  readonly settlement_currency: string
  readonly funding_wallet_address: string
  readonly funded_amount: string
  readonly funding_deadline: Date
  readonly status: string
  readonly exercise_executed_at: Date | null
  readonly exercise_live_execution_rate: string | null
  readonly exercise_payout_wallet_address: string | null
  readonly exercise_payout_currency: string | null
  readonly event_sequence: number
  readonly version: number
  readonly created_at: Date
  readonly updated_at: Date
}

/** A selected contract: its columns and its history, `at` in epoch milliseconds. */
export type ContractRow = ContractColumns & {
  readonly history: ReadonlyArray<{ readonly status: string; readonly at: number; readonly cause: string }> | null
}

/** `SELECT` list of a contract with its history, over a relation aliased `c`. */
export const selectColumns = (sql: SqlClient.SqlClient) =>
  sql`c.*, (SELECT json_agg(json_build_object(
      'status', h.status, 'at', (extract(epoch FROM h.at) * 1000)::bigint, 'cause', h.cause) ORDER BY h.seq)
    FROM contract_history h WHERE h.contract_id = c.id) AS history`

export const toRow = (c: Contract.ContractRecord): ContractColumns => ({
  id: c.id,
  partner_id: c.partnerId,
  environment: c.environment,
  quote_id: c.quoteId,
  service_contract_reference: c.serviceContractReference,
  customer_reference_id: c.customerReferenceId,
  partner_transaction_reference: c.partnerTransactionReference,
  contract_type: c.contractType,
  direction: c.direction,
  notional_currency: c.notionalCurrency,
  notional_amount: numeric(c.notionalAmount),
  locked_rate: numeric(c.lockedRate),
  provider_rate_at_lock: numeric(c.providerRateAtLock),
  market_rate_at_lock: numeric(c.marketRateAtLock),
  premium_amount: numeric(c.premiumAmount),
  deposit_amount: numericOrNull(c.depositAmount),
  total_amount: numeric(c.totalAmount),
  max_transaction_amount: numeric(c.maxTransactionAmount),
  window_start: timestamp(c.windowStart),
  window_end: timestamp(c.windowEnd),
  chain: c.chain,
  settlement_currency: c.settlementCurrency,
  funding_wallet_address: c.fundingWalletAddress,
  funded_amount: numeric(c.fundedAmount),
  funding_deadline: timestamp(c.fundingDeadline),
  status: c.status,
  exercise_executed_at: timestampOrNull(c.exercise?.executedAt ?? null),
  exercise_live_execution_rate: numericOrNull(c.exercise?.liveExecutionRate ?? null),
  exercise_payout_wallet_address: c.exercise?.payoutWalletAddress ?? null,
  exercise_payout_currency: c.exercise?.payoutCurrency ?? null,
  event_sequence: c.eventSequence,
  version: c.history.length,
  created_at: timestamp(c.createdAt),
  updated_at: timestamp(c.updatedAt)
})

const exerciseOf = (r: ContractColumns): Contract.Exercise | null =>
  r.exercise_executed_at === null
    ? null
    : {
        executedAt: utc(r.exercise_executed_at),
        liveExecutionRate: decimal(r.exercise_live_execution_rate!),
        payoutWalletAddress: r.exercise_payout_wallet_address!,
        payoutCurrency: r.exercise_payout_currency as Contract.Exercise["payoutCurrency"]
      }

export const fromRow = (r: ContractRow): Contract.ContractRecord => ({
  id: r.id,
  partnerId: r.partner_id,
  environment: r.environment as Partner.Environment,
  quoteId: r.quote_id,
  serviceContractReference: r.service_contract_reference,
  customerReferenceId: r.customer_reference_id,
  partnerTransactionReference: r.partner_transaction_reference,
  contractType: r.contract_type as QuoteRequest.ContractType,
  direction: r.direction as Corridor.Direction,
  notionalCurrency: r.notional_currency as Corridor.NotionalCurrency,
  notionalAmount: decimal(r.notional_amount),
  lockedRate: decimal(r.locked_rate),
  providerRateAtLock: decimal(r.provider_rate_at_lock),
  marketRateAtLock: decimal(r.market_rate_at_lock),
  premiumAmount: decimal(r.premium_amount),
  depositAmount: decimalOrNull(r.deposit_amount),
  totalAmount: decimal(r.total_amount),
  maxTransactionAmount: decimal(r.max_transaction_amount),
  windowStart: utc(r.window_start),
  windowEnd: utc(r.window_end),
  chain: r.chain as Rail.Chain,
  settlementCurrency: r.settlement_currency as Rail.SettlementCurrency,
  fundingWalletAddress: r.funding_wallet_address,
  fundedAmount: decimal(r.funded_amount),
  fundingDeadline: utc(r.funding_deadline),
  status: r.status as Contract.ContractStatus,
  exercise: exerciseOf(r),
  eventSequence: r.event_sequence,
  history: (r.history ?? []).map((h) => ({
    status: h.status as Contract.ContractStatus,
    at: DateTime.makeUnsafe(h.at),
    cause: h.cause
  })),
  createdAt: utc(r.created_at),
  updatedAt: utc(r.updated_at)
})

/** History rows for entries `seq = first, first + 1, …`. */
export const historyRows = (
  contractId: string,
  first: number,
  entries: ReadonlyArray<Contract.HistoryEntry>
): ReadonlyArray<Record<string, unknown>> =>
  entries.map((h, i) => ({
    contract_id: contractId,
    seq: first + i,
    status: h.status,
    at: timestamp(h.at),
    cause: h.cause
  }))

export const transferRow = (contract: Contract.ContractRecord, t: ContractRepo.FundingTransfer) => ({
  chain: t.chain,
  transaction_hash: t.transactionHash,
  log_index: t.index,
  contract_id: contract.id,
  block_number: t.blockNumber,
  amount: numeric(t.amount),
  counted_at: timestamp(contract.updatedAt)
})

export type LedgerRow = {
  readonly contract_id: string
  readonly partner_id: string
  readonly environment: string
  readonly kind: string
  readonly account: string
  readonly currency: string
  readonly amount: string
  readonly at: Date
}

/** Ledger rows of one commit, grouped by the contract version it produced. */
export const ledgerRows = (
  entries: ReadonlyArray<Ledger.LedgerEntry>,
  version: number
): ReadonlyArray<Record<string, unknown>> => entries.map((e) => ledgerRow(e, version))

const ledgerRow = (e: Ledger.LedgerEntry, version: number) => ({
  contract_id: e.contractId,
  version,
  partner_id: e.partnerId,
  environment: e.environment,
  kind: e.kind,
  account: e.account,
  currency: e.currency,
  amount: numeric(e.amount),
  at: timestamp(e.at)
})

export const ledgerFromRow = (r: LedgerRow): Ledger.LedgerEntry => ({
  contractId: r.contract_id,
  partnerId: r.partner_id,
  environment: r.environment as Partner.Environment,
  kind: r.kind as Ledger.EntryKind,
  account: r.account as Ledger.Account,
  currency: r.currency as Rail.FundsCurrency,
  amount: decimal(r.amount),
  at: utc(r.at)
})
