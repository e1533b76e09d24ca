/**
 * `risk_scenarios` and `risk_revaluations` rows: the one place their columns are named. Documents
 * (a scenario, a revaluation's report) are kept as their encoded JSON and decoded through core's
 * schemas on read.
 */
import { Partner, RiskReport, RiskRevaluationRepo, RiskScenario, RiskScenarioRepo } from "@ratelock/core"
import { Schema } from "effect"
import { json, rowSchema, Timestamp, timestamp, utc } from "./columns.ts"

const ScenarioColumns = Schema.Struct({
  name: Schema.String,
  document: Schema.toEncoded(RiskScenario.Scenario),
  updated_at: Timestamp
})

const encodeScenario = Schema.encodeSync(RiskScenario.Scenario)

export const scenarioRow = (s: RiskScenarioRepo.StoredScenario) => ({
  name: s.scenario.name,
  document: json(encodeScenario(s.scenario)),
  updated_at: timestamp(s.updatedAt)
})

export const ScenarioRow = rowSchema("ScenarioRow", ScenarioColumns, RiskScenarioRepo.StoredScenario, (r) => ({
  scenario: r.document,
  updatedAt: utc(r.updated_at)
}))

const RevaluationColumns = Schema.Struct({
  environment: Partner.Environment,
  computed_at: Timestamp,
  snapshot_id: Schema.NullOr(Schema.String),
  report: Schema.toEncoded(RiskReport.BookReport)
})

const encodeReport = Schema.encodeSync(RiskReport.BookReport)

export const revaluationRow = (r: RiskRevaluationRepo.StoredRevaluation) => ({
  environment: r.environment,
  computed_at: timestamp(r.computedAt),
  snapshot_id: r.snapshotId,
  report: json(encodeReport(r.report))
})

export const RevaluationRow = rowSchema(
  "RevaluationRow",
  RevaluationColumns,
  RiskRevaluationRepo.StoredRevaluation,
  (r) => ({
    environment: r.environment,
    computedAt: utc(r.computed_at),
    snapshotId: r.snapshot_id,
    report: r.report
  })
)
