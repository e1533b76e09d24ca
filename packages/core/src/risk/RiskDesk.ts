/**
 * The book as the operator runs it (issue 17): the workers' revaluation pass, the report the
 * operator reads, the operator's scenarios, and the book's delta the hedger hedges — programs over
 * the store's ports around core's pure `Risk`.
 *
 * - `revalue` reads the book (every contract at risk and the payouts of exercised ones), the latest
 *   snapshot (whatever its age: the report says how old it is; the built-in illustrative one when
 *   none was imported) and the scenarios, and stores one revaluation per environment.
 * - `revaluationPass` does so when the stored one is older than `Settings.interval` or was priced
 *   from another snapshot than the latest, one worker at a time (a lease).
 * - `report` is the stored revaluation (or a fresh one), each pair with its hedge, the net currency
 *   exposure with the hedge positions (`NetExposure`), and the limits.
 */
import { Context, DateTime, Duration, Effect, Layer, Option } from "effect"
import { BookDelta } from "../hedging/BookDelta.ts"
import type { ContractStatus } from "../terms/Contract.ts"
import { ContractRepo } from "../lifecycle/ContractRepo.ts"
import type { Position } from "../kernel/Cursor.ts"
import * as CorridorLimits from "../limits/CorridorLimits.ts"
import { HedgeOrderRepo } from "../hedging/HedgeOrderRepo.ts"
import * as HedgeMarks from "../hedging/HedgeMarks.ts"
import * as HedgeOrder from "../hedging/HedgeOrder.ts"
import * as HedgePolicy from "../hedging/HedgePolicy.ts"
import { HedgePolicyRepo } from "../hedging/HedgePolicyRepo.ts"
import * as Lease from "../kernel/Lease.ts"
import * as MarketFreshness from "../market/MarketFreshness.ts"
import * as MarketSnapshot from "../market/MarketSnapshot.ts"
import { MarketSnapshotRepo } from "../market/MarketSnapshotRepo.ts"
import * as Money from "../kernel/Money.ts"
import * as NetExposure from "./NetExposure.ts"
import type { Environment } from "../terms/Partner.ts"
import { PayoutRepo } from "../lifecycle/PayoutRepo.ts"
import * as Risk from "./Risk.ts"
import type * as RiskBook from "./internal/RiskBook.ts"
import type * as RiskDeskReport from "./RiskDeskReport.ts"
import * as RiskReport from "./RiskReport.ts"
import { RiskRevaluationRepo, type StoredRevaluation } from "./RiskRevaluationRepo.ts"
import * as RiskScenario from "./RiskScenario.ts"
import { RiskScenarioRepo } from "./RiskScenarioRepo.ts"

export interface SettingsShape {
  /** How old the stored revaluation may grow before the workers revalue the book again. */
  readonly interval: Duration.Duration
}

/** `RATELOCK_RISK_INTERVAL_SECONDS` in the host; 30 s by default (risk.md's report is for people). */
export const Settings = Context.Reference<SettingsShape>("@ratelock/core/RiskDesk/Settings", {
  defaultValue: () => ({ interval: Duration.seconds(30) })
})

export const environments: ReadonlyArray<Environment> = ["production", "sandbox"]

/** The statuses that are the service's risk (`RiskBook.standing`): open, committed, payout due. */
const atRisk: ReadonlyArray<ContractStatus> = ["active", "quote_created", "funds_in_route", "exercised"]

const page = 1_000

/** Every contract at risk, both environments, and the payouts of the exercised ones. */
export const loadBook = Effect.fn("RiskDesk.loadBook")(function* () {
  const contracts = yield* ContractRepo
  const payouts = yield* PayoutRepo
  const all: Array<RiskBook.BookContract> = []
  let after: Position | undefined
  while (true) {
    const batch = yield* contracts.listByStatus(atRisk, page, after)
    all.push(...batch)
    if (batch.length < page) break
    const last = batch[batch.length - 1]!
    after = { createdAt: DateTime.formatIso(last.createdAt), id: last.id }
  }
  const exercised = all.filter((c) => c.status === "exercised").map((c) => c.id)
  const found = exercised.length === 0 ? [] : yield* payouts.findByContracts(exercised)
  return { contracts: all, payouts: found } satisfies RiskBook.Book
})

/** The snapshot to revalue on: the latest stored one, else the built-in illustrative one observed now. */
const snapshotInForce = Effect.fn("RiskDesk.snapshotInForce")(function* (now: DateTime.Utc) {
  const latest = yield* (yield* MarketSnapshotRepo).latest()
  return Option.match(latest, {
    onNone: () => ({ id: MarketFreshness.illustrativeSnapshotId, document: MarketSnapshot.illustrativeAt(now) }),
    onSome: (stored) => ({ id: stored.id as string | null, document: stored.document })
  })
})

/** The defaults of risk.md and the operator's own (one named like a default replaces it). */
export const scenarios = Effect.fn("RiskDesk.scenarios")(function* () {
  const stored = yield* (yield* RiskScenarioRepo).list()
  return RiskScenario.withDefaults(stored.map((s) => s.scenario))
})

/** Stores the operator's scenarios (each replaces one of its name). */
export const setScenarios = Effect.fn("RiskDesk.setScenarios")(function* (list: ReadonlyArray<RiskScenario.Scenario>) {
  const updatedAt = yield* DateTime.now
  yield* (yield* RiskScenarioRepo).put(list.map((scenario) => ({ scenario, updatedAt })))
  return list
})

/** Revalues the whole book now, stores it per environment, and answers what it stored. */
export const revalue = Effect.fn("RiskDesk.revalue")(function* () {
  const now = yield* DateTime.now
  const book = yield* loadBook()
  const snapshot = yield* snapshotInForce(now)
  // in slices: the workers may share the thread with the API (`pnpm start`), which keeps answering meanwhile
  const reports = yield* Risk.reportInSlices(book, snapshot.document, now, yield* scenarios(), {
    environments,
    snapshotId: snapshot.id
  })
  const repo = yield* RiskRevaluationRepo
  const stored: ReadonlyArray<StoredRevaluation> = reports.map((report) => ({
    environment: report.environment,
    computedAt: now,
    snapshotId: snapshot.id,
    report
  }))
  yield* Effect.forEach(stored, repo.save, { discard: true })
  return stored
})

/**
 * The workers' pass: revalues the book when an environment has no revaluation, when it is
 * `Settings.interval` old, or when it was priced from another snapshot than the latest, under the
 * one lease on revaluing (`RiskRevaluationRepo.claim`, for the worker's `Lease.Worker` lease time).
 * Answers the number of environments revalued (0 as well when another worker is at it).
 */
export const revaluationPass = Effect.fn("RiskDesk.revaluationPass")(function* () {
  const { interval } = yield* Settings
  const now = yield* DateTime.now
  const repo = yield* RiskRevaluationRepo
  const latest = yield* (yield* MarketSnapshotRepo).latest()
  const latestId = Option.match(latest, { onNone: () => null, onSome: (s) => s.id as string | null })
  const stored = yield* Effect.forEach(environments, repo.latest)
  const due = stored.some((s) =>
    Option.match(s, {
      onNone: () => true,
      onSome: (r) =>
        r.snapshotId !== latestId ||
        now.epochMilliseconds - r.computedAt.epochMilliseconds >= Duration.toMillis(interval)
    })
  )
  if (!due) return 0
  // one worker revalues; the others, finding it due at the same time, skip until it has stored it
  const worker = yield* Lease.Worker
  const lease = { owner: worker.owner, until: DateTime.addDuration(now, worker.leaseFor) }
  if (!(yield* repo.claim(lease, now))) return 0
  return yield* revalue().pipe(
    Effect.map((stored) => stored.length),
    Effect.ensuring(Effect.ignore(Effect.flatMap(DateTime.now, (at) => repo.release(lease, at))))
  )
})

const startOfDay = (now: DateTime.Utc) =>
  DateTime.makeUnsafe(Math.floor(now.epochMilliseconds / 86_400_000) * 86_400_000)

const hedgeOf = Effect.fn("RiskDesk.hedgeOf")(function* (
  environment: Environment,
  pair: RiskReport.PairRisk,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc
) {
  const policy = yield* (yield* HedgePolicyRepo).find(environment, pair.pair)
  const orders = yield* HedgeOrderRepo
  const position = yield* orders.position(environment, pair.pair)
  const filled = yield* orders.list({ environment, pair: pair.pair, statuses: ["filled"], limit: 100_000 })
  const today = yield* orders.list({ environment, pair: pair.pair, since: startOfDay(now), limit: 100_000 })
  const outstanding = yield* orders.outstanding(environment, pair.pair)
  const quote = pair.pair.split("/")[1]!
  const pnl = HedgeMarks.pnl(snapshot, filled)
  const usdPerQuote = Option.getOrElse(MarketSnapshot.midRate(snapshot, quote, "USD"), () => Money.zero)
  const needed = Option.flatMap(policy, (p) => HedgePolicy.decide({ delta: pair.delta, position, policy: p, now }))
  return {
    policy: Option.getOrNull(
      Option.map(policy, (p) => ({
        target_ratio: p.targetRatio,
        band: p.band,
        instrument: p.instrument,
        value_days: p.valueDays
      }))
    ),
    position,
    target: Option.getOrNull(Option.map(policy, (p) => HedgePolicy.target(pair.delta, p))),
    residual_delta: HedgePolicy.residual(pair.delta, position),
    order_needed: Option.getOrNull(Option.map(needed, (o) => ({ side: o.side, amount: o.amount }))),
    pnl: RiskReport.figure(pnl),
    pnl_usd: RiskReport.figure(pnl * Money.toModel(usdPerQuote)),
    orders_today: today.length,
    pending_order: outstanding[0]?.id ?? null
  } satisfies RiskDeskReport.PairHedge
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
    : (yield* revalue()).find((r) => r.environment === environment)!
  const now = yield* DateTime.now
  const snapshot = Option.match(
    revaluation.snapshotId === null ? Option.none() : yield* (yield* MarketSnapshotRepo).find(revaluation.snapshotId),
    {
      onNone: () => MarketSnapshot.illustrativeAt(revaluation.report.as_of),
      onSome: (s) => s.document
    }
  )
  const pairs = yield* Effect.forEach(revaluation.report.pairs, (pair) =>
    Effect.map(hedgeOf(environment, pair, snapshot, now), (hedge) => ({ ...pair, hedge }))
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

/** The hedger's `BookDelta`: each pair's delta from the stored revaluation (none stored: none known). */
export const bookDelta: Layer.Layer<BookDelta, never, RiskRevaluationRepo> = Layer.effect(
  BookDelta,
  Effect.map(Effect.service(RiskRevaluationRepo), (repo) =>
    BookDelta.of({
      deltas: (environment) =>
        Effect.map(repo.latest(environment), (stored) =>
          Option.match(stored, {
            onNone: () => [],
            onSome: (r) =>
              r.report.pairs.map((p) => ({
                pair: p.pair,
                delta: p.delta,
                snapshotId: r.snapshotId,
                asOf: r.computedAt
              }))
          })
        )
    })
  )
)

/** `HedgeOrder.view` of orders, for the operator's listing. */
export const orderViews = (orders: ReadonlyArray<HedgeOrder.HedgeOrder>) => orders.map(HedgeOrder.view)
