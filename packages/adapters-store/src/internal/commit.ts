/**
 * `ContractRepo.commit` on Postgres: one transaction that compare-and-sets the contract on its
 * version, appends the new history entry, and writes the outgoing event, the incoming event,
 * the funding transfer and the ledger entries. Nothing is read first to stop duplicates: unique
 * keys do, and any conflict rolls the whole transaction back as `StaleContract`.
 */
import { type ContractRepo, Ledger, Money, StoreError } from "@ratelock/core"
import { Array, Effect } from "effect"
import { type SqlClient, SqlError } from "effect/sql"
import { isConflict, storeError } from "./codec.ts"
import { historyRows, ledgerRows, toRow, transferRow } from "./contractRows.ts"
import { incomingRow, outgoingRow } from "./eventRows.ts"

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
    const fresh = contract.history.slice(change.expectedVersion)
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
    const { id: _, ...columns } = toRow(contract)
    const write = Effect.gen(function* () {
      const moved = yield* sql`UPDATE contracts
        SET ${sql.update(columns)}, lease_owner = NULL, lease_expires_at = NULL
        WHERE id = ${contract.id} AND version = ${change.expectedVersion}
        RETURNING id`
      if (moved.length === 0) return yield* new StoreError.StaleContract({ contractId: contract.id })
      const history = historyRows(contract.id, change.expectedVersion + 1, fresh)
      if (Array.isReadonlyArrayNonEmpty(history)) yield* sql`INSERT INTO contract_history ${sql.insert(history)}`
      if (change.outgoing !== null) {
        yield* sql`INSERT INTO webhook_events ${sql.insert(outgoingRow(change.outgoing))}`
      }
      if (change.incoming !== null) {
        yield* sql`INSERT INTO webhook_events ${sql.insert(incomingRow(change.incoming))}`
      }
      if (change.transfer !== null) {
        yield* sql`INSERT INTO funding_transfers ${sql.insert(transferRow(contract, change.transfer))}`
      }
      const ledger = ledgerRows(change.ledger, version)
      if (Array.isReadonlyArrayNonEmpty(ledger)) yield* sql`INSERT INTO ledger_entries ${sql.insert(ledger)}`
    })
    yield* sql
      .withTransaction(write)
      .pipe(
        Effect.mapError((e) =>
          SqlError.isSqlError(e)
            ? isConflict(e)
              ? new StoreError.StaleContract({ contractId: contract.id })
              : storeError("PgContractRepo.commit", e)
            : e
        )
      )
  })
