/**
 * The row shapes of a contract: `contracts` (selected with its `contract_history` aggregated as
 * JSON) ↔ `ContractRecord`, and the history, transfer and ledger rows a commit writes beside it.
 * Each schema is the one place its columns are named.
 */
import { Contract, ContractRepo, Corridor, Ledger, Partner, QuoteRequest, Rail } from "@ratelock/core"
import { Schema, SchemaGetter } from "effect"
import type { SqlClient } from "effect/sql"
import { compiled, EpochMillis, Int8, Numeric, Timestamp } from "./columns.ts"

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
  contract_type: QuoteRequest.ContractType,
  direction: Corridor.Direction,
  notional_currency: Corridor.NotionalCurrency,
  notional_amount: Numeric,
  locked_rate: Numeric,
  provider_rate_at_lock: Numeric,
  market_rate_at_lock: Numeric,
  premium_amount: Numeric,
  deposit_amount: Schema.NullOr(Numeric),
  total_amount: Numeric,
  max_transaction_amount: Numeric,
  window_start: Timestamp,
  window_end: Timestamp,
  chain: Rail.Chain,
  settlement_currency: Rail.SettlementCurrency,
  funding_wallet_address: Schema.String,
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
  /** Aggregated by `selectColumns`; not a column, never written (`columnsOf` drops it). */
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
        executedAt: r.exercise_executed_at,
        liveExecutionRate: r.exercise_live_execution_rate,
        payoutWalletAddress: r.exercise_payout_wallet_address,
        payoutCurrency: r.exercise_payout_currency
      }

/** A selected `contracts` row ↔ `ContractRecord`. */
export const ContractRow = compiled(
  ContractColumns.pipe(
    Schema.decodeTo(Contract.ContractRecord, {
      decode: SchemaGetter.transform(
        (r): Contract.ContractRecord => ({
          id: r.id,
          partnerId: r.partner_id,
          environment: r.environment,
          quoteId: r.quote_id,
          serviceContractReference: r.service_contract_reference,
          customerReferenceId: r.customer_reference_id,
          partnerTransactionReference: r.partner_transaction_reference,
          contractType: r.contract_type,
          direction: r.direction,
          notionalCurrency: r.notional_currency,
          notionalAmount: r.notional_amount,
          lockedRate: r.locked_rate,
          providerRateAtLock: r.provider_rate_at_lock,
          marketRateAtLock: r.market_rate_at_lock,
          premiumAmount: r.premium_amount,
          depositAmount: r.deposit_amount,
          totalAmount: r.total_amount,
          maxTransactionAmount: r.max_transaction_amount,
          windowStart: r.window_start,
          windowEnd: r.window_end,
          chain: r.chain,
          settlementCurrency: r.settlement_currency,
          fundingWalletAddress: r.funding_wallet_address,
          fundedAmount: r.funded_amount,
          fundingDeadline: r.funding_deadline,
          status: r.status,
          exercise: exerciseOf(r),
          eventSequence: r.event_sequence,
          history: r.history ?? [],
          createdAt: r.created_at,
          updatedAt: r.updated_at
        })
      ),
      encode: SchemaGetter.transform((c: Contract.ContractRecord): typeof ContractColumns.Type => ({
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
        notional_amount: c.notionalAmount,
        locked_rate: c.lockedRate,
        provider_rate_at_lock: c.providerRateAtLock,
        market_rate_at_lock: c.marketRateAtLock,
        premium_amount: c.premiumAmount,
        deposit_amount: c.depositAmount,
        total_amount: c.totalAmount,
        max_transaction_amount: c.maxTransactionAmount,
        window_start: c.windowStart,
        window_end: c.windowEnd,
        chain: c.chain,
        settlement_currency: c.settlementCurrency,
        funding_wallet_address: c.fundingWalletAddress,
        funded_amount: c.fundedAmount,
        funding_deadline: c.fundingDeadline,
        status: c.status,
        exercise_executed_at: c.exercise?.executedAt ?? null,
        exercise_live_execution_rate: c.exercise?.liveExecutionRate ?? null,
        exercise_payout_wallet_address: c.exercise?.payoutWalletAddress ?? null,
        exercise_payout_currency: c.exercise?.payoutCurrency ?? null,
        event_sequence: c.eventSequence,
        version: c.history.length,
        created_at: c.createdAt,
        updated_at: c.updatedAt,
        // written to `contract_history` by the statements themselves
        history: null
      }))
    })
  ).annotate({ identifier: "ContractRow" })
)

/** `SELECT` list of a contract with its history, over a relation aliased `c`. */
export const selectColumns = (sql: SqlClient.SqlClient) =>
  sql`c.*, (SELECT json_agg(json_build_object(
      'status', h.status, 'at', (extract(epoch FROM h.at) * 1000)::bigint, 'cause', h.cause) ORDER BY h.seq)
    FROM contract_history h WHERE h.contract_id = c.id) AS history`

/** The `contracts` columns of an encoded row, for `INSERT` and `UPDATE`: all but the aggregated history. */
export const columnsOf = ({ history: _, ...columns }: typeof ContractRow.Encoded) => columns

/** A `contract_history` row: the entry at position `seq` (1, 2, …) of its contract. */
export const HistoryRow = compiled(
  Schema.Struct({
    contract_id: Schema.String,
    seq: Schema.Int,
    status: Contract.ContractStatus,
    at: Timestamp,
    cause: Schema.String
  }).annotate({ identifier: "HistoryRow" })
)

/** History rows for entries `seq = first, first + 1, …`. */
export const historyRows = (contractId: string, first: number, entries: ReadonlyArray<Contract.HistoryEntry>) =>
  entries.map((h, i): typeof HistoryRow.Type => ({ contract_id: contractId, seq: first + i, ...h }))

/** A `funding_transfers` row without its contract and counting time, which the commit adds. */
export const TransferRow = compiled(
  Schema.Struct({
    chain: Rail.Chain,
    transaction_hash: Schema.String,
    log_index: Schema.Int,
    block_number: Int8,
    amount: Numeric
  })
    .pipe(
      Schema.decodeTo(ContractRepo.FundingTransfer, {
        decode: SchemaGetter.transform(
          (r): ContractRepo.FundingTransfer => ({
            chain: r.chain,
            transactionHash: r.transaction_hash,
            index: r.log_index,
            blockNumber: r.block_number,
            amount: r.amount
          })
        ),
        encode: SchemaGetter.transform((t: ContractRepo.FundingTransfer) => ({
          chain: t.chain,
          transaction_hash: t.transactionHash,
          log_index: t.index,
          block_number: t.blockNumber,
          amount: t.amount
        }))
      })
    )
    .annotate({ identifier: "TransferRow" })
)

/** A `ledger_entries` row ↔ `LedgerEntry`; its `version` (the commit's) is added by the commit. */
export const LedgerRow = compiled(
  Schema.Struct({
    contract_id: Schema.String,
    partner_id: Schema.String,
    environment: Partner.Environment,
    kind: Ledger.EntryKind,
    account: Ledger.Account,
    currency: Rail.FundsCurrency,
    amount: Numeric,
    at: Timestamp
  })
    .pipe(
      Schema.decodeTo(Ledger.LedgerEntry, {
        decode: SchemaGetter.transform(
          (r): Ledger.LedgerEntry => ({
            contractId: r.contract_id,
            partnerId: r.partner_id,
            environment: r.environment,
            kind: r.kind,
            account: r.account,
            currency: r.currency,
            amount: r.amount,
            at: r.at
          })
        ),
        encode: SchemaGetter.transform((e: Ledger.LedgerEntry) => ({
          contract_id: e.contractId,
          partner_id: e.partnerId,
          environment: e.environment,
          kind: e.kind,
          account: e.account,
          currency: e.currency,
          amount: e.amount,
          at: e.at
        }))
      })
    )
    .annotate({ identifier: "LedgerRow" })
)
