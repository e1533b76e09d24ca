/**
 * The lifecycle workers: each of core's `WorkerPasses.passes` (funding, deadlines, payouts, expiry,
 * webhook delivery, late funds) as a loop on a timer. Every pass claims its work from the
 * store with a lease, so any number of worker processes can share one database and a crashed
 * worker's work is picked up again once its lease ends.
 */
import { Lease, WorkerPasses } from "@ratelock/core"
import { Cause, Duration, Effect, Layer, Schedule } from "effect"

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

/**
 * One worker loop: a pass, a pause, forever; a failed pass is logged and the loop goes on. Each
 * pass is a trace of its own (`worker.<name>`, with how many jobs it took), its jobs its children.
 */
const loop = <E, R>(name: string, pass: Effect.Effect<number, E, R>, every: Duration.Duration, owner: string) =>
  pass.pipe(
    Effect.tap((jobs) => Effect.annotateCurrentSpan("ratelock.jobs", jobs)),
    Effect.tapCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logError(`worker ${name}: pass failed`, cause)
    ),
    Effect.withSpan(`worker.${name}`, { root: true, attributes: { "ratelock.worker": owner } }),
    Effect.ignoreCause,
    Effect.repeat(Schedule.spaced(every))
  )

/** What the worker programs run on. */
export type Requirements = WorkerPasses.Requirements

/** Every worker loop, forked for the lifetime of the layer. */
export const layer = (settings: WorkerSettings): Layer.Layer<never, never, Requirements> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const every = settings.pollInterval
      for (const pass of WorkerPasses.passes) {
        yield* Effect.forkScoped(loop(pass.name, pass.run, WorkerPasses.interval(pass, every), settings.owner))
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
