/**
 * The lifecycle workers of `@ratelock/http`'s `Workers.ts`, as passes run on demand instead of
 * loops on a timer: funding confirmation, funding deadlines, payouts, expiry, webhook delivery
 * and the late-funds watch, in that order, repeated at the current instant until a round finds nothing to do.
 */
import { Deliveries, Expiry, Funding, Lease, Payouts } from "@ratelock/core"
import { Duration, Effect } from "effect"
import type { Workers } from "@ratelock/http"

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

/** One round of every pass; how many jobs the passes took or moved. */
const round = Effect.gen(function* () {
  const activated = yield* Funding.confirmFunding()
  const deadlines = yield* Funding.failUnfunded()
  const payouts = yield* Payouts.runDue()
  const expired = yield* Expiry.expireDue()
  const delivered = yield* Deliveries.deliverDue()
  // records what reaches the addresses of contracts no longer awaiting funds; moves no contract
  yield* Funding.watchLateFunds()
  return activated + deadlines + payouts + expired + delivered
}).pipe(Effect.provideService(Lease.Worker, worker))

/** Rounds at the current instant until one does nothing (or the bound, e.g. a payout still pending). */
export const runUntilQuiet: Effect.Effect<void, unknown, Workers.Requirements> = Effect.gen(function* () {
  for (let i = 0; i < maxRounds; i++) {
    if ((yield* round) === 0) return
  }
}).pipe(Effect.withSpan("Simulation.runWorkers"))
