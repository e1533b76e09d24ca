/**
 * The lifecycle workers: each of core's `WorkerPasses.passes` (funding, deadlines, payouts, expiry,
 * webhook delivery, late funds) as a loop on a timer. Every pass claims its work from the
 * store with a lease, so any number of worker processes can share one database and a crashed
 * worker's work is picked up again once its lease ends.
 */
import { Lease, WorkerPasses } from "@ratelock/core"
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
export type Requirements = WorkerPasses.Requirements

/** Every worker loop, forked for the lifetime of the layer. */
export const layer = (settings: WorkerSettings): Layer.Layer<never, never, Requirements> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const every = settings.pollInterval
      for (const pass of WorkerPasses.passes) {
        yield* Effect.forkScoped(loop(pass.name, pass.run, WorkerPasses.interval(pass, every)))
      }
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
