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
import { DateTime, Duration, Effect, Layer, Schedule } from "effect"

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

/** One worker loop: a pass, a pause, forever; a failed pass is logged and the loop goes on. */
const loop = <E, R>(name: string, pass: Effect.Effect<unknown, E, R>, every: Duration.Duration, notes: Notes) =>
  pass.pipe(
    Effect.andThen(note(notes, name, true)),
    Effect.catchCause((cause) =>
      Effect.andThen(Effect.logError(`worker ${name}: pass failed`, cause), note(notes, name, false))
    ),
    Effect.repeat(Schedule.spaced(every)),
    Effect.withSpan(`worker.${name}`)
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
        yield* Effect.forkScoped(loop(pass.name, pass.run, WorkerPasses.interval(pass, every), notes))
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
