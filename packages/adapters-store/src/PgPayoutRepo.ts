/**
 * `PayoutRepo` on Postgres: one payout per contract (`payouts_contract_unique`), written before
 * anything is broadcast; due payouts are claimed with a lease that `update` releases.
 */
import { type Lease, PayoutRepo } from "@ratelock/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient, SqlError, SqlSchema } from "effect/sql"
import { timestamp } from "./internal/rows/columns.ts"
import { PayoutRow, payoutRow } from "./internal/rows/payouts.ts"
import { type Claim, claimOf, isUuid, orStoreError, Parameters, storeError, uniqueConstraint } from "./internal/sql.ts"

export const layer: Layer.Layer<PayoutRepo.PayoutRepo, never, SqlClient.SqlClient> = Layer.effect(
  PayoutRepo.PayoutRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = Effect.fn("PgPayoutRepo.insert")(
      function* (payout: PayoutRepo.PayoutRecord) {
        yield* sql`INSERT INTO payouts ${sql.insert(payoutRow(payout))}`
      },
      (effect, payout) =>
        Effect.mapError(effect, (e) =>
          SqlError.isSqlError(e) && Option.contains(uniqueConstraint(e), "payouts_contract_unique")
            ? new PayoutRepo.PayoutExists({ contractId: payout.contractId })
            : storeError("PgPayoutRepo.insert", e)
        )
    )

    const byContract = SqlSchema.findOneOption({
      Request: Parameters<string>(),
      Result: PayoutRow,
      execute: (contractId) => sql`SELECT * FROM payouts WHERE contract_id = ${contractId}`
    })

    const findByContract = Effect.fn("PgPayoutRepo.findByContract")(function* (contractId: string) {
      if (!isUuid(contractId)) return Option.none()
      return yield* byContract(contractId)
    }, orStoreError("PgPayoutRepo.findByContract"))

    const byContracts = SqlSchema.findAll({
      Request: Parameters<ReadonlyArray<string>>(),
      Result: PayoutRow,
      execute: (ids) => sql`SELECT * FROM payouts WHERE contract_id = ANY(${ids}::uuid[])`
    })

    const findByContracts = Effect.fn("PgPayoutRepo.findByContracts")(function* (contractIds: ReadonlyArray<string>) {
      const ids = contractIds.filter(isUuid)
      if (ids.length === 0) return []
      return yield* byContracts(ids)
    }, orStoreError("PgPayoutRepo.findByContracts"))

    // compare-and-set: only over the row the caller read (same status, same updated_at)
    const update = Effect.fn("PgPayoutRepo.update")(function* (
      payout: PayoutRepo.PayoutRecord,
      expected: PayoutRepo.Expected
    ) {
      const rows = yield* sql`UPDATE payouts SET ${sql.update(payoutRow(payout), ["id"])}, lease_owner = NULL,
          lease_expires_at = NULL
        WHERE id = ${payout.id} AND status = ${expected.status} AND updated_at = ${timestamp(expected.updatedAt)}
        RETURNING id`
      return rows.length === 1
    }, orStoreError("PgPayoutRepo.update"))

    const claimed = SqlSchema.findAll({
      Request: Parameters<Claim>(),
      Result: PayoutRow,
      execute: (claim) => sql`WITH due AS MATERIALIZED (
          SELECT id FROM payouts
          WHERE status IN ('pending', 'prepared') AND next_attempt_at <= ${claim.now}
            AND (lease_expires_at IS NULL OR lease_expires_at <= ${claim.now})
          ORDER BY created_at, id LIMIT ${claim.limit}
          FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE payouts SET lease_owner = ${claim.owner}, lease_expires_at = ${claim.leaseUntil}
          FROM due WHERE payouts.id = due.id
          RETURNING payouts.*
        )
        SELECT * FROM claimed ORDER BY created_at, id`
    })

    const claimDue = Effect.fn("PgPayoutRepo.claimDue")(function* (claim: Lease.Claim) {
      return yield* claimed(claimOf(claim))
    }, orStoreError("PgPayoutRepo.claimDue"))

    return PayoutRepo.PayoutRepo.of({ insert, findByContract, findByContracts, update, claimDue })
  })
)
