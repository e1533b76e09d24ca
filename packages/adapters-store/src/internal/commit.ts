/**
 * `ContractRepo.commit` on Postgres: one statement. It compare-and-sets the contract on its version,
 * appends the new history entry and writes the outgoing event, the incoming event, the funding
 * transfer (and the funding cursor past it), the ledger entries and the change of its corridor's open notional
 * (`CorridorLimit.transitionUsage`). Nothing is read first to stop duplicates: a version that no
 * longer matches or a unique key already taken fails the whole statement as `StaleContract`.
 */
import { type ContractRepo, CorridorLimit, Money, StoreError } from "@ratelock/core"
import { Array, Effect } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import { numeric } from "./rows/columns.ts"
import { contractRow, historyRows, ledgerRow, transferRow } from "./rows/contracts.ts"
import { incomingRow, outgoingRow } from "./rows/events.ts"
import { requireBalanced } from "./rules.ts"
import { isConflict, storeError } from "./sql.ts"

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
    yield* requireBalanced(change.ledger, `contract ${contract.id}`)
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
    // into or out of a holding status: the corridor's open notional moves with the contract. Out of
    // one, the row is there (the insert or migration 12 counted the lock into it); into one, it may not be
    const usage = CorridorLimit.transitionUsage(change)
    const corridor = sql`environment = ${contract.environment} AND direction = ${contract.direction}`
    if (Money.isNegative(usage)) {
      rows.push(sql`usage AS (UPDATE corridor_limits SET open_notional = open_notional + ${numeric(usage)}::numeric
        WHERE ${corridor} AND EXISTS (SELECT 1 FROM moved))`)
    } else if (Money.isPositive(usage)) {
      rows.push(sql`usage AS (INSERT INTO corridor_limits AS l (environment, direction, open_notional)
          SELECT ${contract.environment}, ${contract.direction}, ${numeric(usage)}::numeric FROM moved
        ON CONFLICT (environment, direction) DO UPDATE SET open_notional = l.open_notional + EXCLUDED.open_notional)`)
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
