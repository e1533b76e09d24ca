/**
 * The book (risk.md): what the service's open locks are worth to it, how that moves with the market, and what
 * it would lose under stress. Pure and deterministic: the same book, snapshot, instant and scenarios give the
 * same figures, whatever the order of the book.
 *
 * - `revalue`: per environment, each open lock valued as a short window put with the quote's market conventions
 *   and the book's engine (`Pricing.bookWindowOption`, within 1 bp of notional of the reference), from the
 *   snapshot's spot; delta, gamma, vega and theta by central bump-and-revalue; the
 *   figures per pair, corridor, currency and partner; the committed, not yet funded locks and the payouts due.
 * - `stress`: the book fully revalued under each scenario, the `mtm` change in USD, worst first.
 * - `report`: both in one pass (what the operator's report shows); `reportInSlices` the same as an effect that
 *   yields between slices of the book, for a thread that has other work to answer meanwhile.
 *
 * Hosts that revalue large books on several threads call the steps themselves: `RiskBook.openLocks` (or
 * `RiskBook.lockTerms` page by page), `plan` and `sumLocks` on slices of the locks (each thread makes the same
 * plan from the same inputs), then `mergeSums` and `reportFrom`.
 */
import { type DateTime, Effect } from "effect"
import { figures, type LockRisk, unitValues, volatility } from "./internal/LockRisk.ts"
import type * as MarketSnapshot from "../market/MarketSnapshot.ts"
import * as Environments from "../kernel/Environment.ts"
import type { Environment } from "../terms/Partner.ts"
import { type Book, type LockTerms, openLocks } from "./internal/RiskBook.ts"
import * as RiskFigures from "./internal/RiskFigures.ts"
import * as RiskPlan from "./internal/RiskPlan.ts"
import type { BookReport, BookRisk, BookStress } from "./RiskReport.ts"
import type { Scenario } from "./RiskScenario.ts"
import * as RiskSums from "./internal/RiskSums.ts"

export type { Book, BookContract, BookPayout, LockTerms } from "./internal/RiskBook.ts"
export type { LockRisk } from "./internal/LockRisk.ts"
export { lockTerms, openLocks, standing } from "./internal/RiskBook.ts"
/** What an exercised contract is owed: its payout row's amount, else its exercise's payout (a cross at the snapshot's mid). */
export { payoutOf as payoutDue } from "./internal/RiskFigures.ts"

/** Each lock's smile vol at its strike and window end under `riskPlan`, unmoved, in the order given. */
export const lockVolatilities = (riskPlan: RiskPlan.RiskPlan, locks: ReadonlyArray<LockTerms>): Float64Array =>
  Float64Array.from(locks, (lock) => volatility(riskPlan, lock))

/** The plan's spot and vol bumps (risk.md): what a greek is the change for. */
export { spotBump, volBump } from "./internal/RiskPlan.ts"

export interface Options {
  /** The environments to report, each apart (default: production, then sandbox). */
  readonly environments?: ReadonlyArray<Environment> | undefined
  /** The stored snapshot's id, reported as `snapshot_id` (null when not given). */
  readonly snapshotId?: string | null | undefined
  /** `revalue` only: each lock's vanna and volga too (a close's, for the P&L explain). */
  readonly crossGreeks?: boolean | undefined
}

/**
 * The plan of a revaluation: `greeks` for `revalue` and `report`, `scenarios` for `stress` and `report`; priced
 * with the book's engine (`Pricing.bookWindowOption`) unless `engine` says otherwise.
 */
export const plan = (input: {
  readonly snapshot: MarketSnapshot.MarketSnapshot
  readonly now: DateTime.Utc
  readonly greeks: boolean
  /** With `greeks`, each lock's vanna and volga too (`LockRisk.cross`): what a close keeps for the P&L explain. */
  readonly crossGreeks?: boolean | undefined
  readonly scenarios: ReadonlyArray<Scenario>
  readonly engine?: RiskPlan.Engine | undefined
}): RiskPlan.RiskPlan => RiskPlan.make({ ...input, now: input.now.epochMilliseconds })

/**
 * Revalues each lock under `riskPlan` (`f(lock, index)`, in the order of direction, strike and window), pricing
 * locks with the same direction, strike and window from now on once: sorted, such locks are neighbours, so no
 * table of prices is kept.
 */
const eachValued = (
  riskPlan: RiskPlan.RiskPlan,
  locks: ReadonlyArray<LockTerms>,
  f: (risk: LockRisk, index: number) => void
) => {
  // a window opened before now is the window from now on
  const start = (lock: LockTerms) => Math.max(lock.windowStart, riskPlan.now)
  const order = locks.map((_, i) => i)
  order.sort((i, j) => {
    const a = locks[i]!
    const b = locks[j]!
    if (a.direction !== b.direction) return a.direction < b.direction ? -1 : 1
    return a.strike - b.strike || start(a) - start(b) || a.windowEnd - b.windowEnd
  })
  let previous: LockTerms | undefined
  let values: Float64Array = new Float64Array(0)
  for (const i of order) {
    const lock = locks[i]!
    const same =
      previous !== undefined &&
      previous.direction === lock.direction &&
      previous.strike === lock.strike &&
      start(previous) === start(lock) &&
      previous.windowEnd === lock.windowEnd
    if (!same) values = unitValues(riskPlan, lock)
    previous = lock
    f(figures(riskPlan, lock, values), i)
  }
}

/** Each open lock's model figures under the plan, in the order given. */
export const valueLocks = (riskPlan: RiskPlan.RiskPlan, locks: ReadonlyArray<LockTerms>): ReadonlyArray<LockRisk> => {
  const risks = new Array<LockRisk>(locks.length)
  eachValued(riskPlan, locks, (risk, i) => {
    risks[i] = risk
  })
  return risks
}

/**
 * Revalues a slice of the book's open locks and adds them up (without keeping each lock's figures): what a
 * worker thread computes. Slices' sums merge exactly with `mergeSums`, in any order.
 */
export const sumLocks = (riskPlan: RiskPlan.RiskPlan, locks: ReadonlyArray<LockTerms>): RiskSums.BookSums => {
  const sums = RiskSums.empty()
  eachValued(riskPlan, locks, (risk) => RiskSums.add(sums, riskPlan, risk))
  return sums
}

/** Adds the sums of slices (as `sumLocks` made them, possibly on other threads) into one. */
export const mergeSums = (riskPlan: RiskPlan.RiskPlan, slices: ReadonlyArray<RiskSums.BookSums>): RiskSums.BookSums => {
  const sums = RiskSums.empty()
  for (const slice of slices) RiskSums.merge(sums, slice, riskPlan)
  return sums
}

/**
 * The reports of `book` from the sums of its open locks revalued under `plan` (`sumLocks`, `mergeSums`): the
 * figures, and the scenarios' results when the plan has scenarios. The committed locks and the payouts due
 * are read from `book.contracts` and `book.payouts` (its open contracts may be left out: their sums are given).
 */
export const reportFrom = (input: {
  readonly book: Book
  readonly snapshot: MarketSnapshot.MarketSnapshot
  readonly now: DateTime.Utc
  readonly plan: RiskPlan.RiskPlan
  readonly sums: RiskSums.BookSums
  readonly options?: Options | undefined
}): ReadonlyArray<BookReport> => {
  const options = input.options ?? {}
  return (options.environments ?? Environments.productionFirst).map((environment) => {
    const env = input.sums.get(environment) ?? RiskSums.emptyEnvironment(input.plan)
    const header: RiskFigures.Header = {
      environment,
      as_of: input.now,
      snapshot_as_of: input.snapshot.as_of,
      snapshot_id: options.snapshotId ?? null
    }
    return {
      ...RiskFigures.bookRisk({ plan: input.plan, env, book: input.book, header, snapshot: input.snapshot }),
      stress: RiskFigures.stressResults(input.plan, env)
    }
  })
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
  const riskPlan = revaluationPlan(snapshot, now, options)
  return revaluationOf(
    book,
    snapshot,
    now,
    options,
    riskPlan,
    valueLocks(riskPlan, openLocks(book, environmentsOf(options)))
  )
}

/**
 * `revalue` as an effect that yields to the runtime between slices of the book (as `reportInSlices` does): what a
 * host whose API shares the thread runs (the daily close). The same figures to the bit.
 */
export const revalueInSlices = (
  book: Book,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  options: Options & { readonly sliceSize?: number | undefined } = {}
): Effect.Effect<Revaluation> => {
  const riskPlan = revaluationPlan(snapshot, now, options)
  return Effect.map(
    valueLocksInSlices(riskPlan, openLocks(book, environmentsOf(options)), options.sliceSize),
    (locks) => revaluationOf(book, snapshot, now, options, riskPlan, locks)
  )
}

const environmentsOf = (options: Options) => options.environments ?? Environments.productionFirst

const revaluationPlan = (snapshot: MarketSnapshot.MarketSnapshot, now: DateTime.Utc, options: Options) =>
  plan({ snapshot, now, greeks: true, crossGreeks: options.crossGreeks, scenarios: [] })

const revaluationOf = (
  book: Book,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  options: Options,
  riskPlan: RiskPlan.RiskPlan,
  locks: ReadonlyArray<LockRisk>
): Revaluation => {
  const sums = RiskSums.empty()
  for (const risk of locks) RiskSums.add(sums, riskPlan, risk)
  const reports = reportFrom({ book, snapshot, now, plan: riskPlan, sums, options })
  return { books: reports.map(({ stress: _, ...risk }) => risk), locks }
}

/** `valueLocks` as an effect that yields between slices of `sliceSize` locks: the same figures, in the order given. */
export const valueLocksInSlices = (
  riskPlan: RiskPlan.RiskPlan,
  locks: ReadonlyArray<LockTerms>,
  sliceSize: number = defaultSliceSize
): Effect.Effect<ReadonlyArray<LockRisk>> =>
  Effect.gen(function* () {
    const size = Math.max(1, sliceSize)
    const risks: Array<LockRisk> = []
    for (let from = 0; from < locks.length; from += size) {
      yield* Effect.yieldNow
      for (const risk of valueLocks(riskPlan, locks.slice(from, from + size))) risks.push(risk)
    }
    return risks
  })

const reportWith = (
  book: Book,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  scenarios: ReadonlyArray<Scenario>,
  greeks: boolean,
  options: Options
): ReadonlyArray<BookReport> => {
  const riskPlan = plan({ snapshot, now, greeks, scenarios })
  const sums = sumLocks(riskPlan, openLocks(book, options.environments ?? Environments.productionFirst))
  return reportFrom({ book, snapshot, now, plan: riskPlan, sums, options })
}

/** The book fully revalued under each scenario: per environment, the `mtm` change in USD, worst first. */
export const stress = (
  book: Book,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  scenarios: ReadonlyArray<Scenario>,
  options: Options = {}
): ReadonlyArray<BookStress> =>
  reportWith(book, snapshot, now, scenarios, false, options).map((r) => ({
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
): ReadonlyArray<BookReport> => reportWith(book, snapshot, now, scenarios, true, options)

/** Open locks priced between two yields of `reportInSlices`: about 15 ms of one core on the development machine. */
export const defaultSliceSize = 250

/**
 * `report` as an effect that prices `sliceSize` open locks at a time and yields to the runtime between slices
 * (`Effect.yieldNow`, which lets Node's event loop run): a service whose workers revalue the book in the process
 * that also answers requests keeps answering them, a slice late at most, where `report` would hold the thread for
 * the whole book (seconds, for 100,000 locks). The same figures to the bit: slices' sums merge exactly.
 */
export const reportInSlices = (
  book: Book,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  scenarios: ReadonlyArray<Scenario>,
  options: Options & { readonly sliceSize?: number | undefined } = {}
): Effect.Effect<ReadonlyArray<BookReport>> =>
  Effect.gen(function* () {
    const riskPlan = plan({ snapshot, now, greeks: true, scenarios })
    const locks = openLocks(book, options.environments ?? Environments.productionFirst)
    const size = Math.max(1, options.sliceSize ?? defaultSliceSize)
    const slices: Array<RiskSums.BookSums> = []
    for (let from = 0; from < locks.length; from += size) {
      yield* Effect.yieldNow
      slices.push(sumLocks(riskPlan, locks.slice(from, from + size)))
    }
    return reportFrom({ book, snapshot, now, plan: riskPlan, sums: mergeSums(riskPlan, slices), options })
  })
