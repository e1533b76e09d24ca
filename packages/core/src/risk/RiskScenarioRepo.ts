/**
 * Persistence port for the operator's stress scenarios (risk.md, Stress): each stored under its
 * name, beside the defaults (`RiskScenario.withDefaults`; one named like a default replaces it).
 * `ratelock risk scenario set FILE` writes them; every revaluation reads them.
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"
import * as RiskScenario from "./RiskScenario.ts"
import type { StoreError } from "../kernel/StoreError.ts"

export const StoredScenario = Schema.Struct({
  scenario: RiskScenario.Scenario,
  updatedAt: Schema.DateTimeUtc
}).annotate({ identifier: "StoredScenario" })
export type StoredScenario = typeof StoredScenario.Type

export interface RiskScenarioRepoShape {
  /** Stores each scenario under its name, replacing one of the same name, all in one step. */
  readonly put: (scenarios: ReadonlyArray<StoredScenario>) => Effect.Effect<void, StoreError>
  /** Every stored scenario, by name. */
  readonly list: () => Effect.Effect<ReadonlyArray<StoredScenario>, StoreError>
}

export class RiskScenarioRepo extends Context.Service<RiskScenarioRepo, RiskScenarioRepoShape>()(
  "@ratelock/core/RiskScenarioRepo"
) {}
