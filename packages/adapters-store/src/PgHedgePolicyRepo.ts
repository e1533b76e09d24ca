/**
 * `HedgePolicyRepo` on Postgres: `hedge_policies`, one row per (environment, pair), which is also
 * the pair's lease (`lease_owner`, `lease_expires_at`), claimed with `FOR UPDATE SKIP LOCKED` as
 * the other worker jobs are.
 */
import { type HedgePolicy, HedgePolicyRepo, type Lease, type Partner } from "@ratelock/core"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { timestamp } from "./internal/rows/columns.ts"
import { PolicyRow, policyRow } from "./internal/rows/hedging.ts"
import { type Claim, claimOf, orStoreError, Parameters } from "./internal/sql.ts"

export const layer: Layer.Layer<HedgePolicyRepo.HedgePolicyRepo, never, SqlClient.SqlClient> = Layer.effect(
  HedgePolicyRepo.HedgePolicyRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const upsert = Effect.fn("PgHedgePolicyRepo.upsert")(function* (policy: HedgePolicy.HedgePolicy) {
      const row = policyRow(policy)
      yield* sql`INSERT INTO hedge_policies ${sql.insert(row)}
        ON CONFLICT (environment, pair) DO UPDATE SET ${sql.update(row, ["environment", "pair"])}`
    }, orStoreError("PgHedgePolicyRepo.upsert"))

    const byKey = SqlSchema.findOneOption({
      Request: Parameters<{ readonly environment: Partner.Environment; readonly pair: string }>(),
      Result: PolicyRow,
      execute: (r) => sql`SELECT * FROM hedge_policies WHERE environment = ${r.environment} AND pair = ${r.pair}`
    })

    const find = Effect.fn("PgHedgePolicyRepo.find")(function* (environment: Partner.Environment, pair: string) {
      return yield* byKey({ environment, pair })
    }, orStoreError("PgHedgePolicyRepo.find"))

    const all = SqlSchema.findAll({
      Request: Parameters<Partner.Environment | undefined>(),
      Result: PolicyRow,
      execute: (environment) => sql`SELECT * FROM hedge_policies
        WHERE ${environment === undefined ? sql`true` : sql`environment = ${environment}`}
        ORDER BY environment, pair`
    })

    const list = Effect.fn("PgHedgePolicyRepo.list")(function* (environment?: Partner.Environment) {
      return yield* all(environment)
    }, orStoreError("PgHedgePolicyRepo.list"))

    const claimed = SqlSchema.findAll({
      Request: Parameters<Claim>(),
      Result: PolicyRow,
      execute: (claim) => sql`WITH free AS MATERIALIZED (
          SELECT environment, pair FROM hedge_policies
          WHERE lease_expires_at IS NULL OR lease_expires_at <= ${claim.now}
          ORDER BY environment, pair LIMIT ${claim.limit}
          FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE hedge_policies p SET lease_owner = ${claim.owner}, lease_expires_at = ${claim.leaseUntil}
          FROM free WHERE p.environment = free.environment AND p.pair = free.pair
          RETURNING p.*
        )
        SELECT * FROM claimed ORDER BY environment, pair`
    })

    const claim = Effect.fn("PgHedgePolicyRepo.claim")(function* (claim: Lease.Claim) {
      const until = DateTime.addDuration(claim.now, claim.leaseFor)
      const policies = yield* claimed(claimOf(claim))
      return policies.map((policy) => ({ policy, lease: { owner: claim.owner, until } }))
    }, orStoreError("PgHedgePolicyRepo.claim"))

    const release = Effect.fn("PgHedgePolicyRepo.release")(function* (
      environment: Partner.Environment,
      pair: string,
      lease: HedgePolicyRepo.PairLease
    ) {
      yield* sql`UPDATE hedge_policies SET lease_owner = NULL, lease_expires_at = NULL
        WHERE environment = ${environment} AND pair = ${pair}
          AND lease_owner = ${lease.owner} AND lease_expires_at = ${timestamp(lease.until)}`
    }, orStoreError("PgHedgePolicyRepo.release"))

    return HedgePolicyRepo.HedgePolicyRepo.of({ upsert, find, list, claim, release })
  })
)
