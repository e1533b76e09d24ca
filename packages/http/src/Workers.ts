/**
 * The lifecycle workers: funding confirmation, funding deadlines, payouts, expiry and outbound
 * webhook delivery, each a loop over one of core's programs. Every pass claims its work from the
 * store with a lease, so any number of worker processes can share one database and a crashed
 * worker's work is picked up again once its lease ends.
 */
import {
  type ChainGateway,
  type ContractRepo,
  Deliveries,
  type EventRepo,
  Expiry,
  Funding,
  type IdGenerator,
  Lease,
  type MarketData,
  type PartnerRepo,
  type PayoutRepo,
  Payouts,
  type WebhookTransport
} from "@ratelock/core"
import type { Mac } from "effect/crypto"
import { Duration, Effect, Layer, Schedule } from "effect"

export interface WorkerSettings {
  /** Pause between passes of each loop. */
  readonly pollInterval: Duration.Duration
  /**
   * Jobs a pass works at once (default `Lease.defaultConcurrency`): each is a few round trips to
   * the database and the chain, so a pass over many jobs would otherwise take them once per job.
   */
  readonly concurrency?: number | undefined
  /** This process's name on the leases it takes. */
  readonly owner: string
  /** How long a claimed job stays this worker's before another may take it over (default 1 min). */
  readonly leaseFor?: Duration.Duration | undefined
}

/** One worker loop: a pass, a pause, forever; a failed pass is logged and the loop goes on. */
const loop = <E, R>(name: string, pass: Effect.Effect<unknown, E, R>, every: Duration.Duration) =>
  pass.pipe(
    Effect.catchCause((cause) => Effect.logError(`worker ${name}: pass failed`, cause)),
    Effect.repeat(Schedule.spaced(every)),
    Effect.withSpan(`worker.${name}`)
  )

/** What the worker programs run on. */
export type Requirements =
  | ContractRepo.ContractRepo
  | EventRepo.EventRepo
  | PayoutRepo.PayoutRepo
  | PartnerRepo.PartnerRepo
  | ChainGateway.ChainGateway
  | MarketData.MarketData
  | IdGenerator.IdGenerator
  | WebhookTransport.WebhookTransport
  | Mac.Mac

/** Every worker loop, forked for the lifetime of the layer. */
export const layer = (settings: WorkerSettings): Layer.Layer<never, never, Requirements> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const every = settings.pollInterval
      // deadlines and window ends are instants on the clock: a second late is on time, and polling
      // them as often as the event-driven loops would only add claims
      const clockwork = Duration.max(every, Duration.seconds(1))
      yield* Effect.forkScoped(loop("funding", Funding.confirmFunding(), every))
      yield* Effect.forkScoped(loop("funding-deadline", Funding.failUnfunded(), clockwork))
      yield* Effect.forkScoped(loop("payouts", Payouts.runDue(), every))
      yield* Effect.forkScoped(loop("expiry", Expiry.expireDue(), clockwork))
      yield* Effect.forkScoped(loop("deliveries", Deliveries.deliverDue(), every))
      // funds sent to a contract's address after it stopped awaiting them: recorded for refund
      yield* Effect.forkScoped(loop("late-funds", Funding.watchLateFunds(), Duration.max(every, Duration.minutes(1))))
      yield* Effect.logInfo(`workers running as ${settings.owner}, every ${Duration.format(every)}`)
    }).pipe(
      Effect.provideService(Lease.Worker, {
        owner: settings.owner,
        leaseFor: settings.leaseFor ?? Duration.minutes(1),
        batch: 100,
        concurrency: settings.concurrency ?? Lease.defaultConcurrency
      })
    )
  )
