/**
 * `PayoutRepo` on Postgres: one payout per contract (`payouts_contract_unique`), written before
 * anything is broadcast; due payouts are claimed with a lease that `update` and `recordSigned`
 * release. `recordSigned` allocates a hot wallet's nonce in the transaction that records the
 * signed payout (`hot_wallet_nonces`, migration 17), under a transaction-scoped advisory lock per
 * wallet, so allocators of one wallet (payouts and movements alike, `internal/signing.ts`) take
 * turns and never hand out one nonce twice.
 */
import { type Lease, PayoutRepo } from "@ratelock/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient, SqlError, SqlSchema } from "effect/sql"
import { PayoutRow, payoutRow } from "./internal/rows/payouts.ts"
import { signedJobs } from "./internal/signing.ts"
import { claimJobs, isUuid, orStoreError, Parameters, storeError, uniqueConstraint } from "./internal/sql.ts"

type ListQuery = Parameters<PayoutRepo.PayoutRepoShape["list"]>[0]

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

    // the compare-and-set writes and the nonces, shared with the movements (`internal/signing.ts`)
    const { update, recordSigned, committed } = signedJobs(sql, {
      table: "payouts",
      holder: "payout",
      row: payoutRow,
      signed: PayoutRepo.signedRecord,
      repository: "PgPayoutRepo"
    })

    const byStatus = SqlSchema.findAll({
      Request: Parameters<ListQuery>(),
      Result: PayoutRow,
      execute: (q) => sql`SELECT * FROM payouts WHERE status = ANY(${q.statuses}::text[])${
        q.environment === undefined ? sql`` : sql` AND environment = ${q.environment}`
      }${q.waiting === undefined ? sql`` : sql` AND waiting = ANY(${q.waiting}::text[])`}
        ORDER BY created_at, id LIMIT ${q.limit}`
    })

    const list = Effect.fn("PgPayoutRepo.list")(function* (query: ListQuery) {
      if (query.statuses.length === 0 || query.limit <= 0) return []
      return yield* byStatus(query)
    }, orStoreError("PgPayoutRepo.list"))

    const claimed = claimJobs({
      sql,
      table: "payouts",
      Result: PayoutRow,
      due: (claim) => sql`status IN ('pending', 'prepared') AND next_attempt_at <= ${claim.now}`
    })

    const claimDue = Effect.fn("PgPayoutRepo.claimDue")(function* (claim: Lease.Claim) {
      return yield* claimed(claim)
    }, orStoreError("PgPayoutRepo.claimDue"))

    return PayoutRepo.PayoutRepo.of({
      insert,
      findByContract,
      findByContracts,
      update,
      recordSigned,
      list,
      committed,
      claimDue
    })
  })
)
