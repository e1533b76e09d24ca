/**
 * `ContractRepo.insert` on Postgres: one statement. It marks the quote accepted (only if it was
 * not), takes the lock's notional from its corridor and inserts the contract and its first history
 * entries; a guard fails it whole when the quote was taken or is not the partner's, another when the
 * lock does not fit its corridor. The failures come back as the port's: `QuoteAlreadyAccepted`,
 * `CorridorCapacityExceeded`, or `StoreError`.
 */
import { ApiError, type Contract, CorridorLimit, StoreError } from "@ratelock/core"
import { Array, Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import { numeric } from "./rows/columns.ts"
import { contractRow, historyRows } from "./rows/contracts.ts"
import { checkViolated, isConflict, orStoreError, storeError, uniqueConstraint } from "./sql.ts"

const alreadyAccepted = (quoteId: string) =>
  new ApiError.QuoteAlreadyAccepted({ message: `quote ${quoteId} already has a contract` })

const capacityExceeded = (contract: Contract.ContractRecord) =>
  new ApiError.CorridorCapacityExceeded({ message: CorridorLimit.capacityMessage(contract.direction) })

/** Why the guard found no quote to accept: another contract took it, or it is not the partner's. */
const notAccepted = (sql: SqlClient.SqlClient, contract: Contract.ContractRecord) =>
  Effect.gen(function* () {
    const quote = yield* sql`SELECT 1 FROM quotes WHERE id = ${contract.quoteId}
      AND partner_id = ${contract.partnerId} AND environment = ${contract.environment}`
    return yield* quote.length > 0
      ? Effect.fail(alreadyAccepted(contract.quoteId))
      : Effect.fail(new StoreError.StoreError({ message: `quote ${contract.quoteId} not found` }))
  }).pipe(orStoreError("PgContractRepo.insert"))

/**
 * The lock's notional added to its corridor's open notional, under the limits set on the
 * corridor (`CorridorLimit.breached` without a default lock limit), once the quote is accepted.
 * `ON CONFLICT DO UPDATE` locks the corridor's row and reads its latest committed version, so
 * concurrent inserts on one corridor take their turns on it and each sees what the others added;
 * a lock that does not fit updates nothing, and the statement's guard fails.
 */
const takeCapacity = (sql: SqlClient.SqlClient, contract: Contract.ContractRecord) =>
  sql`usage AS (INSERT INTO corridor_limits AS l (environment, direction, open_notional)
      SELECT ${contract.environment}, ${contract.direction}, ${numeric(CorridorLimit.lockNotional(contract))}::numeric
      FROM accepted
    ON CONFLICT (environment, direction) DO UPDATE SET open_notional = l.open_notional + EXCLUDED.open_notional
    WHERE (l.max_lock_notional IS NULL OR EXCLUDED.open_notional <= l.max_lock_notional)
      AND (l.max_open_notional IS NULL OR l.open_notional + EXCLUDED.open_notional <= l.max_open_notional)
      AND (l.max_net_delta IS NULL OR l.open_notional + EXCLUDED.open_notional <= l.max_net_delta)
    RETURNING 1)`

export const insert = (sql: SqlClient.SqlClient) =>
  Effect.fn("PgContractRepo.insert")(
    function* (contract: Contract.ContractRecord) {
      const row = contractRow(contract)
      const history = historyRows(contract.id, 1, contract.history)
      const scope = sql`partner_id = ${row.partner_id} AND environment = ${row.environment}`
      const holds = CorridorLimit.holdsCapacity(contract.status)
      yield* sql`WITH accepted AS (UPDATE quotes SET accepted_at = ${row.created_at}
          WHERE id = ${row.quote_id} AND ${scope} AND accepted_at IS NULL RETURNING id),${
            holds ? sql` ${takeCapacity(sql, contract)},` : sql``
          }
        inserted AS (INSERT INTO contracts ${sql.insert(row)})${
          Array.isReadonlyArrayNonEmpty(history)
            ? sql`, history AS (INSERT INTO contract_history ${sql.insert(history)})`
            : sql``
        }
        SELECT ratelock_conflict_unless(EXISTS (SELECT 1 FROM accepted))${
          holds
            ? sql`, ratelock_capacity_unless(NOT EXISTS (SELECT 1 FROM accepted) OR EXISTS (SELECT 1 FROM usage))`
            : sql``
        }`
    },
    (effect, contract) =>
      Effect.catch(
        effect,
        (
          e
        ): Effect.Effect<
          never,
          ApiError.QuoteAlreadyAccepted | ApiError.CorridorCapacityExceeded | StoreError.StoreError
        > =>
          Option.contains(uniqueConstraint(e), "contracts_quote_unique")
            ? Effect.fail(alreadyAccepted(contract.quoteId))
            : Option.contains(checkViolated(e), "corridor_capacity")
              ? Effect.fail(capacityExceeded(contract))
              : isConflict(e)
                ? notAccepted(sql, contract)
                : Effect.fail(storeError("PgContractRepo.insert", e))
      )
  )
