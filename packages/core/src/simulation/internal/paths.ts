/**
 * The path generator: lognormal steps of spot on the forward curve, in antithetic pairs.
 *
 * Between grid points k and k+1 spot moves as `S·F(k+1)/F(k)·exp(−σ²Δt/2 + σ√Δt·Z)` (risk-neutral: the drift is the
 * forward curve's, so `E[S(t)] = F(t)`); the pair's second path takes `−Z`. Everything per step lives in typed
 * arrays built once (`grid`), and a run writes into arrays allocated once per run: nothing is allocated per step.
 *
 * For each path it records the rate at the window's end, the lowest rate inside the window (the customer's best
 * moment: a lock pays more the lower the rate, whatever the conversion), the rate at the behaviour's moment, and
 * the value under a stopping rule that needs no foresight (see `StopRule`).
 */
import * as Random from "./random.ts"

export interface Grid {
  /** Spot now (QUOTE per BASE). */
  readonly spot: number
  /** Per step k (point k to k+1), `ln(F(k+1)/F(k)) − σ²Δt/2`. */
  readonly logDrift: Float64Array
  /** Per step, `σ√Δt`. */
  readonly volSqrtDt: Float64Array
  /** First grid point inside the window; the window ends at the last point. */
  readonly windowFrom: number
  /** The grid point of an `at` behaviour, or −1. */
  readonly atIndex: number
}

/**
 * A stopping rule that needs no foresight: exercise at the first point of the window where the spot is at or
 * below `boundary[k]` (the spot under which the put's intrinsic value beats its European value to the window's
 * end, 0 when none), else at the end. Any such rule is worth at most the optimal one the window engine prices.
 */
export interface StopRule {
  readonly strike: number
  readonly boundary: Float64Array
  /** Domestic (QUOTE) discount factor from now to each point. */
  readonly discount: Float64Array
}

export type Moment = "best" | "end" | "uniform" | "at"

export interface Paths {
  readonly end: Float64Array
  readonly best: Float64Array
  readonly chosen: Float64Array
  /** Discounted QUOTE value per 1 BASE under the stop rule (empty without one). */
  readonly stopped: Float64Array
}

/** Simulates `count` paths (rounded up to an even number: antithetic pairs). */
export const simulate = (
  grid: Grid,
  moment: Moment,
  count: number,
  random: Random.Random,
  stop: StopRule | null
): Paths => {
  const pairs = Math.ceil(count / 2)
  const n = grid.logDrift.length
  const { logDrift, volSqrtDt, windowFrom, atIndex, spot } = grid
  const end = new Float64Array(2 * pairs)
  const best = new Float64Array(2 * pairs)
  const chosen = new Float64Array(2 * pairs)
  const stopped = new Float64Array(stop === null ? 0 : 2 * pairs)
  const windowPoints = n - windowFrom + 1
  for (let p = 0; p < pairs; p++) {
    // the moment of a uniform customer: one draw for the pair, so both paths transact at the same instant
    const at = moment === "uniform" ? windowFrom + Random.below(random, windowPoints) : moment === "at" ? atIndex : n
    let a = spot
    let b = spot
    let bestA = windowFrom === 0 ? a : Number.POSITIVE_INFINITY
    let bestB = bestA
    let chosenA = at === 0 ? a : 0
    let chosenB = chosenA
    let stopA = -1
    let stopB = -1
    if (stop !== null && windowFrom === 0 && n > 0) {
      if (a <= stop.boundary[0]!) {
        stopA = stop.strike - a
        stopB = stopA
      }
    }
    for (let k = 0; k < n; k++) {
      const z = Random.normal(random)
      const v = volSqrtDt[k]!
      const d = logDrift[k]!
      a *= Math.exp(d + v * z)
      b *= Math.exp(d - v * z)
      const point = k + 1
      if (point >= windowFrom) {
        if (a < bestA) bestA = a
        if (b < bestB) bestB = b
        if (stop !== null) {
          const df = stop.discount[point]!
          const edge = point === n ? Number.POSITIVE_INFINITY : stop.boundary[point]!
          if (stopA < 0 && a <= edge) stopA = df * Math.max(0, stop.strike - a)
          if (stopB < 0 && b <= edge) stopB = df * Math.max(0, stop.strike - b)
        }
      }
      if (point === at) {
        chosenA = a
        chosenB = b
      }
    }
    // a window that ends now (no step): the stop rule exercises at once
    if (stop !== null && n === 0) {
      stopA = Math.max(0, stop.strike - a)
      stopB = stopA
    }
    const i = 2 * p
    end[i] = a
    end[i + 1] = b
    best[i] = bestA
    best[i + 1] = bestB
    chosen[i] = moment === "best" ? bestA : moment === "end" ? a : chosenA
    chosen[i + 1] = moment === "best" ? bestB : moment === "end" ? b : chosenB
    if (stop !== null) {
      stopped[i] = stopA
      stopped[i + 1] = stopB
    }
  }
  return { end, best, chosen, stopped }
}
