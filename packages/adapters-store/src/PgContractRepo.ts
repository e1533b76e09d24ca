/**
 * `ContractRepo` on Postgres. A contract row carries its version (the number of history
 * entries), which `commit` compare-and-sets; workers claim due contracts with a lease taken under
 * `FOR UPDATE SKIP LOCKED`, which the next commit releases. Transfers that did not fund their
 * contract are kept in `unmatched_transfers`, one row per chain identity.
 */
import {
  ApiError,
  type Contract,
  ContractRepo,
  type Cursor,
  type Lease,
  type Partner,
  StoreError
} from "@ratelock/core"
import { Array, type DateTime, Effect, Layer, Option } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import {
  int,
  isConflict,
  isUuid,
  leaseUntil,
  orStoreError,
  storeError,
  timestamp,
  uniqueConstraint
} from "./internal/codec.ts"
import { commit } from "./internal/commit.ts"
import {
  type ContractRow,
  fromRow,
  historyRows,
  type LedgerRow,
  ledgerFromRow,
  selectColumns,
  toRow
} from "./internal/contractRows.ts"
import * as FundingWatchRows from "./internal/fundingWatchRows.ts"
import { fundingIndexSequence } from "./PgMigrations.ts"
import { after, before } from "./internal/keyset.ts"
import { type UnmatchedRow, unmatchedFromRow, unmatchedRow } from "./internal/unmatchedRows.ts"

const alreadyAccepted = (quoteId: string) =>
  new ApiError.QuoteAlreadyAccepted({ message: `quote ${quoteId} already has a contract` })

export const layer: Layer.Layer<ContractRepo.ContractRepo, never, SqlClient.SqlClient> = Layer.effect(
  ContractRepo.ContractRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = selectColumns(sql)
    const one = (rows: ReadonlyArray<ContractRow>) => Option.map(Option.fromNullishOr(rows[0]), fromRow)

    /** Why the guard found no quote to accept: another contract took it, or it is not the partner's. */
    const notAccepted = (contract: Contract.ContractRecord) =>
      Effect.gen(function* () {
        const quote = yield* sql`SELECT 1 FROM quotes WHERE id = ${contract.quoteId}
          AND partner_id = ${contract.partnerId} AND environment = ${contract.environment}`
        return yield* quote.length > 0
          ? Effect.fail(alreadyAccepted(contract.quoteId))
          : Effect.fail(new StoreError.StoreError({ message: `quote ${contract.quoteId} not found` }))
      }).pipe(orStoreError("PgContractRepo.insert"))

    /**
     * One statement: the quote marked accepted (only if it was not), the contract and its first
     * history entries; the guard fails it whole when the quote was taken or is not the partner's.
     */
    const insert = Effect.fn("PgContractRepo.insert")(
      function* (contract: Contract.ContractRecord) {
        const scope = sql`partner_id = ${contract.partnerId} AND environment = ${contract.environment}`
        const history = historyRows(contract.id, 1, contract.history)
        yield* sql`WITH accepted AS (UPDATE quotes SET accepted_at = ${timestamp(contract.createdAt)}
            WHERE id = ${contract.quoteId} AND ${scope} AND accepted_at IS NULL RETURNING id),
          inserted AS (INSERT INTO contracts ${sql.insert(toRow(contract))})${
            Array.isReadonlyArrayNonEmpty(history)
              ? sql`, history AS (INSERT INTO contract_history ${sql.insert(history)})`
              : sql``
          }
          SELECT ratelock_conflict_unless(EXISTS (SELECT 1 FROM accepted))`
      },
      (effect, contract) =>
        Effect.catch(effect, (e) =>
          Option.contains(uniqueConstraint(e), "contracts_quote_unique")
            ? Effect.fail(alreadyAccepted(contract.quoteId))
            : isConflict(e)
              ? notAccepted(contract)
              : Effect.fail(storeError("PgContractRepo.insert", e))
        )
    )

    const find = Effect.fn("PgContractRepo.find")(function* (scope: Partner.PartnerScope, id: string) {
      if (!isUuid(id)) return Option.none()
      return one(
        yield* sql<ContractRow>`SELECT ${columns} FROM contracts c
          WHERE c.id = ${id} AND c.partner_id = ${scope.partnerId} AND c.environment = ${scope.environment}`
      )
    }, orStoreError("PgContractRepo.find"))

    const findById = Effect.fn("PgContractRepo.findById")(function* (id: string) {
      if (!isUuid(id)) return Option.none()
      return one(yield* sql<ContractRow>`SELECT ${columns} FROM contracts c WHERE c.id = ${id}`)
    }, orStoreError("PgContractRepo.findById"))

    const findByQuote = Effect.fn("PgContractRepo.findByQuote")(function* (
      scope: Partner.PartnerScope,
      quoteId: string
    ) {
      if (!isUuid(quoteId)) return Option.none()
      return one(
        yield* sql<ContractRow>`SELECT ${columns} FROM contracts c
          WHERE c.quote_id = ${quoteId} AND c.partner_id = ${scope.partnerId} AND c.environment = ${scope.environment}`
      )
    }, orStoreError("PgContractRepo.findByQuote"))

    const listByCustomer = Effect.fn("PgContractRepo.listByCustomer")(function* (
      scope: Partner.PartnerScope,
      customerReferenceId: string,
      filter: ContractRepo.LockFilter
    ) {
      const where = [
        sql`partner_id = ${scope.partnerId}`,
        sql`environment = ${scope.environment}`,
        sql`customer_reference_id = ${customerReferenceId}`
      ]
      if (filter.status !== undefined) where.push(sql`status = ${filter.status}`)
      if (filter.after !== undefined) where.push(before(sql, filter.after))
      const rows = yield* sql<ContractRow>`SELECT ${columns} FROM contracts c WHERE ${sql.and(where)}
        ORDER BY created_at DESC, id DESC LIMIT ${filter.limit}`
      return rows.map(fromRow)
    }, orStoreError("PgContractRepo.listByCustomer"))

    const listByStatus = Effect.fn("PgContractRepo.listByStatus")(function* (
      statuses: ReadonlyArray<Contract.ContractStatus>,
      limit: number,
      position?: Cursor.Position
    ) {
      const rows = yield* sql<ContractRow>`SELECT ${columns} FROM contracts c
        WHERE c.status = ANY(${statuses}::text[]) AND ${position === undefined ? sql`TRUE` : after(sql, position)}
        ORDER BY c.created_at, c.id LIMIT ${limit}`
      return rows.map(fromRow)
    }, orStoreError("PgContractRepo.listByStatus"))

    const listPayoutWork = Effect.fn("PgContractRepo.listPayoutWork")(function* (
      limit: number,
      position?: Cursor.Position
    ) {
      const rows = yield* sql<ContractRow>`SELECT ${columns} FROM contracts c
        WHERE c.status = 'exercised' AND ${position === undefined ? sql`TRUE` : after(sql, position)}
          AND NOT EXISTS (SELECT 1 FROM payouts p WHERE p.contract_id = c.id AND p.status <> 'confirmed')
        ORDER BY c.created_at, c.id LIMIT ${limit}`
      return rows.map(fromRow)
    }, orStoreError("PgContractRepo.listPayoutWork"))

    const listFundingWatches = Effect.fn("PgContractRepo.listFundingWatches")(function* (
      limit: number,
      position?: Cursor.Position
    ) {
      const rows = yield* sql<FundingWatchRows.FundingWatchRow>`SELECT ${FundingWatchRows.columns(sql)} FROM contracts
        WHERE status = ANY(${ContractRepo.awaitingFunds}::text[]) AND ${position === undefined ? sql`TRUE` : after(sql, position)}
        ORDER BY created_at, id LIMIT ${limit}`
      return rows.map(FundingWatchRows.fromRow)
    }, orStoreError("PgContractRepo.listFundingWatches"))

    const listLateFundingWatches = Effect.fn("PgContractRepo.listLateFundingWatches")(function* (
      since: DateTime.Utc,
      limit: number,
      position?: Cursor.Position
    ) {
      const rows = yield* sql<FundingWatchRows.FundingWatchRow>`SELECT ${FundingWatchRows.columns(sql)} FROM contracts
        WHERE updated_at >= ${timestamp(since)} AND NOT (status = ANY(${ContractRepo.awaitingFunds}::text[]))
          AND ${position === undefined ? sql`TRUE` : after(sql, position)}
        ORDER BY created_at, id LIMIT ${limit}`
      return rows.map(FundingWatchRows.fromRow)
    }, orStoreError("PgContractRepo.listLateFundingWatches"))

    /**
     * Leases up to `claim.limit` due contracts nobody holds (or whose lease ended), oldest first,
     * skipping rows other claimers are locking right now.
     */
    const claimWhere = (claim: Lease.Claim, due: Statement.Fragment) => {
      const now = timestamp(claim.now)
      return sql<ContractRow>`WITH due AS MATERIALIZED (
          SELECT id FROM contracts
          WHERE ${due} AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})
          ORDER BY created_at, id LIMIT ${claim.limit}
          FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE contracts SET lease_owner = ${claim.owner}, lease_expires_at = ${leaseUntil(claim)}
          FROM due WHERE contracts.id = due.id
          RETURNING contracts.*
        )
        SELECT ${columns} FROM claimed c ORDER BY c.created_at, c.id`.pipe(Effect.map((rows) => rows.map(fromRow)))
    }

    const claimDueForExpiry = Effect.fn("PgContractRepo.claimDueForExpiry")(function* (claim: Lease.Claim) {
      return yield* claimWhere(claim, sql`status = 'active' AND window_end < ${timestamp(claim.now)}`)
    }, orStoreError("PgContractRepo.claimDueForExpiry"))

    const claimDueForFundingDeadline = Effect.fn("PgContractRepo.claimDueForFundingDeadline")(function* (
      claim: Lease.Claim
    ) {
      return yield* claimWhere(
        claim,
        sql`status IN ('quote_created', 'funds_in_route') AND funding_deadline < ${timestamp(claim.now)}`
      )
    }, orStoreError("PgContractRepo.claimDueForFundingDeadline"))

    const ledgerEntries = Effect.fn("PgContractRepo.ledgerEntries")(function* (contractId: string) {
      if (!isUuid(contractId)) return []
      const rows = yield* sql<LedgerRow>`SELECT * FROM ledger_entries WHERE contract_id = ${contractId} ORDER BY id`
      return rows.map(ledgerFromRow)
    }, orStoreError("PgContractRepo.ledgerEntries"))

    const allocateFundingIndex = Effect.fn("PgContractRepo.allocateFundingIndex")(function* (rail: {
      readonly chain: string
      readonly environment: string
    }) {
      // one sequence per chain and environment (migration 5): no row lock, no write of its own
      const sequence = fundingIndexSequence(rail.chain, rail.environment)
      const rows = yield* sql<{ index: bigint }>`SELECT nextval(${sequence}::regclass) AS index`
      return int(rows[0]!.index)
    }, orStoreError("PgContractRepo.allocateFundingIndex"))

    const saveFundingCursor = Effect.fn("PgContractRepo.saveFundingCursor")(function* (
      contractId: string,
      cursor: string
    ) {
      yield* sql`UPDATE contracts SET funding_cursor = ${cursor} WHERE id = ${contractId}`
    }, orStoreError("PgContractRepo.saveFundingCursor"))

    const fundingCursor = Effect.fn("PgContractRepo.fundingCursor")(function* (contractId: string) {
      if (!isUuid(contractId)) return Option.none()
      const rows = yield* sql<{ funding_cursor: string | null }>`SELECT funding_cursor FROM contracts
        WHERE id = ${contractId}`
      return Option.fromNullishOr(rows[0]?.funding_cursor)
    }, orStoreError("PgContractRepo.fundingCursor"))

    const recordUnmatchedTransfer = Effect.fn("PgContractRepo.recordUnmatchedTransfer")(function* (
      transfer: ContractRepo.UnmatchedTransfer
    ) {
      // a transfer a commit counted is funding (seen again after its contract moved on), not unmatched;
      // nothing counts it later: a contract that refuses funds never takes them again
      const counted = yield* sql`SELECT 1 FROM funding_transfers
        WHERE chain = ${transfer.chain} AND transaction_hash = ${transfer.transactionHash}
          AND log_index = ${transfer.index}`
      if (counted.length > 0) return
      yield* sql`INSERT INTO unmatched_transfers ${sql.insert(unmatchedRow(transfer))}
        ON CONFLICT (chain, transaction_hash, log_index) DO NOTHING`
    }, orStoreError("PgContractRepo.recordUnmatchedTransfer"))

    const unmatchedTransfers = Effect.fn("PgContractRepo.unmatchedTransfers")(function* (
      filter: ContractRepo.UnmatchedFilter
    ) {
      const { contractId } = filter
      if (contractId !== undefined && !isUuid(contractId)) return []
      const rows = yield* sql<UnmatchedRow>`SELECT * FROM unmatched_transfers
        WHERE ${contractId === undefined ? sql`TRUE` : sql`contract_id = ${contractId}`}
        ORDER BY observed_at, block_number, log_index, transaction_hash COLLATE "C"
        LIMIT ${Math.max(0, filter.limit)}`
      return rows.map(unmatchedFromRow)
    }, orStoreError("PgContractRepo.unmatchedTransfers"))

    return ContractRepo.ContractRepo.of({
      insert,
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
      unmatchedTransfers
    })
  })
)
