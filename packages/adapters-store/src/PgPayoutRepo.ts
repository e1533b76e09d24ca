/**
 * `PayoutRepo` on Postgres: one payout per contract (`payouts_contract_unique`), written before
 * anything is broadcast; due payouts are claimed with a lease that `update` releases.
 */
import { type Lease, PayoutRepo } from "@ratelock/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient, SqlError, SqlSchema } from "effect/sql"
import { timestamp } from "./internal/rows/columns.ts"
import { PayoutRow, payoutRow } from "./internal/rows/payouts.ts"
import { claimJobs, isUuid, orStoreError, Parameters, storeError, uniqueConstraint } from "./internal/sql.ts"

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

    const claimed = claimJobs({
      sql,
      table: "payouts",
      Result: PayoutRow,
      due: (claim) => sql`status IN ('pending', 'prepared') AND next_attempt_at <= ${claim.now}`
    })

    const claimDue = Effect.fn("PgPayoutRepo.claimDue")(function* (claim: Lease.Claim) {
      return yield* claimed(claim)
    }, orStoreError("PgPayoutRepo.claimDue"))

    return PayoutRepo.PayoutRepo.of({ insert, findByContract, findByContracts, update, claimDue })
  })
)
