/**
 * `PayoutRepo` on Postgres: one payout per contract (`payouts_contract_unique`), written before
 * anything is broadcast; due payouts are claimed with a lease that `update` releases.
 */
import { type Lease, PayoutRepo } from "@ratelock/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { isUuid, leaseUntil, orStoreError, storeError, timestamp, uniqueConstraint } from "./internal/codec.ts"
import { fromRow, type PayoutRow, toRow } from "./internal/payoutRows.ts"

export const layer: Layer.Layer<PayoutRepo.PayoutRepo, never, SqlClient.SqlClient> = Layer.effect(
  PayoutRepo.PayoutRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = Effect.fn("PgPayoutRepo.insert")(
      function* (payout: PayoutRepo.PayoutRecord) {
        yield* sql`INSERT INTO payouts ${sql.insert(toRow(payout))}`
      },
      (effect, payout) =>
        Effect.mapError(effect, (e) =>
          SqlError.isSqlError(e) && Option.contains(uniqueConstraint(e), "payouts_contract_unique")
            ? new PayoutRepo.PayoutExists({ contractId: payout.contractId })
            : storeError("PgPayoutRepo.insert", e)
        )
    )

    const findByContract = Effect.fn("PgPayoutRepo.findByContract")(function* (contractId: string) {
      if (!isUuid(contractId)) return Option.none()
      const rows = yield* sql<PayoutRow>`SELECT * FROM payouts WHERE contract_id = ${contractId}`
      return Option.map(Option.fromNullishOr(rows[0]), fromRow)
    }, orStoreError("PgPayoutRepo.findByContract"))

    const findByContracts = Effect.fn("PgPayoutRepo.findByContracts")(function* (contractIds: ReadonlyArray<string>) {
      const ids = contractIds.filter(isUuid)
      if (ids.length === 0) return []
      const rows = yield* sql<PayoutRow>`SELECT * FROM payouts WHERE contract_id = ANY(${ids}::uuid[])`
      return rows.map(fromRow)
    }, orStoreError("PgPayoutRepo.findByContracts"))

    // compare-and-set: only over the row the caller read (same status, same updated_at)
    const update = Effect.fn("PgPayoutRepo.update")(function* (
      payout: PayoutRepo.PayoutRecord,
      expected: PayoutRepo.Expected
    ) {
      const { id: _, ...columns } = toRow(payout)
      const rows = yield* sql<{
        id: string
      }>`UPDATE payouts SET ${sql.update(columns)}, lease_owner = NULL, lease_expires_at = NULL
        WHERE id = ${payout.id} AND status = ${expected.status} AND updated_at = ${timestamp(expected.updatedAt)}
        RETURNING id`
      return rows.length === 1
    }, orStoreError("PgPayoutRepo.update"))

    const claimDue = Effect.fn("PgPayoutRepo.claimDue")(function* (claim: Lease.Claim) {
      const now = timestamp(claim.now)
      const rows = yield* sql<PayoutRow>`WITH due AS MATERIALIZED (
          SELECT id FROM payouts
          WHERE status IN ('pending', 'prepared') AND next_attempt_at <= ${now}
            AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})
          ORDER BY created_at, id LIMIT ${claim.limit}
          FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE payouts SET lease_owner = ${claim.owner}, lease_expires_at = ${leaseUntil(claim)}
          FROM due WHERE payouts.id = due.id
          RETURNING payouts.*
        )
        SELECT * FROM claimed ORDER BY created_at, id`
      return rows.map(fromRow)
    }, orStoreError("PgPayoutRepo.claimDue"))

    return PayoutRepo.PayoutRepo.of({ insert, findByContract, findByContracts, update, claimDue })
  })
)
