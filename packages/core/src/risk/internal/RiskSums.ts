/**
 * The open locks' figures added up per environment: per pair, per corridor, per partner and pair, and per
 * scenario and pair. Exact sums (`internal/exactSum.ts`), so neither the book's order nor the way it was sliced
 * changes a figure; plain data (maps, arrays and numbers), so a worker thread can send its slice's sums back to
 * be merged: a book of 100,000 locks crosses threads as a few hundred numbers.
 */
import type { Direction } from "../../kernel/Corridor.ts"
import * as ExactSum from "./exactSum.ts"
import type { LockRisk } from "./LockRisk.ts"
import type { Environment } from "../../terms/Partner.ts"
import { pairNotional } from "./RiskBook.ts"
import type { RiskPlan } from "./RiskPlan.ts"
import { getOrInsert } from "../../kernel/Maps.ts"

export interface PairSums {
  locks: number
  /** Σ `N_b` in the pair's BASE. */
  readonly notional: ExactSum.ExactSum
  readonly mtm: ExactSum.ExactSum
  readonly delta: ExactSum.ExactSum
  readonly gamma: ExactSum.ExactSum
  readonly vega: ExactSum.ExactSum
  readonly theta: ExactSum.ExactSum
}

export interface CorridorSums {
  locks: number
  /** Σ `N_b` in the direction's BASE. */
  readonly notional: ExactSum.ExactSum
  readonly mtm: ExactSum.ExactSum
  readonly delta: ExactSum.ExactSum
}

export interface EnvironmentSums {
  readonly pairs: Map<string, PairSums>
  readonly corridors: Map<Direction, CorridorSums>
  /** Per partner, per pair. */
  readonly partners: Map<string, Map<string, PairSums>>
  /** Per scenario (the plan's order), per pair: Σ of the locks' `mtm` under the scenario. */
  readonly scenarios: Array<Map<string, ExactSum.ExactSum>>
}

export type BookSums = Map<Environment, EnvironmentSums>

const pairSums = (): PairSums => ({
  locks: 0,
  notional: [],
  mtm: [],
  delta: [],
  gamma: [],
  vega: [],
  theta: []
})

const corridorSums = (): CorridorSums => ({ locks: 0, notional: [], mtm: [], delta: [] })

/** An environment with no open lock. */
export const emptyEnvironment = (plan: RiskPlan): EnvironmentSums => ({
  pairs: new Map(),
  corridors: new Map(),
  partners: new Map(),
  scenarios: plan.scenarios.map(() => new Map())
})

export const empty = (): BookSums => new Map()

const addToPair = (sums: PairSums, risk: LockRisk): void => {
  sums.locks++
  ExactSum.add(sums.notional, pairNotional(risk.lock))
  ExactSum.add(sums.mtm, risk.mtm)
  if (risk.greeks !== null) {
    ExactSum.add(sums.delta, risk.greeks.delta)
    ExactSum.add(sums.gamma, risk.greeks.gamma)
    ExactSum.add(sums.vega, risk.greeks.vega)
    ExactSum.add(sums.theta, risk.greeks.theta)
  }
}

/** Adds one revalued lock. */
export const add = (book: BookSums, plan: RiskPlan, risk: LockRisk): void => {
  const { lock } = risk
  const env = getOrInsert(book, lock.environment, () => emptyEnvironment(plan))
  addToPair(getOrInsert(env.pairs, lock.pair, pairSums), risk)
  addToPair(
    getOrInsert(
      getOrInsert(env.partners, lock.partnerId, () => new Map()),
      lock.pair,
      pairSums
    ),
    risk
  )
  const corridor = getOrInsert(env.corridors, lock.direction, corridorSums)
  corridor.locks++
  ExactSum.add(corridor.notional, lock.notionalBase)
  ExactSum.add(corridor.mtm, risk.corridorMtm)
  if (risk.greeks !== null) ExactSum.add(corridor.delta, risk.greeks.corridorDelta)
  risk.scenarioMtm.forEach((mtm, s) => {
    ExactSum.add(getOrInsert(env.scenarios[s]!, lock.pair, ExactSum.make), mtm)
  })
}

const mergePair = (into: PairSums, from: PairSums): void => {
  into.locks += from.locks
  for (const key of ["notional", "mtm", "delta", "gamma", "vega", "theta"] as const) {
    ExactSum.merge(into[key], from[key])
  }
}

const mergeMap = <K, V>(into: Map<K, V>, from: Map<K, V>, make: () => V, merge: (a: V, b: V) => void): void => {
  for (const [key, value] of from) merge(getOrInsert(into, key, make), value)
}

/** Adds the sums of another slice of the book into `into`. */
export const merge = (into: BookSums, from: BookSums, plan: RiskPlan): void => {
  for (const [environment, source] of from) {
    const env = getOrInsert(into, environment, () => emptyEnvironment(plan))
    mergeMap(env.pairs, source.pairs, pairSums, mergePair)
    mergeMap(
      env.partners,
      source.partners,
      () => new Map(),
      (a, b) => mergeMap(a, b, pairSums, mergePair)
    )
    mergeMap(env.corridors, source.corridors, corridorSums, (a, b) => {
      a.locks += b.locks
      ExactSum.merge(a.notional, b.notional)
      ExactSum.merge(a.mtm, b.mtm)
      ExactSum.merge(a.delta, b.delta)
    })
    source.scenarios.forEach((byPair, s) => {
      mergeMap(env.scenarios[s]!, byPair, ExactSum.make, ExactSum.merge)
    })
  }
}

/** An environment's pair sums, zero for a pair with no open lock. */
export const pairOf = (env: EnvironmentSums, pair: string): PairSums => env.pairs.get(pair) ?? pairSums()

export const corridorOf = (env: EnvironmentSums, direction: Direction): CorridorSums =>
  env.corridors.get(direction) ?? corridorSums()
