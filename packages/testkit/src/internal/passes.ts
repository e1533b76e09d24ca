/**
 * The lifecycle workers (core's `WorkerPasses.passes`, which `@ratelock/http`'s `Workers.ts` runs
 * as loops on a timer) as rounds run on demand, each pass once in the list's order, repeated at
 * the current instant until a round finds nothing to do.
 */
import { Lease, WorkerPasses } from "@ratelock/core"
import { Duration, Effect } from "effect"

/**
 * Who takes the jobs: leases are released by every pass, so the duration only matters after a
 * crash. One job at a time, so ids and events come in the same order on every run.
 */
const worker: Lease.WorkerShape = {
  owner: "ratelock-testkit",
  leaseFor: Duration.minutes(1),
  batch: 100,
  concurrency: 1
}

/** A round never needs more: a payout takes two rounds, each transition one more for its webhook. */
const maxRounds = 25

/** One round of every pass, in the list's order; how many jobs the passes took or moved. */
const round = Effect.gen(function* () {
  let worked = 0
  for (const pass of WorkerPasses.passes) worked += yield* pass.run
  return worked
}).pipe(Effect.provideService(Lease.Worker, worker))

/** Rounds at the current instant until one does nothing (or the bound, e.g. a payout still pending). */
export const runUntilQuiet: Effect.Effect<void, WorkerPasses.Error, WorkerPasses.Requirements> = Effect.gen(
  function* () {
    for (let i = 0; i < maxRounds; i++) {
      if ((yield* round) === 0) return
    }
  }
).pipe(Effect.withSpan("Simulation.runWorkers"))
