/**
 * The book's records on Postgres: the operator's scenarios (`risk_scenarios`, one row per name) and
 * the current revaluation per environment (`risk_revaluations`, one row each, replaced only by a
 * newer one, so a slow worker's older revaluation never overwrites a newer one), and the one lease
 * on revaluing (`risk_revaluation_lease`, a single row).
 */
import { type Partner, RiskRevaluationRepo, RiskScenarioRepo } from "@ratelock/core"
import { Effect, Layer } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { RevaluationRow, revaluationRow, ScenarioRow, scenarioRow } from "./internal/rows/risk.ts"
import { singleLease } from "./internal/singleLease.ts"
import { orStoreError, Parameters } from "./internal/sql.ts"

export const layerScenarios: Layer.Layer<RiskScenarioRepo.RiskScenarioRepo, never, SqlClient.SqlClient> = Layer.effect(
  RiskScenarioRepo.RiskScenarioRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const put = Effect.fn("PgRiskScenarioRepo.put")(function* (
      scenarios: ReadonlyArray<RiskScenarioRepo.StoredScenario>
    ) {
      yield* sql.withTransaction(
        Effect.forEach(
          scenarios,
          (s) => sql`INSERT INTO risk_scenarios ${sql.insert(scenarioRow(s))}
            ON CONFLICT (name) DO UPDATE SET document = EXCLUDED.document, updated_at = EXCLUDED.updated_at`,
          { discard: true }
        )
      )
    }, orStoreError("PgRiskScenarioRepo.put"))

    const all = SqlSchema.findAll({
      Request: Parameters<void>(),
      Result: ScenarioRow,
      execute: () => sql`SELECT * FROM risk_scenarios ORDER BY name`
    })

    const list = Effect.fn("PgRiskScenarioRepo.list")(function* () {
      return yield* all(undefined)
    }, orStoreError("PgRiskScenarioRepo.list"))

    return RiskScenarioRepo.RiskScenarioRepo.of({ put, list })
  })
)

export const layerRevaluations: Layer.Layer<RiskRevaluationRepo.RiskRevaluationRepo, never, SqlClient.SqlClient> =
  Layer.effect(
    RiskRevaluationRepo.RiskRevaluationRepo,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      const save = Effect.fn("PgRiskRevaluationRepo.save")(function* (r: RiskRevaluationRepo.StoredRevaluation) {
        yield* sql`INSERT INTO risk_revaluations ${sql.insert(revaluationRow(r))}
          ON CONFLICT (environment) DO UPDATE SET computed_at = EXCLUDED.computed_at,
            snapshot_id = EXCLUDED.snapshot_id, report = EXCLUDED.report
          WHERE risk_revaluations.computed_at <= EXCLUDED.computed_at`
      }, orStoreError("PgRiskRevaluationRepo.save"))

      const one = SqlSchema.findOneOption({
        Request: Parameters<{ readonly environment: Partner.Environment }>(),
        Result: RevaluationRow,
        execute: (r) => sql`SELECT * FROM risk_revaluations WHERE environment = ${r.environment}`
      })

      const latest = Effect.fn("PgRiskRevaluationRepo.latest")(function* (environment: Partner.Environment) {
        return yield* one({ environment })
      }, orStoreError("PgRiskRevaluationRepo.latest"))

      const { claim, release } = singleLease(sql, "risk_revaluation_lease", "PgRiskRevaluationRepo")

      return RiskRevaluationRepo.RiskRevaluationRepo.of({ save, latest, claim, release })
    })
  )
