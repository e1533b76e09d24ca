/**
 * The book's records in memory: scenarios by name, and one revaluation per environment, replaced
 * only by a newer one (as the SQL upsert's `WHERE` does), and the one lease on revaluing.
 */
import { Effect, HashMap, Option } from "effect"
import { type Partner, RiskRevaluationRepo, RiskScenarioRepo } from "@ratelock/core"
import { singleLease } from "./singleLease.ts"
import { atomically, done, read } from "./state.ts"
import type { StateRef } from "./state.ts"

export const makeRiskScenarioRepo = (ref: StateRef): RiskScenarioRepo.RiskScenarioRepoShape => {
  const put = Effect.fn("MemoryStore.riskScenarios.put")(function* (
    scenarios: ReadonlyArray<RiskScenarioRepo.StoredScenario>
  ) {
    yield* atomically(ref, (state) =>
      done(undefined, {
        ...state,
        riskScenarios: scenarios.reduce((m, s) => HashMap.set(m, s.scenario.name, s), state.riskScenarios)
      })
    )
  })
  const list = Effect.fn("MemoryStore.riskScenarios.list")(function* () {
    return yield* read(ref, (state) =>
      [...HashMap.values(state.riskScenarios)].sort((a, b) => (a.scenario.name < b.scenario.name ? -1 : 1))
    )
  })
  return RiskScenarioRepo.RiskScenarioRepo.of({ put, list })
}

export const makeRiskRevaluationRepo = (ref: StateRef): RiskRevaluationRepo.RiskRevaluationRepoShape => {
  const save = Effect.fn("MemoryStore.riskRevaluations.save")(function* (r: RiskRevaluationRepo.StoredRevaluation) {
    yield* atomically(ref, (state) => {
      const stored = HashMap.get(state.riskRevaluations, r.environment)
      if (Option.isSome(stored) && stored.value.computedAt.epochMilliseconds > r.computedAt.epochMilliseconds) {
        return done(undefined, state)
      }
      return done(undefined, { ...state, riskRevaluations: HashMap.set(state.riskRevaluations, r.environment, r) })
    })
  })
  const latest = Effect.fn("MemoryStore.riskRevaluations.latest")(function* (environment: Partner.Environment) {
    return yield* read(ref, (state) => HashMap.get(state.riskRevaluations, environment))
  })
  const { claim, release } = singleLease(ref, "revaluationLease", "MemoryStore.riskRevaluations")
  return RiskRevaluationRepo.RiskRevaluationRepo.of({ save, latest, claim, release })
}
