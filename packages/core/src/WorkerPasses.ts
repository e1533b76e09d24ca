/**
 * The worker passes: every background program of the lifecycle, in the order one round runs them.
 * Hosts iterate this list (the http workers as loops on a timer, the testkit as rounds on demand),
 * so a new pass is one entry here.
 */
import { Duration, Effect } from "effect"
import * as Deliveries from "./lifecycle/Deliveries.ts"
import * as Expiry from "./lifecycle/Expiry.ts"
import * as DailyCloses from "./finance/DailyCloses.ts"
import * as Funding from "./lifecycle/Funding.ts"
import * as Hedging from "./hedging/Hedging.ts"
import * as HotWallets from "./operator/HotWallets.ts"
import * as Movements from "./lifecycle/Movements.ts"
import * as Payouts from "./lifecycle/Payouts.ts"
import * as Reconciliation from "./operator/Reconciliation.ts"
import * as Sweeps from "./operator/Sweeps.ts"
import * as Revaluation from "./risk/Revaluation.ts"

/** A pass: one run over its due work; `run` answers how many jobs it took or moved. */
export interface WorkerPass<E, R> {
  readonly name: string
  readonly run: Effect.Effect<number, E, R>
  /**
   * The least time between two runs, whatever the host's poll interval: passes that wait for an
   * instant on the clock (a deadline, a window's end) are on time a second late, and polling them
   * as often as the event-driven passes would only add claims.
   */
  readonly atLeast: Duration.Duration
}

const pass = <E, R>(name: string, run: Effect.Effect<number, E, R>, atLeast: Duration.Input = Duration.zero) => ({
  name,
  run,
  atLeast: Duration.fromInputUnsafe(atLeast)
})

const list = [
  pass("funding", Funding.confirmFunding()),
  pass("funding-deadline", Funding.failUnfunded(), Duration.seconds(1)),
  pass("payouts", Payouts.runDue()),
  pass("expiry", Expiry.expireDue(), Duration.seconds(1)),
  pass("deliveries", Deliveries.deliverDue()),
  // funds sent to a contract's address after it stopped awaiting them, recorded for refund: it
  // moves no contract, so it counts no job
  pass("late-funds", Effect.as(Funding.watchLateFunds(), 0), Duration.minutes(1)),
  // the book revalued every Revaluation.Settings.interval and on a new snapshot (it decides when)
  pass("revaluation", Revaluation.revaluationPass(), Duration.seconds(1)),
  // the book's delta within each pair's band; nothing where the host provides no hedge venue
  pass("hedging", Hedging.pass(), Duration.seconds(1)),
  // each served chain's hot wallet read once a minute, for the treasury view, the status and the gauges
  pass("hot-wallets", HotWallets.watch(), HotWallets.readEvery),
  // funding addresses no longer awaiting funds swept into the hot wallet or the treasury (recorded
  // here, sent by the movements pass)
  pass("sweeps", Sweeps.plan(), Sweeps.every),
  // sweeps and refunds signed, sent, replaced and booked, as payouts are
  pass("movements", Movements.runDue()),
  // the books against the chain, every Reconciliation.Interval (it decides when)
  pass("reconciliation", Reconciliation.pass(), Duration.minutes(1)),
  // each environment closed once a day at DailyCloses.Settings.cut (it decides when)
  pass("daily-close", DailyCloses.pass(), Duration.minutes(1))
] as const

type AnyPass = (typeof list)[number]
type ErrorOf<P> = P extends WorkerPass<infer E, infer _R> ? E : never
type RequirementsOf<P> = P extends WorkerPass<infer _E, infer R> ? R : never

/** What the passes can fail with. */
export type Error = ErrorOf<AnyPass>

/** What the passes run on: the host provides it. */
export type Requirements = RequirementsOf<AnyPass>

/** Every pass, in the order one round runs them. */
export const passes: ReadonlyArray<WorkerPass<Error, Requirements>> = list

/** How often a pass runs when the host polls every `pollInterval`. */
export const interval = (p: { readonly atLeast: Duration.Duration }, pollInterval: Duration.Duration) =>
  Duration.max(pollInterval, p.atLeast)
