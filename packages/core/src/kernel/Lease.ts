/**
 * Claiming due work for the workers: a claim takes up to `limit` due jobs nobody holds (or whose
 * lease expired) and leases them to `owner` until `now + leaseFor`. Stores do this with
 * `FOR UPDATE SKIP LOCKED`, so concurrent workers never take the same job.
 */
import { Context, DateTime, Duration, Effect } from "effect"

export interface Claim {
  readonly now: DateTime.Utc
  readonly limit: number
  /** Who takes the jobs: a worker instance id. */
  readonly owner: string
  readonly leaseFor: Duration.Duration
}

/** Who this worker is when it claims work, and for how long; hosts set a unique owner per process. */
export interface WorkerShape {
  readonly owner: string
  readonly leaseFor: Duration.Duration
  /** Jobs taken per claim. */
  readonly batch: number
  /**
   * Jobs of a pass worked at once (each is a few round trips to the store and the chain): a pass
   * over many jobs then takes a few round trips of time, not a few per job.
   */
  readonly concurrency: number
}

/** Jobs a pass works at once unless a host says otherwise. */
export const defaultConcurrency = 16

export const Worker = Context.Reference<WorkerShape>("@ratelock/core/Worker", {
  defaultValue: () => ({ owner: "worker", leaseFor: Duration.minutes(1), batch: 100, concurrency: defaultConcurrency })
})

/** A claim for this worker at the current time. */
export const claim: Effect.Effect<Claim> = Effect.gen(function* () {
  const worker = yield* Worker
  return { now: yield* DateTime.now, limit: worker.batch, owner: worker.owner, leaseFor: worker.leaseFor }
})
