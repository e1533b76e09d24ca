/**
 * The lifecycle workers: each of core's `WorkerPasses.passes` (funding, deadlines, payouts, expiry,
 * webhook delivery, late funds) as a loop on a timer. Every pass claims its work from the
 * store with a lease, so any number of worker processes can share one database and a crashed
 * worker's work is picked up again once its lease ends.
 *
 * Each loop notes when its last pass ended and whether it succeeded; every `heartbeatEvery` the
 * process writes those notes to the store in one statement (`WorkerHeartbeatRepo`), for the
 * operator's status, and once an hour it forgets heartbeats no status lists any more.
 */
import { Lease, OperatorStatus, WorkerHeartbeatRepo, WorkerPasses } from "@ratelock/core"
import { Cause, DateTime, Duration, Effect, Exit, Layer, Schedule } from "effect"

export interface WorkerSettings {
  /** Pause between passes of each loop. */
  readonly pollInterval: Duration.Duration
  /**
   * Jobs a pass works at once (default `Lease.defaultConcurrency`): each is a few round trips to
   * the database and the chain, so a pass over many jobs would otherwise take them once per job.
   */
  readonly concurrency?: number | undefined
  /** This process's name on the leases it takes (and its heartbeats). */
  readonly owner: string
  /** How long a claimed job stays this worker's before another may take it over (default 1 min). */
  readonly leaseFor?: Duration.Duration | undefined
}

/** How often a worker process writes its passes' heartbeats: the status's ages are this late at most. */
export const heartbeatEvery = Duration.seconds(5)

/** How often old heartbeats (older than the status lists) are pruned. */
const pruneEvery = Duration.hours(1)

/** Each pass's last end and outcome, as this process saw them. */
type Notes = Map<string, { readonly at: DateTime.Utc; readonly ok: boolean }>

const note = (notes: Notes, name: string, ok: boolean) =>
  Effect.map(DateTime.now, (at) => {
    notes.set(name, { at, ok })
  })

/**
 * One worker loop: a pass, a pause, forever; a failed pass is logged and the loop goes on. Each
 * pass is a trace of its own (`worker.<name>`, with how many jobs it took), its jobs its children,
 * and its end is noted for the heartbeats.
 */
const loop = <E, R>(
  name: string,
  pass: Effect.Effect<number, E, R>,
  every: Duration.Duration,
  owner: string,
  notes: Notes
) =>
  pass.pipe(
    Effect.tap((jobs) => Effect.annotateCurrentSpan("ratelock.jobs", jobs)),
    Effect.tapCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logError(`worker ${name}: pass failed`, cause)
    ),
    Effect.withSpan(`worker.${name}`, { root: true, attributes: { "ratelock.worker": owner } }),
    Effect.exit,
    Effect.flatMap((exit) => note(notes, name, Exit.isSuccess(exit))),
    Effect.repeat(Schedule.spaced(every))
  )

/** Writes the notes as heartbeats every `heartbeatEvery`, and prunes old ones every `pruneEvery`. */
const heartbeats = (owner: string, notes: Notes) =>
  Effect.gen(function* () {
    const repo = yield* WorkerHeartbeatRepo.WorkerHeartbeatRepo
    const write = Effect.suspend(() =>
      repo.beat([...notes].map(([pass, { at, ok }]) => ({ owner, pass, lastPassAt: at, ok })))
    ).pipe(Effect.catchCause((cause) => Effect.logWarning("workers: writing heartbeats failed", cause)))
    const prune = Effect.flatMap(DateTime.now, (now) =>
      repo.prune(DateTime.subtractDuration(now, OperatorStatus.workersSeenWithin))
    ).pipe(Effect.catchCause((cause) => Effect.logWarning("workers: pruning heartbeats failed", cause)))
    yield* Effect.forkScoped(Effect.repeat(write, Schedule.spaced(heartbeatEvery)))
    yield* Effect.forkScoped(Effect.repeat(prune, Schedule.spaced(pruneEvery)))
  })

/** What the worker programs run on. */
export type Requirements = WorkerPasses.Requirements

/** Every worker loop, forked for the lifetime of the layer, and their heartbeats. */
export const layer = (
  settings: WorkerSettings
): Layer.Layer<never, never, Requirements | WorkerHeartbeatRepo.WorkerHeartbeatRepo> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const every = settings.pollInterval
      const notes: Notes = new Map()
      for (const pass of WorkerPasses.passes) {
        yield* Effect.forkScoped(loop(pass.name, pass.run, WorkerPasses.interval(pass, every), settings.owner, notes))
      }
      yield* heartbeats(settings.owner, notes)
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
