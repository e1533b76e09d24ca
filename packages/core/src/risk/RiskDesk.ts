/**
 * The book as the operator reads it: the report (the stored revaluation of `Revaluation`, each pair
 * with its hedge as it stands now from `HedgeDesk`, the net currency exposure with the hedge
 * positions from `NetExposure`, and the corridors' limits), and the operator's scenarios.
 */
import { DateTime, Effect, Option, Schema } from "effect"
import * as HedgeDesk from "../hedging/HedgeDesk.ts"
import * as Money from "../kernel/Money.ts"
import * as CorridorLimits from "../limits/CorridorLimits.ts"
import * as MarketSnapshot from "../market/MarketSnapshot.ts"
import { MarketSnapshotRepo } from "../market/MarketSnapshotRepo.ts"
import type { Environment } from "../terms/Partner.ts"
import * as NetExposure from "./NetExposure.ts"
import * as Revaluation from "./Revaluation.ts"
import type * as RiskDeskReport from "./RiskDeskReport.ts"
import { RiskRevaluationRepo } from "./RiskRevaluationRepo.ts"
import * as RiskScenario from "./RiskScenario.ts"
import { RiskScenarioRepo } from "./RiskScenarioRepo.ts"

/** Stores the operator's scenarios (each replaces one of its name). */
export const setScenarios = Effect.fn("RiskDesk.setScenarios")(function* (list: ReadonlyArray<RiskScenario.Scenario>) {
  const updatedAt = yield* DateTime.now
  yield* (yield* RiskScenarioRepo).put(list.map((scenario) => ({ scenario, updatedAt })))
  return list
})

/** A scenario the report runs, as the operator reads it: its document and whose it is. */
export const ScenarioListing = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  spot_shocks: Schema.Record(Schema.String, Schema.String).annotate({
    description: "Relative change of each named market pair's rate, in its usual order: 0.15 is +15 %"
  }),
  vol_shift: Schema.String.annotate({ description: "Absolute shift of every vol: 0.05 is +5 vol points" }),
  source: Schema.Literals(["default", "operator"])
}).annotate({ identifier: "RiskScenarioListing" })
export type ScenarioListing = typeof ScenarioListing.Type

/** Every scenario the report runs (`Revaluation.scenarios`), each marked `default` or `operator`. */
export const scenarioList = Effect.fn("RiskDesk.scenarioList")(function* () {
  const operator = new Set((yield* (yield* RiskScenarioRepo).list()).map((s) => s.scenario.name))
  return (yield* Revaluation.scenarios()).map((s): ScenarioListing => {
    const document = RiskScenario.encode(s)
    return {
      name: document.name,
      description: document.description ?? "",
      spot_shocks: document.spot_shocks ?? {},
      vol_shift: document.vol_shift ?? "0",
      source: operator.has(s.name) ? "operator" : "default"
    }
  })
})

/**
 * The operator's report of `environment`: the stored revaluation (a fresh one, stored too, with
 * `fresh` or when none is stored), each pair with its hedge, the net currency exposure with the
 * hedge positions, and every corridor's limits.
 */
export const report = Effect.fn("RiskDesk.report")(function* (
  environment: Environment,
  options: { readonly fresh?: boolean | undefined } = {}
) {
  const stored = options.fresh ? Option.none() : yield* (yield* RiskRevaluationRepo).latest(environment)
  const revaluation = Option.isSome(stored)
    ? stored.value
    : (yield* Revaluation.revalue()).find((r) => r.environment === environment)!
  const now = yield* DateTime.now
  const snapshot = Option.match(
    revaluation.snapshotId === null ? Option.none() : yield* (yield* MarketSnapshotRepo).find(revaluation.snapshotId),
    {
      onNone: () => MarketSnapshot.illustrativeAt(revaluation.report.as_of),
      onSome: (s) => s.document
    }
  )
  const pairs = yield* Effect.forEach(revaluation.report.pairs, (pair) =>
    Effect.map(HedgeDesk.pairHedge(environment, pair, snapshot, now), (hedge) => ({ ...pair, hedge }))
  )
  // the stored exposure is the deltas' alone; each pair's position offsets its delta (NetExposure)
  const currencies = NetExposure.withHedges(
    revaluation.report.currencies,
    pairs.map((p) => ({ pair: p.pair, spot: p.spot, position: p.hedge.position })),
    (currency) => Option.getOrElse(MarketSnapshot.midRate(snapshot, currency, "USD"), () => Money.zero)
  )
  const { corridors } = yield* CorridorLimits.show({ environment })
  return {
    ...revaluation.report,
    computed_at: revaluation.computedAt,
    pairs,
    currencies,
    limits: corridors
  } satisfies RiskDeskReport.DeskReport
})
