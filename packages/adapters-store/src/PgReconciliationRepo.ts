/**
 * `ReconciliationRepo` on Postgres: every run in `reconciliation_runs` (migration 20), its
 * differences one `jsonb` array. `latest` reads one run per environment and chain, the newest by
 * `(at, id)`: one probe of `reconciliation_runs_latest` per rail, however many runs are kept.
 */
import { Partner, Rail, ReconciliationRepo } from "@ratelock/core"
import { Effect, Layer } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { RunRow, runRow } from "./internal/rows/reconciliation.ts"
import { orStoreError, Parameters } from "./internal/sql.ts"

export const layer: Layer.Layer<ReconciliationRepo.ReconciliationRepo, never, SqlClient.SqlClient> = Layer.effect(
  ReconciliationRepo.ReconciliationRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const save = Effect.fn("PgReconciliationRepo.save")(function* (run: ReconciliationRepo.ReconciliationRun) {
      yield* sql`INSERT INTO reconciliation_runs ${sql.insert(runRow(run))}`
    }, orStoreError("PgReconciliationRepo.save"))

    // by environment then chain in byte order (the same whatever the collation), as memory sorts them
    const latestOfEach = SqlSchema.findAll({
      Request: Parameters<void>(),
      Result: RunRow,
      execute: () => sql`SELECT r.* FROM unnest(${Partner.Environment.literals}::text[]) AS e (environment)
        CROSS JOIN unnest(${Rail.Chain.literals}::text[]) AS c (chain)
        CROSS JOIN LATERAL (SELECT * FROM reconciliation_runs x
          WHERE x.environment = e.environment AND x.chain = c.chain
          ORDER BY x.at DESC, x.id DESC LIMIT 1) r
        ORDER BY r.environment COLLATE "C", r.chain COLLATE "C"`
    })

    const latest = Effect.fn("PgReconciliationRepo.latest")(function* () {
      return yield* latestOfEach(undefined)
    }, orStoreError("PgReconciliationRepo.latest"))

    return ReconciliationRepo.ReconciliationRepo.of({ save, latest })
  })
)
