/**
 * `ContractRepo.commit` on Postgres: one statement. It compare-and-sets the contract on its version,
 * appends the new history entry and writes the outgoing event, the incoming event, the funding
 * transfer (and the funding cursor past it) and the ledger entries. Nothing is read first to stop duplicates: a version that no
 * longer matches or a unique key already taken fails the whole statement as `StaleContract`.
 */
import { type ContractRepo, Ledger, Money, StoreError } from "@ratelock/core"
import { Array, Effect } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import { contractRow, historyRows, ledgerRow, transferRow } from "./rows/contracts.ts"
import { incomingRow, outgoingRow } from "./rows/events.ts"
import { isConflict, storeError } from "./sql.ts"

/** Entries that do not sum to zero per currency are a bug in the caller: a defect. */
const unbalanced = (entries: ReadonlyArray<Ledger.LedgerEntry>): string | undefined => {
  for (const [currency, total] of Ledger.balances(entries)) {
    if (!Money.isZero(total)) return `${currency} ${Money.format(total)}`
  }
  return undefined
}

export const commit = (sql: SqlClient.SqlClient) =>
  Effect.fn("PgContractRepo.commit")(function* (change: ContractRepo.ContractChange) {
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
    const row = contractRow(contract)
    const entry = historyRows(contract.id, version, contract.history.slice(change.expectedVersion))[0]!
    const ledger: ReadonlyArray<ReturnType<typeof ledgerRow>> = change.ledger.map((e) => ledgerRow(e, version))
    // the rows the transition brings, as data-modifying CTEs of the same statement
    const rows: Array<Statement.Fragment> = []
    if (change.outgoing !== null) {
      rows.push(sql`outgoing AS (INSERT INTO webhook_events ${sql.insert(outgoingRow(change.outgoing))})`)
    }
    if (change.incoming !== null) {
      rows.push(sql`incoming AS (INSERT INTO webhook_events ${sql.insert(incomingRow(change.incoming))})`)
    }
    if (change.transfer !== null) {
      rows.push(sql`transfer AS (INSERT INTO funding_transfers ${sql.insert(transferRow(change.transfer, row))})`)
    }
    if (Array.isReadonlyArrayNonEmpty(ledger)) {
      rows.push(sql`ledger AS (INSERT INTO ledger_entries ${sql.insert(ledger)})`)
    }
    // one statement, so one round trip and no BEGIN / COMMIT: the compare-and-set with its history
    // entry, the rows above, and a guard that fails it all (40001) when the version did not match
    yield* sql`WITH moved AS (UPDATE contracts
          SET ${sql.update(row, ["id"])}, lease_owner = NULL, lease_expires_at = NULL${
            change.fundingCursor === undefined ? sql`` : sql`, funding_cursor = ${change.fundingCursor}`
          }
          WHERE id = ${contract.id} AND version = ${change.expectedVersion}
          RETURNING id),
        history AS (INSERT INTO contract_history (contract_id, seq, status, at, cause)
          SELECT moved.id, ${version}::int, ${entry.status}, ${entry.at}::timestamptz, ${entry.cause}
          FROM moved RETURNING contract_id)${rows.length > 0 ? sql`, ${sql.csv(rows)}` : sql``}
        SELECT ratelock_conflict_unless(EXISTS (SELECT 1 FROM history))`.pipe(
      Effect.mapError((e) =>
        isConflict(e)
          ? new StoreError.StaleContract({ contractId: contract.id })
          : storeError("PgContractRepo.commit", e)
      )
    )
  })
