/**
 * The row shapes of a contract: `contracts` (selected with its `contract_history` aggregated as
 * JSON) and `ContractRecord`, and the history, transfer and ledger rows a commit writes beside it.
 * The one place their columns are named: the schema a read decodes, the mapping a write binds.
 */
import { Contract, type ContractRepo, Corridor, Ledger, Partner, Rail } from "@ratelock/core"
import { Schema, Struct } from "effect"
import type { SqlClient } from "effect/sql"
import {
  decimal,
  EpochMillis,
  fromMillis,
  int8,
  Numeric,
  numeric,
  numericOrNull,
  rowSchema,
  Timestamp,
  timestamp,
  timestampOrNull,
  utc
} from "./columns.ts"
import { entryColumns, entryOf, entryRow } from "./ledger.ts"
import { LockTermsColumns, lockTermsOf, lockTermsRow } from "./lockTerms.ts"

/** A history entry inside a selected contract: JSON, `at` in epoch milliseconds. */
const HistoryJson = Schema.Struct({ status: Contract.ContractStatus, at: EpochMillis, cause: Schema.String })

/** The columns a contract record maps to (lease and funding cursor are the store's own), and its history. */
const ContractColumns = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Partner.Environment,
  quote_id: Schema.String,
  service_contract_reference: Schema.String,
  customer_reference_id: Schema.String,
  partner_transaction_reference: Schema.NullOr(Schema.String),
  ...LockTermsColumns.fields,
  locked_rate: Numeric,
  provider_rate_at_lock: Numeric,
  market_rate_at_lock: Numeric,
  funding_wallet_address: Schema.String,
  funding_index: Schema.NullOr(Schema.Int),
  funded_amount: Numeric,
  funding_deadline: Timestamp,
  status: Contract.ContractStatus,
  // the exercise: all four set, or none
  exercise_executed_at: Schema.NullOr(Timestamp),
  exercise_live_execution_rate: Schema.NullOr(Numeric),
  exercise_payout_wallet_address: Schema.NullOr(Schema.String),
  exercise_payout_currency: Schema.NullOr(Rail.FundsCurrency),
  event_sequence: Schema.Int,
  /** The number of history entries, which `commit` compare-and-sets. */
  version: Schema.Int,
  created_at: Timestamp,
  updated_at: Timestamp,
  /** Aggregated by `selectColumns`; not a column. */
  history: Schema.NullOr(Schema.Array(HistoryJson))
}).check(
  Schema.makeFilter((r) => {
    const set = [
      r.exercise_executed_at,
      r.exercise_live_execution_rate,
      r.exercise_payout_wallet_address,
      r.exercise_payout_currency
    ].filter((value) => value !== null).length
    return set === 0 || set === 4 || "the exercise columns are all set or all null"
  })
)

const exerciseOf = (r: typeof ContractColumns.Type): Contract.Exercise | null =>
  r.exercise_executed_at === null ||
  r.exercise_live_execution_rate === null ||
  r.exercise_payout_wallet_address === null ||
  r.exercise_payout_currency === null
    ? null
    : {
        executedAt: utc(r.exercise_executed_at),
        liveExecutionRate: decimal(r.exercise_live_execution_rate),
        payoutWalletAddress: r.exercise_payout_wallet_address,
        payoutCurrency: r.exercise_payout_currency
      }

/** The columns a contract is written as: all but the aggregated history (its entries are rows of their own). */
export type ContractWrite = Omit<typeof ContractColumns.Type, "history">

/** The row a contract is written as. */
export const contractRow = (c: Contract.ContractRecord): ContractWrite => ({
  id: c.id,
  partner_id: c.partnerId,
  environment: c.environment,
  quote_id: c.quoteId,
  service_contract_reference: c.serviceContractReference,
  customer_reference_id: c.customerReferenceId,
  partner_transaction_reference: c.partnerTransactionReference,
  ...lockTermsRow(c),
  locked_rate: numeric(c.lockedRate),
  provider_rate_at_lock: numeric(c.providerRateAtLock),
  market_rate_at_lock: numeric(c.marketRateAtLock),
  funding_wallet_address: c.fundingWalletAddress,
  funding_index: c.fundingIndex,
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

/** A selected `contracts` row → `ContractRecord`. */
export const ContractRow = rowSchema("ContractRow", ContractColumns, Contract.ContractRecord, (r) => ({
  id: r.id,
  partnerId: r.partner_id,
  environment: r.environment,
  quoteId: r.quote_id,
  serviceContractReference: r.service_contract_reference,
  customerReferenceId: r.customer_reference_id,
  partnerTransactionReference: r.partner_transaction_reference,
  ...lockTermsOf(r),
  lockedRate: decimal(r.locked_rate),
  providerRateAtLock: decimal(r.provider_rate_at_lock),
  marketRateAtLock: decimal(r.market_rate_at_lock),
  fundingWalletAddress: r.funding_wallet_address,
  fundingIndex: r.funding_index,
  fundedAmount: decimal(r.funded_amount),
  fundingDeadline: utc(r.funding_deadline),
  status: r.status,
  exercise: exerciseOf(r),
  eventSequence: r.event_sequence,
  history: (r.history ?? []).map((h) => ({ status: h.status, at: fromMillis(h.at), cause: h.cause })),
  createdAt: utc(r.created_at),
  updatedAt: utc(r.updated_at)
}))

/** The sequence that hands out one rail's funding-address indexes (made by migration 5). */
export const fundingIndexSequence = (chain: string, environment: string) => `funding_index_${chain}_${environment}`

/** `SELECT` list of a contract with its history, over a relation aliased `c`. */
export const selectColumns = (sql: SqlClient.SqlClient) =>
  sql`c.*, (SELECT json_agg(json_build_object(
      'status', h.status, 'at', (extract(epoch FROM h.at) * 1000)::bigint, 'cause', h.cause) ORDER BY h.seq)
    FROM contract_history h WHERE h.contract_id = c.id) AS history`

/** A `contract_history` row: the entry at position `seq` (1, 2, …) of its contract (written only). */
export type HistoryWrite = {
  readonly contract_id: string
  readonly seq: number
  readonly status: Contract.ContractStatus
  readonly at: Date
  readonly cause: string
}

/** History rows for entries `seq = first, first + 1, …`. */
export const historyRows = (
  contractId: string,
  first: number,
  entries: ReadonlyArray<Contract.HistoryEntry>
): ReadonlyArray<HistoryWrite> =>
  entries.map((h, i) => ({
    contract_id: contractId,
    seq: first + i,
    status: h.status,
    at: timestamp(h.at),
    cause: h.cause
  }))

/** A `funding_transfers` row as written: a counted transfer, its contract and when it was counted (never read back). */
export const transferRow = (
  t: ContractRepo.FundingTransfer,
  contract: ContractWrite
): {
  readonly chain: Rail.Chain
  readonly transaction_hash: string
  readonly log_index: number
  readonly contract_id: string
  readonly block_number: bigint
  readonly amount: string
  readonly counted_at: Date
} => ({
  chain: t.chain,
  transaction_hash: t.transactionHash,
  log_index: t.index,
  contract_id: contract.id,
  block_number: int8(t.blockNumber),
  amount: numeric(t.amount),
  counted_at: contract.updated_at
})

const LedgerColumns = Schema.Struct({
  contract_id: Schema.String,
  partner_id: Schema.String,
  environment: Partner.Environment,
  ...entryColumns(Ledger.EntryKind, Ledger.Account, Rail.FundsCurrency)
})

/** The row a ledger entry is written as, in the commit that produced contract `version`. */
export const ledgerRow = (
  e: Ledger.LedgerEntry,
  version: number
): typeof LedgerColumns.Type & { readonly version: number } => ({
  contract_id: e.contractId,
  version,
  partner_id: e.partnerId,
  environment: e.environment,
  ...entryRow(e)
})

const ledgerEntryOf = (r: typeof LedgerColumns.Type) => ({
  contractId: r.contract_id,
  partnerId: r.partner_id,
  environment: r.environment,
  ...entryOf(r)
})

/** A `ledger_entries` row → `LedgerEntry`. */
export const LedgerRow = rowSchema("LedgerRow", LedgerColumns, Ledger.LedgerEntry, ledgerEntryOf)

/** `DailyCloseRepo.ContractFlow` as a schema: an entry with its contract's corridor. */
const ContractFlow = Schema.Struct({ ...Ledger.LedgerEntry.fields, direction: Corridor.Direction })

/** A `ledger_entries` row with its contract's `direction` → `ContractFlow`. */
export const ContractFlowRow = rowSchema(
  "ContractFlowRow",
  LedgerColumns.mapFields(Struct.assign({ direction: Corridor.Direction })),
  ContractFlow,
  (r) => ({ ...ledgerEntryOf(r), direction: r.direction })
)
