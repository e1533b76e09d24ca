/**
 * `ContractRepo` on Postgres. A contract row carries its version (the number of history
 * entries), which `commit` compare-and-sets; workers claim due contracts with a lease taken under
 * `FOR UPDATE SKIP LOCKED`, which the next commit releases. Transfers that did not fund their
 * contract are kept in `unmatched_transfers`, one row per chain identity.
 */
import {
  type Contract,
  ContractRepo,
  type Cursor,
  type Lease,
  type Partner,
  Rail,
  StoreError,
  TreasuryLedger
} from "@ratelock/core"
import { Array, type DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { commit } from "./internal/commit.ts"
import { insert } from "./internal/insert.ts"
import { after, before, type Page } from "./internal/keyset.ts"
import { Int8, int, timestamp } from "./internal/rows/columns.ts"
import { ContractRow, fundingIndexSequence, LedgerRow, selectColumns } from "./internal/rows/contracts.ts"
import * as FundingWatchRows from "./internal/rows/fundingWatches.ts"
import { UnmatchedRow, unmatchedRow } from "./internal/rows/unmatched.ts"
import { type Claim, claimJobs, isUuid, orStoreError, Parameters } from "./internal/sql.ts"
import { bookingCtes } from "./internal/treasury.ts"

type InScope = Partner.PartnerScope & { readonly id: string }

interface ListByCustomer extends Partner.PartnerScope, ContractRepo.LockFilter {
  readonly customerReferenceId: string
}

export const layer: Layer.Layer<ContractRepo.ContractRepo, never, SqlClient.SqlClient> = Layer.effect(
  ContractRepo.ContractRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = selectColumns(sql)
    const after_ = (position: Cursor.Position | undefined) =>
      position === undefined ? sql`TRUE` : after(sql, position)

    const byId = SqlSchema.findOneOption({
      Request: Parameters<string>(),
      Result: ContractRow,
      execute: (id) => sql`SELECT ${columns} FROM contracts c WHERE c.id = ${id}`
    })

    const inScope = SqlSchema.findOneOption({
      Request: Parameters<InScope>(),
      Result: ContractRow,
      execute: (r) => sql`SELECT ${columns} FROM contracts c
        WHERE c.id = ${r.id} AND c.partner_id = ${r.partnerId} AND c.environment = ${r.environment}`
    })

    const find = Effect.fn("PgContractRepo.find")(function* (scope: Partner.PartnerScope, id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* inScope({ ...scope, id })
    }, orStoreError("PgContractRepo.find"))

    const findById = Effect.fn("PgContractRepo.findById")(function* (id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* byId(id)
    }, orStoreError("PgContractRepo.findById"))

    const byQuote = SqlSchema.findOneOption({
      Request: Parameters<Partner.PartnerScope & { readonly quoteId: string }>(),
      Result: ContractRow,
      execute: (r) => sql`SELECT ${columns} FROM contracts c
        WHERE c.quote_id = ${r.quoteId} AND c.partner_id = ${r.partnerId} AND c.environment = ${r.environment}`
    })

    const findByQuote = Effect.fn("PgContractRepo.findByQuote")(function* (
      scope: Partner.PartnerScope,
      quoteId: string
    ) {
      if (!isUuid(quoteId)) return Option.none()
      return yield* byQuote({ ...scope, quoteId })
    }, orStoreError("PgContractRepo.findByQuote"))

    const byCustomer = SqlSchema.findAll({
      Request: Parameters<ListByCustomer>(),
      Result: ContractRow,
      execute: (r) => {
        const where = [
          sql`partner_id = ${r.partnerId}`,
          sql`environment = ${r.environment}`,
          sql`customer_reference_id = ${r.customerReferenceId}`
        ]
        if (r.status !== undefined) where.push(sql`status = ${r.status}`)
        if (r.after !== undefined) where.push(before(sql, r.after))
        return sql`SELECT ${columns} FROM contracts c WHERE ${sql.and(where)}
          ORDER BY created_at DESC, id DESC LIMIT ${r.limit}`
      }
    })

    const listByCustomer = Effect.fn("PgContractRepo.listByCustomer")(function* (
      scope: Partner.PartnerScope,
      customerReferenceId: string,
      filter: ContractRepo.LockFilter
    ) {
      return yield* byCustomer({ ...scope, customerReferenceId, ...filter })
    }, orStoreError("PgContractRepo.listByCustomer"))

    const byStatus = SqlSchema.findAll({
      Request: Parameters<Page & { readonly statuses: ReadonlyArray<Contract.ContractStatus> }>(),
      Result: ContractRow,
      execute: (r) => sql`SELECT ${columns} FROM contracts c
        WHERE c.status = ANY(${r.statuses}::text[]) AND ${after_(r.after)}
        ORDER BY c.created_at, c.id LIMIT ${r.limit}`
    })

    const listByStatus = Effect.fn("PgContractRepo.listByStatus")(function* (
      statuses: ReadonlyArray<Contract.ContractStatus>,
      limit: number,
      position?: Cursor.Position
    ) {
      return yield* byStatus({ statuses, limit, after: position })
    }, orStoreError("PgContractRepo.listByStatus"))

    const payoutWork = SqlSchema.findAll({
      Request: Parameters<Page>(),
      Result: ContractRow,
      execute: (r) => sql`SELECT ${columns} FROM contracts c
        WHERE c.status = 'exercised' AND ${after_(r.after)}
          AND NOT EXISTS (SELECT 1 FROM payouts p WHERE p.contract_id = c.id AND p.status <> 'confirmed')
        ORDER BY c.created_at, c.id LIMIT ${r.limit}`
    })

    const listPayoutWork = Effect.fn("PgContractRepo.listPayoutWork")(function* (
      limit: number,
      position?: Cursor.Position
    ) {
      return yield* payoutWork({ limit, after: position })
    }, orStoreError("PgContractRepo.listPayoutWork"))

    const fundingWatches = SqlSchema.findAll({
      Request: Parameters<Page>(),
      Result: FundingWatchRows.FundingWatchRow,
      execute: (r) => sql`SELECT ${FundingWatchRows.columns(sql)} FROM contracts
        WHERE status = ANY(${ContractRepo.awaitingFunds}::text[]) AND ${after_(r.after)}
        ORDER BY created_at, id LIMIT ${r.limit}`
    })

    const listFundingWatches = Effect.fn("PgContractRepo.listFundingWatches")(function* (
      limit: number,
      position?: Cursor.Position
    ) {
      return yield* fundingWatches({ limit, after: position })
    }, orStoreError("PgContractRepo.listFundingWatches"))

    const lateFundingWatches = SqlSchema.findAll({
      Request: Parameters<Page & { readonly since: Date }>(),
      Result: FundingWatchRows.FundingWatchRow,
      execute: (r) => sql`SELECT ${FundingWatchRows.columns(sql)} FROM contracts
        WHERE updated_at >= ${r.since} AND NOT (status = ANY(${ContractRepo.awaitingFunds}::text[]))
          AND ${after_(r.after)}
        ORDER BY created_at, id LIMIT ${r.limit}`
    })

    const listLateFundingWatches = Effect.fn("PgContractRepo.listLateFundingWatches")(function* (
      since: DateTime.Utc,
      limit: number,
      position?: Cursor.Position
    ) {
      return yield* lateFundingWatches({ since: timestamp(since), limit, after: position })
    }, orStoreError("PgContractRepo.listLateFundingWatches"))

    /** Leases the due contracts nobody holds (`claimJobs`). */
    const claimWhere = (due: (claim: Claim) => Statement.Fragment) =>
      claimJobs({ sql, table: "contracts", Result: ContractRow, due, select: columns })

    const dueForExpiry = claimWhere((claim) => sql`status = 'active' AND window_end < ${claim.now}`)

    const claimDueForExpiry = Effect.fn("PgContractRepo.claimDueForExpiry")(function* (claim: Lease.Claim) {
      return yield* dueForExpiry(claim)
    }, orStoreError("PgContractRepo.claimDueForExpiry"))

    const dueForFundingDeadline = claimWhere(
      (claim) => sql`status IN ('quote_created', 'funds_in_route') AND funding_deadline < ${claim.now}`
    )

    const claimDueForFundingDeadline = Effect.fn("PgContractRepo.claimDueForFundingDeadline")(function* (
      claim: Lease.Claim
    ) {
      return yield* dueForFundingDeadline(claim)
    }, orStoreError("PgContractRepo.claimDueForFundingDeadline"))

    const ledgerOf = SqlSchema.findAll({
      Request: Parameters<string>(),
      Result: LedgerRow,
      execute: (contractId) => sql`SELECT * FROM ledger_entries WHERE contract_id = ${contractId} ORDER BY id`
    })

    const ledgerEntries = Effect.fn("PgContractRepo.ledgerEntries")(function* (contractId: string) {
      if (!isUuid(contractId)) return []
      return yield* ledgerOf(contractId)
    }, orStoreError("PgContractRepo.ledgerEntries"))

    // one sequence per chain and environment (migration 5): no row lock, no write of its own
    const nextFundingIndex = SqlSchema.findOne({
      Request: Parameters<{ readonly chain: Rail.Chain; readonly environment: string }>(),
      Result: Schema.Struct({ index: Int8 }),
      execute: (rail) => sql`SELECT nextval(${fundingIndexSequence(rail.chain, rail.environment)}::regclass) AS index`
    })

    const allocateFundingIndex = Effect.fn("PgContractRepo.allocateFundingIndex")(function* (rail: {
      readonly chain: Rail.Chain
      readonly environment: string
    }) {
      return int((yield* nextFundingIndex(rail)).index)
    }, orStoreError("PgContractRepo.allocateFundingIndex"))

    const saveFundingCursor = Effect.fn("PgContractRepo.saveFundingCursor")(function* (
      contractId: string,
      cursor: string
    ) {
      yield* sql`UPDATE contracts SET funding_cursor = ${cursor} WHERE id = ${contractId}`
    }, orStoreError("PgContractRepo.saveFundingCursor"))

    const cursorOf = SqlSchema.findOneOption({
      Request: Parameters<string>(),
      Result: Schema.Struct({ funding_cursor: Schema.NullOr(Schema.String) }),
      execute: (contractId) => sql`SELECT funding_cursor FROM contracts WHERE id = ${contractId}`
    })

    const fundingCursor = Effect.fn("PgContractRepo.fundingCursor")(function* (contractId: string) {
      if (!isUuid(contractId)) return Option.none()
      return Option.flatMap(yield* cursorOf(contractId), (row) => Option.fromNullishOr(row.funding_cursor))
    }, orStoreError("PgContractRepo.fundingCursor"))

    const unmatchedOf = SqlSchema.findOneOption({
      Request: Parameters<ContractRepo.UnmatchedTransfer>(),
      Result: Schema.Struct({
        funding_wallet_address: Schema.String,
        settlement_currency: Rail.SettlementCurrency,
        counted: Schema.Boolean
      }),
      execute: (t) => sql`SELECT c.funding_wallet_address, c.settlement_currency, EXISTS (
          SELECT 1 FROM funding_transfers f
          WHERE f.chain = ${t.chain} AND f.transaction_hash = ${t.transactionHash} AND f.log_index = ${t.index}
        ) AS counted
        FROM contracts c WHERE c.id = ${t.contractId}`
    })

    // a transfer a commit counted is funding (seen again after its contract moved on), not unmatched;
    // nothing counts it later: a contract that refuses funds never takes them again. One of the
    // settlement token is booked in the treasury ledger by the statement that records it
    // (`TreasuryLedger.unmatchedEntries`), its source once whoever records it again
    const recordUnmatchedTransfer = Effect.fn("PgContractRepo.recordUnmatchedTransfer")(function* (
      transfer: ContractRepo.UnmatchedTransfer
    ) {
      const found = isUuid(transfer.contractId) ? yield* unmatchedOf(transfer) : Option.none()
      if (Option.isNone(found)) {
        return yield* new StoreError.StoreError({ message: `contract ${transfer.contractId} does not exist` })
      }
      if (found.value.counted) return
      const entries = TreasuryLedger.unmatchedEntries(transfer, {
        fundingWalletAddress: found.value.funding_wallet_address,
        settlementCurrency: found.value.settlement_currency
      })
      const recorded = sql`INSERT INTO unmatched_transfers ${sql.insert(unmatchedRow(transfer))}
        ON CONFLICT (chain, transaction_hash, log_index) DO NOTHING`
      yield* Array.isReadonlyArrayNonEmpty(entries)
        ? sql`WITH recorded AS (${recorded}), ${bookingCtes(sql, entries)} SELECT 1`
        : recorded
    }, orStoreError("PgContractRepo.recordUnmatchedTransfer"))

    const unmatchedRows = SqlSchema.findAll({
      Request: Parameters<ContractRepo.UnmatchedFilter>(),
      Result: UnmatchedRow,
      execute: (r) => sql`SELECT * FROM unmatched_transfers
        WHERE ${r.contractId === undefined ? sql`TRUE` : sql`contract_id = ${r.contractId}`}
          AND ${r.transactionHash === undefined ? sql`TRUE` : sql`lower(transaction_hash) = lower(${r.transactionHash})`}
        ORDER BY observed_at, block_number, log_index, transaction_hash COLLATE "C"
        LIMIT ${Math.max(0, r.limit)}`
    })

    const unmatchedTransfers = Effect.fn("PgContractRepo.unmatchedTransfers")(function* (
      filter: ContractRepo.UnmatchedFilter
    ) {
      if (filter.contractId !== undefined && !isUuid(filter.contractId)) return []
      return yield* unmatchedRows(filter)
    }, orStoreError("PgContractRepo.unmatchedTransfers"))

    const countedByHash = SqlSchema.findAll({
      Request: Parameters<{ readonly hash: string; readonly index: number | undefined }>(),
      Result: Schema.Struct({
        contract_id: Schema.String,
        chain: Rail.Chain,
        transaction_hash: Schema.String,
        log_index: Schema.Number
      }),
      execute: (q) => sql`SELECT contract_id, chain, transaction_hash, log_index FROM funding_transfers
        WHERE lower(transaction_hash) = lower(${q.hash})${q.index === undefined ? sql`` : sql` AND log_index = ${q.index}`}
        ORDER BY chain, log_index`
    })

    const fundingTransfersByHash = Effect.fn("PgContractRepo.fundingTransfersByHash")(function* (
      hash: string,
      index?: number
    ) {
      const rows = yield* countedByHash({ hash, index })
      return rows.map(
        (r): ContractRepo.CountedTransfer => ({
          contractId: r.contract_id,
          chain: r.chain,
          transactionHash: r.transaction_hash,
          index: r.log_index
        })
      )
    }, orStoreError("PgContractRepo.fundingTransfersByHash"))

    return ContractRepo.ContractRepo.of({
      insert: insert(sql),
      find,
      findById,
      findByQuote,
      listByCustomer,
      commit: commit(sql),
      listByStatus,
      listPayoutWork,
      listFundingWatches,
      listLateFundingWatches,
      claimDueForExpiry,
      claimDueForFundingDeadline,
      ledgerEntries,
      allocateFundingIndex,
      saveFundingCursor,
      fundingCursor,
      recordUnmatchedTransfer,
      unmatchedTransfers,
      fundingTransfersByHash
    })
  })
)
