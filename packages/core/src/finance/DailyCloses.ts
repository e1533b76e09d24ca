/**
 * The daily closes as the service runs them: the workers close each environment once a day at the cut
 * (`Settings.cut`, UTC), an operator closes one now (`closeNow`: a backfill, a test, a second close in a day), and
 * both write the same record (`DailyClose`) with the P&L since the environment's close before it (`PnlExplain`).
 * A close finds the market data in force as a quote would (`MarketData.inForce`: production only on a fresh
 * snapshot, the sandbox on the latest or the illustrative one); without it the close is refused with the reason,
 * and nothing is written.
 */
import { Context, DateTime, Duration, Effect, Option, Schema } from "effect"
import * as AuditedChange from "../kernel/AuditedChange.ts"
import * as Environments from "../kernel/Environment.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import * as Lease from "../kernel/Lease.ts"
import * as Money from "../kernel/Money.ts"
import { HedgeOrderRepo } from "../hedging/HedgeOrderRepo.ts"
import { MovementRepo } from "../lifecycle/MovementRepo.ts"
import { MarketData } from "../market/MarketData.ts"
import * as Revaluation from "../risk/Revaluation.ts"
import type { Environment } from "../terms/Partner.ts"
import * as DailyClose from "./DailyClose.ts"
import { DailyCloseRepo } from "./DailyCloseRepo.ts"
import * as closeBook from "./internal/closeBook.ts"
import * as PnlExplain from "./PnlExplain.ts"
import * as PnlReport from "./PnlReport.ts"

export interface SettingsShape {
  /** The daily cut, `HH:MM` UTC (`RATELOCK_DAILY_CLOSE`). */
  readonly cut: string
}

export const Settings = Context.Reference<SettingsShape>("@ratelock/core/DailyCloses/Settings", {
  defaultValue: () => ({ cut: DailyClose.defaultCut })
})

/** A close that cannot be taken, and why. */
export class CloseRefused extends Schema.TaggedError<CloseRefused>()("CloseRefused", {
  reason: Schema.Literals(["no_market_data", "close_in_progress"]),
  message: Schema.String
}) {}

/**
 * How long after its instant a close reads the ledger: longer than a transition takes to commit. One second; zero
 * where nothing commits concurrently and the clock moves only when told (the testkit's `TestClock`).
 */
export const Settle = Context.Reference<Duration.Duration>("@ratelock/core/DailyCloses/Settle", {
  defaultValue: () => Duration.seconds(1)
})

/** Every filled hedge order there is, at most: a book's fills over its whole life. */
const allFills = 10_000_000

/** The summary of a close: what lists and answers show (its locks and snapshot stay in the store). */
export const summary = ({ locks: _, snapshot: __, ...rest }: DailyClose.DailyClose): DailyClose.CloseSummary => rest

/** What an operator's close records in the audit log of what it wrote. */
export const recorded = (close: DailyClose.CloseSummary) => ({
  id: close.id,
  closed_at: DateTime.formatIso(close.closed_at),
  snapshot_id: close.snapshot_id,
  total_usd: close.pnl === null ? null : Money.format(close.pnl.usd.total)
})

/**
 * Closes `environment` now, standing for `scheduledFor` (null: an operator's close), from its latest close. Answers
 * the close written, or none when the environment already has a close for `scheduledFor` (another worker took it).
 * Run under the close lease (`withLease`): two closes computed at once from the same latest one would both count
 * its period.
 */
export const close = Effect.fn("DailyCloses.close")(function* (
  environment: Environment,
  scheduledFor: DateTime.Utc | null
) {
  const inForce = yield* (yield* MarketData).inForce(environment)
  if (inForce._tag === "Stale") {
    return yield* new CloseRefused({
      reason: "no_market_data",
      message: `no market data in force for ${environment}: ${inForce.message}`
    })
  }
  return yield* closeOn(environment, scheduledFor, inForce)
})

/** The close computed from the environment's latest close, and written. */
const closeOn = Effect.fn("DailyCloses.closeOn")(function* (
  environment: Environment,
  scheduledFor: DateTime.Utc | null,
  inForce: { readonly snapshotId: string | null; readonly snapshot: DailyClose.DailyClose["snapshot"] }
) {
  const repo = yield* DailyCloseRepo
  const now = yield* DateTime.now
  // a transition dated before the close may still be committing its ledger entries: they are waited for, so the
  // close's balances have them and none falls between two periods
  yield* Effect.sleep(yield* Settle)
  const previous = yield* repo.latest(environment)
  const book = yield* Revaluation.loadBook()
  const hedges = yield* (yield* HedgeOrderRepo).list({ environment, statuses: ["filled"], limit: allFills })
  const balances = yield* repo.trialBalance({ environment, until: now })
  const figures = yield* closeBook.build({
    id: `close_${yield* (yield* IdGenerator).uuid}`,
    environment,
    now,
    scheduledFor,
    snapshotId: inForce.snapshotId,
    snapshot: inForce.snapshot,
    book,
    hedges,
    balances,
    previousCloseId: Option.match(previous, { onNone: () => null, onSome: (p) => p.id })
  })
  const pnl = Option.isNone(previous) ? null : yield* periodBetween(previous.value, { ...figures, pnl: null })
  const written: DailyClose.DailyClose = { ...figures, pnl }
  // an operator's close is recorded in the transaction that stores it: the lease and the wait for a close under way
  // are held in no transaction (`OperatorActions.closeBook` is an external action), so the close under way can end
  const stored = yield* AuditedChange.commit(repo.insert(written), (ok) =>
    ok ? Option.some(recorded(written)) : Option.none()
  )
  return stored ? Option.some(written) : Option.none()
})

/** The P&L between two closes of one environment, from the ledgers booked between them. */
export const periodBetween = Effect.fn("DailyCloses.periodBetween")(function* (
  earlier: DailyClose.DailyClose,
  later: DailyClose.DailyClose
) {
  const period = { environment: later.environment, after: earlier.closed_at, until: later.closed_at }
  const flows = yield* (yield* DailyCloseRepo).contractFlows(period)
  const treasury = (yield* (yield* MovementRepo).entriesSince({
    since: earlier.closed_at,
    environment: later.environment
  })).filter(
    (e) =>
      e.at.epochMilliseconds > earlier.closed_at.epochMilliseconds &&
      e.at.epochMilliseconds <= later.closed_at.epochMilliseconds
  )
  return yield* PnlExplain.between({ earlier, later, flows, treasury })
})

/** How long an operator's close waits for one under way (the workers' at the cut) before it is refused. */
const operatorWait = { attempts: 20, every: Duration.millis(500) }

/**
 * Runs `effect` holding the one lease on closing (this worker's `Lease.Worker` lease time), or answers none when
 * another holds it: closes are taken one at a time, each from the one before.
 */
const withLease = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const repo = yield* DailyCloseRepo
    const worker = yield* Lease.Worker
    const now = yield* DateTime.now
    const lease = { owner: worker.owner, until: DateTime.addDuration(now, worker.leaseFor) }
    if (!(yield* repo.claim(lease, now))) return Option.none<A>()
    return yield* effect.pipe(
      Effect.map(Option.some),
      Effect.ensuring(Effect.ignore(Effect.flatMap(DateTime.now, (at) => repo.release(lease, at))))
    )
  })

/** An operator's close of `environment`, now (after the one under way, if any): the summary of what was written. */
export const closeNow = Effect.fn("DailyCloses.closeNow")(function* (environment: Environment) {
  for (let attempt = 1; attempt <= operatorWait.attempts; attempt++) {
    const written = yield* withLease(close(environment, null))
    // an operator's close has no cut to share: once under the lease, it is written
    if (Option.isSome(written)) return summary(Option.getOrThrow(written.value))
    yield* Effect.sleep(operatorWait.every)
  }
  return yield* new CloseRefused({
    reason: "close_in_progress",
    message: "another close of the book is being taken and has not ended; try again in a minute"
  })
})

/**
 * The workers' pass: each environment without a close for the latest cut is closed, one worker at a time (the
 * close lease; the store keeps one close per cut whatever happens). An environment without market data in force
 * is skipped until it has some (logged); answers the number of closes written.
 */
export const pass = Effect.fn("DailyCloses.pass")(function* () {
  const { cut } = yield* Settings
  const now = yield* DateTime.now
  const scheduledFor = DailyClose.latestCut(now, cut)
  const repo = yield* DailyCloseRepo
  const due = yield* Effect.filter(Environments.productionFirst, (environment) =>
    Effect.map(repo.hasScheduled(environment, scheduledFor), (has) => !has)
  )
  if (due.length === 0) return 0
  const written = yield* withLease(
    Effect.forEach(due, (environment) =>
      // the worker that held the lease before may have closed it
      Effect.flatMap(repo.hasScheduled(environment, scheduledFor), (has) =>
        has ? Effect.succeed(Option.none()) : close(environment, scheduledFor)
      ).pipe(
        Effect.map(Option.isSome),
        // production without a fresh snapshot: tried again at the next round (the operator's status says so)
        Effect.catchTag("CloseRefused", (refused) =>
          Effect.as(Effect.logDebug("daily close skipped", { environment, reason: refused.message }), false)
        )
      )
    )
  )
  return Option.match(written, { onNone: () => 0, onSome: (w) => w.filter(Boolean).length })
})

export interface PnlQuery {
  readonly environment: Environment
  /** UTC days; `to` defaults to today, `from` to 30 days before `to`. */
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly by?: PnlReport.By | undefined
}

/** The days a query asks for, and the instants they cover. */
const daysOf = Effect.fn("DailyCloses.daysOf")(function* (query: Omit<PnlQuery, "by">) {
  const to = query.to ?? PnlReport.dayOf(yield* DateTime.now)
  const from = query.from ?? PnlReport.dayOf(DateTime.subtract(PnlReport.spanOf(to, to).start, { days: 30 }))
  return { from, to, ...PnlReport.spanOf(from, to) }
})

/** The environment's closes within the days asked, oldest first. */
export const list = Effect.fn("DailyCloses.list")(function* (query: Omit<PnlQuery, "by">) {
  const { start, end } = yield* daysOf(query)
  return yield* (yield* DailyCloseRepo).list({ environment: query.environment, from: start, to: end })
})

/** The P&L of the periods whose later close falls within the days asked, per day, pair and partner. */
export const pnl = Effect.fn("DailyCloses.pnl")(function* (query: PnlQuery) {
  const { from, to } = yield* daysOf(query)
  const closes = yield* list(query)
  return PnlReport.of({ environment: query.environment, from, to, by: query.by ?? "day", closes })
})
