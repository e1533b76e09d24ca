/**
 * `ContractRepo.commit` on Postgres: one statement. It compare-and-sets the contract on its version,
 * appends the new history entry and writes the outgoing event, the incoming event, the funding
 * transfer (and the funding cursor past it) and the ledger entries. Nothing is read first to stop duplicates: a version that no
 * longer matches or a unique key already taken fails the whole statement as `StaleContract`.
 */
import { type ContractRepo, Ledger, Money, StoreError } from "@ratelock/core"
import { Array, Effect, Schema } from "effect"
import { type SqlClient, SqlError, SqlSchema, type Statement } from "effect/sql"
import { isConflict, orStoreError } from "./sql.ts"
import { ContractRow, columnsOf, HistoryRow, LedgerRow, TransferRow } from "./rows/contracts.ts"
import { IncomingRow, OutgoingRow } from "./rows/events.ts"

/** Entries that do not sum to zero per currency are a bug in the caller: a defect. */
const unbalanced = (entries: ReadonlyArray<Ledger.LedgerEntry>): string | undefined => {
  for (const [currency, total] of Ledger.balances(entries)) {
    if (!Money.isZero(total)) return `${currency} ${Money.format(total)}`
  }
  return undefined
}

/** A change as the rows it writes. */
const Commit = Schema.Struct({
  contract: ContractRow,
  expectedVersion: Schema.Int,
  entry: HistoryRow,
  outgoing: Schema.NullOr(OutgoingRow),
  incoming: Schema.NullOr(IncomingRow),
  transfer: Schema.NullOr(TransferRow),
  ledger: Schema.Array(LedgerRow),
  fundingCursor: Schema.optional(Schema.String)
})

export const commit = (sql: SqlClient.SqlClient) => {
  const write = SqlSchema.void({
    Request: Commit,
    execute: (change) => {
      const contract = change.contract
      const version = change.entry.seq
      // the rows the transition brings, as data-modifying CTEs of the same statement
      const rows: Array<Statement.Fragment> = []
      if (change.outgoing !== null) {
        rows.push(sql`outgoing AS (INSERT INTO webhook_events ${sql.insert(change.outgoing)})`)
      }
      if (change.incoming !== null) {
        rows.push(sql`incoming AS (INSERT INTO webhook_events ${sql.insert(change.incoming)})`)
      }
      if (change.transfer !== null) {
        const transfer = { ...change.transfer, contract_id: contract.id, counted_at: contract.updated_at }
        rows.push(sql`transfer AS (INSERT INTO funding_transfers ${sql.insert(transfer)})`)
      }
      // the entries of one commit carry the contract version it produced
      const ledger: ReadonlyArray<(typeof change.ledger)[number] & { readonly version: number }> = change.ledger.map(
        (row) => ({ ...row, version })
      )
      if (Array.isReadonlyArrayNonEmpty(ledger)) {
        rows.push(sql`ledger AS (INSERT INTO ledger_entries ${sql.insert(ledger)})`)
      }
      // one statement, so one round trip and no BEGIN / COMMIT: the compare-and-set with its history
      // entry, the rows above, and a guard that fails it all (40001) when the version did not match
      return sql`WITH moved AS (UPDATE contracts
          SET ${sql.update(columnsOf(contract), ["id"])}, lease_owner = NULL, lease_expires_at = NULL${
            change.fundingCursor === undefined ? sql`` : sql`, funding_cursor = ${change.fundingCursor}`
          }
          WHERE id = ${contract.id} AND version = ${change.expectedVersion}
          RETURNING id),
        history AS (INSERT INTO contract_history (contract_id, seq, status, at, cause)
          SELECT moved.id, ${version}::int, ${change.entry.status}, ${change.entry.at}::timestamptz, ${change.entry.cause}
          FROM moved RETURNING contract_id)${rows.length > 0 ? sql`, ${sql.csv(rows)}` : sql``}
        SELECT ratelock_conflict_unless(EXISTS (SELECT 1 FROM history))`
    }
  })

  return Effect.fn("PgContractRepo.commit")(
    function* (change: ContractRepo.ContractChange) {
      const contract = change.contract
      if (contract.history.length !== change.expectedVersion + 1) {
        return yield* Effect.die(
          new Error(
            `commit of contract ${contract.id} must add exactly one history entry to version ${change.expectedVersion}`
          )
        )
      }
      const imbalance = unbalanced(change.ledger)
      if (imbalance !== undefined) {
        return yield* Effect.die(new Error(`ledger entries of contract ${contract.id} do not balance: ${imbalance}`))
      }
      const version = contract.history.length
      yield* write({
        contract,
        expectedVersion: change.expectedVersion,
        entry: { contract_id: contract.id, seq: version, ...contract.history[version - 1]! },
        outgoing: change.outgoing,
        incoming: change.incoming,
        transfer: change.transfer,
        ledger: change.ledger,
        fundingCursor: change.fundingCursor
      })
    },
    (effect, change) =>
      Effect.catchIf(
        effect,
        (e) => SqlError.isSqlError(e) && isConflict(e),
        () => Effect.fail(new StoreError.StaleContract({ contractId: change.contract.id }))
      ).pipe(orStoreError("PgContractRepo.commit"))
  )
}
