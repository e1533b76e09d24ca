/**
 * The book (risk.md): what the service's open locks are worth to it, how that moves with the market, and what
 * it would lose under stress. Pure and deterministic: the same book, snapshot, instant and scenarios give the
 * same figures, whatever the order of the book.
 *
 * - `revalue`: per environment, each open lock valued as a short window put with the quote's engine and market
 *   conventions, from the snapshot's spot; delta, gamma, vega and theta by central bump-and-revalue; the
 *   figures per pair, corridor, currency and partner; the committed, not yet funded locks and the payouts due.
 * - `stress`: the book fully revalued under each scenario, the `mtm` change in USD, worst first.
 * - `report`: both in one pass (what the operator's report shows).
 *
 * Hosts that revalue large books on several threads call the steps themselves: `RiskBook.openLocks`, then
 * `plan` and `valueLocks` on slices of the locks (each thread makes the same plan), then `reportFrom` on all
 * the results.
 */
import type { DateTime } from "effect"
import { figures, type LockRisk, unitValues } from "./LockRisk.ts"
import type * as MarketSnapshot from "./MarketSnapshot.ts"
import type { Environment } from "./Partner.ts"
import * as RiskAggregate from "./RiskAggregate.ts"
import { type Book, type LockTerms, openLocks } from "./RiskBook.ts"
import * as RiskPlan from "./RiskPlan.ts"
import type { BookReport, BookRisk, BookStress } from "./RiskReport.ts"
import type { Scenario } from "./RiskScenario.ts"

export interface Options {
  /** The environments to report, each apart (default: production, then sandbox). */
  readonly environments?: ReadonlyArray<Environment> | undefined
  /** The stored snapshot's id, reported as `snapshot_id` (null when not given). */
  readonly snapshotId?: string | null | undefined
}

export const allEnvironments: ReadonlyArray<Environment> = ["production", "sandbox"]

/** The plan of a revaluation: `greeks` for `revalue` and `report`, `scenarios` for `stress` and `report`. */
export const plan = (input: {
  readonly snapshot: MarketSnapshot.MarketSnapshot
  readonly now: DateTime.Utc
  readonly greeks: boolean
  readonly scenarios: ReadonlyArray<Scenario>
}): RiskPlan.RiskPlan => RiskPlan.make({ ...input, now: input.now.epochMilliseconds })

/**
 * Revalues open locks under the plan: a slice of a book is revalued as it would be in the whole. Locks with the
 * same direction, strike and window (from now on) are priced once.
 */
export const valueLocks = (riskPlan: RiskPlan.RiskPlan, locks: ReadonlyArray<LockTerms>): ReadonlyArray<LockRisk> => {
  const priced = new Map<string, Float64Array>()
  return locks.map((lock) => {
    const key = `${lock.direction}|${lock.strike}|${Math.max(lock.windowStart, riskPlan.now)}|${lock.windowEnd}`
    let values = priced.get(key)
    if (values === undefined) {
      values = unitValues(riskPlan, lock)
      priced.set(key, values)
    }
    return figures(riskPlan, lock, values)
  })
}

const headerOf = (
  environment: Environment,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  options: Options
): RiskAggregate.Header => ({
  environment,
  as_of: now,
  snapshot_as_of: snapshot.as_of,
  snapshot_id: options.snapshotId ?? null
})

/**
 * The reports of `book` from its open locks revalued under `riskPlan` (by `valueLocks`, in any order and any
 * slices): the figures, and the scenarios' results when the plan has scenarios.
 */
export const reportFrom = (input: {
  readonly book: Book
  readonly snapshot: MarketSnapshot.MarketSnapshot
  readonly now: DateTime.Utc
  readonly plan: RiskPlan.RiskPlan
  readonly locks: ReadonlyArray<LockRisk>
  readonly options?: Options | undefined
}): ReadonlyArray<BookReport> => {
  const options = input.options ?? {}
  const environments = options.environments ?? allEnvironments
  const sums = RiskAggregate.sums({ ...input, environments })
  return environments.map((environment) => {
    const env = sums.get(environment)!
    return {
      ...RiskAggregate.bookRisk(input.plan, env, headerOf(environment, input.snapshot, input.now, options), input.snapshot),
      stress: RiskAggregate.stressResults(input.plan, env)
    }
  })
}

const run = (
  book: Book,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  scenarios: ReadonlyArray<Scenario>,
  greeks: boolean,
  options: Options
) => {
  const riskPlan = plan({ snapshot, now, greeks, scenarios })
  const locks = valueLocks(riskPlan, openLocks(book, options.environments ?? allEnvironments))
  return { riskPlan, locks, reports: reportFrom({ book, snapshot, now, plan: riskPlan, locks, options }) }
}

export interface Revaluation {
  /** One per environment reported. */
  readonly books: ReadonlyArray<BookRisk>
  /** Every open lock's model figures, in the book's order. */
  readonly locks: ReadonlyArray<LockRisk>
}

/** The book's open locks revalued with their greeks, and the figures per environment. */
export const revalue = (
  book: Book,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  options: Options = {}
): Revaluation => {
  const { locks, reports } = run(book, snapshot, now, [], true, options)
  return { books: reports.map(({ stress: _, ...risk }) => risk), locks }
}

/** The book fully revalued under each scenario: per environment, the `mtm` change in USD, worst first. */
export const stress = (
  book: Book,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  scenarios: ReadonlyArray<Scenario>,
  options: Options = {}
): ReadonlyArray<BookStress> =>
  run(book, snapshot, now, scenarios, false, options).reports.map((r) => ({
    environment: r.environment,
    as_of: r.as_of,
    snapshot_as_of: r.snapshot_as_of,
    snapshot_id: r.snapshot_id,
    stress: r.stress
  }))

/** `revalue` and `stress` in one pass: the figures and the scenarios' results per environment. */
export const report = (
  book: Book,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  scenarios: ReadonlyArray<Scenario>,
  options: Options = {}
): ReadonlyArray<BookReport> => run(book, snapshot, now, scenarios, true, options).reports
