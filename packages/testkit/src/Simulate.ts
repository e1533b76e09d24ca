/**
 * Simulating locks for integrators (issue 30): core's `LockSimulation` (re-exported from the testkit's index) behind
 * two Effect programs that take what a partner's code already has. `lock` simulates a quote request in its wire
 * form (`Requests.quote()`'s JSON) on the snapshot the in-memory Ratelock prices from (core's illustrative one
 * observed at the clock's now, unless given), so a test's figures and the in-memory service's premium agree;
 * `backtest` takes a `date,rate` CSV's text. Both fail with the engine's tagged errors.
 */
import { LockSimulation, MarketSnapshot, QuoteRequest, type Requests } from "@ratelock/core"
import { DateTime, Effect, Result, Schema } from "effect"

export interface LockOptions {
  /** The lock: a quote request as a partner sends it (e.g. `Requests.quote()`). */
  readonly request: Requests.QuoteRequestBody
  /** Default 10,000 (antithetic pairs). */
  readonly paths?: number
  /** Default 1: the same seed, the same figures. */
  readonly seed?: number
  /** When the customer transacts (default `end`). */
  readonly exercise?: LockSimulation.Exercise
  /** Default: core's illustrative snapshot observed at the clock's now, what the in-memory Ratelock prices from. */
  readonly snapshot?: MarketSnapshot.MarketSnapshot
}

const decodeRequest = Schema.decodeUnknownEffect(QuoteRequest.QuoteRequest)

const fromResult = <A, E>(result: Result.Result<A, E>): Effect.Effect<A, E> =>
  Result.isSuccess(result) ? Effect.succeed(result.success) : Effect.fail(result.failure)

/** Monte Carlo of one lock, at the clock's now (a `TestClock`'s in a test). */
export const lock = Effect.fn("Simulate.lock")(function* (options: LockOptions) {
  const now = yield* DateTime.now
  const request = yield* decodeRequest(options.request)
  const run = yield* fromResult(
    LockSimulation.monteCarlo({
      request,
      snapshot: options.snapshot ?? MarketSnapshot.illustrativeAt(now),
      now,
      paths: options.paths ?? 10_000,
      seed: options.seed ?? 1,
      exercise: options.exercise ?? { _tag: "end" }
    })
  )
  return run.result
})

export interface BacktestOptions extends Omit<LockSimulation.BacktestInput, "series"> {
  /** The spot history: a `date,rate` CSV's text, daily. */
  readonly csv: string
}

/** What locks bought along a history would have paid. */
export const backtest = Effect.fn("Simulate.backtest")(function* (options: BacktestOptions) {
  const { csv, ...input } = options
  const series = yield* fromResult(LockSimulation.parseSeries(csv))
  return yield* fromResult(LockSimulation.backtest({ ...input, series }))
})
