/**
 * The book's revaluation as the workers run it: read every contract at risk, the snapshot in force
 * and the scenarios, revalue with core's pure `Risk`, and store one revaluation per environment;
 * and the hedger's `BookDelta`, read from what was stored.
 *
 * - `revalue` reads the book (every contract at risk and the payouts of exercised ones), the latest
 *   snapshot (whatever its age: the report says how old it is; the built-in illustrative one when
 *   none was imported) and the scenarios, and stores one revaluation per environment.
 * - `revaluationPass` does so when the stored one is older than `Settings.interval` or was priced
 *   from another snapshot than the latest, one worker at a time (a lease).
 */
import { Context, DateTime, Duration, Effect, Layer, Option } from "effect"
import { BookDelta } from "../hedging/BookDelta.ts"
import * as Environments from "../kernel/Environment.ts"
import type { Position } from "../kernel/Cursor.ts"
import * as Lease from "../kernel/Lease.ts"
import { ContractRepo } from "../lifecycle/ContractRepo.ts"
import { PayoutRepo } from "../lifecycle/PayoutRepo.ts"
import * as MarketFreshness from "../market/MarketFreshness.ts"
import * as MarketSnapshot from "../market/MarketSnapshot.ts"
import { MarketSnapshotRepo } from "../market/MarketSnapshotRepo.ts"
import type { ContractStatus } from "../terms/Contract.ts"
import type * as RiskBook from "./internal/RiskBook.ts"
import * as Risk from "./Risk.ts"
import { RiskRevaluationRepo, type StoredRevaluation } from "./RiskRevaluationRepo.ts"
import * as RiskScenario from "./RiskScenario.ts"
import { RiskScenarioRepo } from "./RiskScenarioRepo.ts"

export interface SettingsShape {
  /** How old the stored revaluation may grow before the workers revalue the book again. */
  readonly interval: Duration.Duration
}

/** `RATELOCK_RISK_INTERVAL_SECONDS` in the host; 30 s by default (risk.md's report is for people). */
export const Settings = Context.Reference<SettingsShape>("@ratelock/core/Revaluation/Settings", {
  defaultValue: () => ({ interval: Duration.seconds(30) })
})

/** The statuses that are the service's risk (`RiskBook.standing`): open, committed, payout due. */
const atRisk: ReadonlyArray<ContractStatus> = ["active", "quote_created", "funds_in_route", "exercised"]

const page = 1_000

/** Every contract at risk, both environments, and the payouts of the exercised ones. */
export const loadBook = Effect.fn("Revaluation.loadBook")(function* () {
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
const snapshotInForce = Effect.fn("Revaluation.snapshotInForce")(function* (now: DateTime.Utc) {
  const latest = yield* (yield* MarketSnapshotRepo).latest()
  return Option.match(latest, {
    onNone: () => ({ id: MarketFreshness.illustrativeSnapshotId, document: MarketSnapshot.illustrativeAt(now) }),
    onSome: (stored) => ({ id: stored.id as string | null, document: stored.document })
  })
})

/** The defaults of risk.md and the operator's own (one named like a default replaces it). */
export const scenarios = Effect.fn("Revaluation.scenarios")(function* () {
  const stored = yield* (yield* RiskScenarioRepo).list()
  return RiskScenario.withDefaults(stored.map((s) => s.scenario))
})

/** Revalues the whole book now, stores it per environment, and answers what it stored. */
export const revalue = Effect.fn("Revaluation.revalue")(function* () {
  const now = yield* DateTime.now
  const book = yield* loadBook()
  const snapshot = yield* snapshotInForce(now)
  // in slices: the workers may share the thread with the API (`pnpm start`), which keeps answering meanwhile
  const reports = yield* Risk.reportInSlices(book, snapshot.document, now, yield* scenarios(), {
    environments: Environments.productionFirst,
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
export const revaluationPass = Effect.fn("Revaluation.revaluationPass")(function* () {
  const { interval } = yield* Settings
  const now = yield* DateTime.now
  const repo = yield* RiskRevaluationRepo
  const latest = yield* (yield* MarketSnapshotRepo).latest()
  const latestId = Option.match(latest, { onNone: () => null, onSome: (s) => s.id as string | null })
  const stored = yield* Effect.forEach(Environments.productionFirst, repo.latest)
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
