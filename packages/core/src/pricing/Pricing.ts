/**
 * Option engines for rate locks, in float64 (the only float code in the library; callers convert the outputs
 * once to exact decimals).
 *
 * Direction BASE_TO_QUOTE, spot S = QUOTE per 1 BASE; values are QUOTE per 1 BASE of notional. The domestic
 * rate is the QUOTE currency's, the foreign rate the BASE currency's. Times are ACT/365F year fractions, rates
 * continuously compounded (see `RateCurve.continuousRate`). The customer holds a put on BASE struck at K.
 *
 * Inputs are not validated here (hot path); degenerate ones are handled without NaN: `years ≤ 0` gives the
 * intrinsic value and `volatility = 0` the deterministic forward-path value (the best instant on the forward).
 * Volatilities too low for CRR probabilities in [0, 1] (under ~1%) run on a forward-drifting lattice instead.
 */
import { deterministicWindow, garmanKohlhagen as gk, intrinsic } from "./internal/european.ts"
import { bbsr, type LatticeInput, lattice } from "./internal/lattice.ts"

export type OptionKind = "call" | "put"

export interface GarmanKohlhagenInput {
  readonly spot: number
  readonly strike: number
  /** Continuous rate of the QUOTE currency. */
  readonly domesticRate: number
  /** Continuous rate of the BASE currency. */
  readonly foreignRate: number
  readonly volatility: number
  /** ACT/365F years to expiry. */
  readonly years: number
  readonly kind: OptionKind
}

/**
 * `crr`: plain Cox–Ross–Rubinstein. `bbsr`: CRR with the Garman–Kohlhagen value replacing the continuation at the
 * last step before expiry, Richardson-extrapolated as `2·V(N) − V(N/2)` (Broadie–Detemple 1996).
 */
export type BinomialMethod = "crr" | "bbsr"

export interface AmericanBinomialInput extends GarmanKohlhagenInput {
  readonly steps: number
  readonly method: BinomialMethod
}

export interface WindowOptionInput {
  readonly spot: number
  readonly strike: number
  readonly domesticRate: number
  readonly foreignRate: number
  readonly volatility: number
  /** t1: exercise is possible from here on; 0 makes the option American. */
  readonly windowStartYears: number
  /** t2: expiry. */
  readonly windowEndYears: number
  readonly kind: OptionKind
}

const omegaOf = (kind: OptionKind): number => (kind === "call" ? 1 : -1)

/** European value (Garman–Kohlhagen 1983). */
export const garmanKohlhagen = (input: GarmanKohlhagenInput): number => {
  const omega = omegaOf(input.kind)
  if (!(input.years > 0)) return intrinsic(omega, input.spot, input.strike)
  return gk(omega, input.spot, input.strike, input.domesticRate, input.foreignRate, input.volatility, input.years)
}

/** American value on a binomial tree of `steps` steps (at least 1). */
export const americanBinomial = (input: AmericanBinomialInput): number =>
  windowValue(input, 0, input.years, input.kind, input.method, input.steps)

/** Steps of the production window engine: about 2 per day of the whole life (365-day years), at least 100, even. */
export const windowSteps = (windowEndYears: number): number => Math.max(100, 2 * Math.ceil(365 * windowEndYears))

/**
 * Value of an option exercisable at any moment in [t1, t2]: an American option whose early exercise is switched
 * off before t1. BBSR on `windowSteps(t2)` steps. t1 is exactly on the time grid: the uniform step containing it
 * is split in two at t1 (see `internal/lattice.ts`). For t1 > 0 the value at t1 less its European part is rolled
 * back on the lattice and the European part added exactly (a control variate for short windows).
 * `t1 ≤ 0` is exactly `americanBinomial` (BBSR, same steps); `t1 ≥ t2` is the European `garmanKohlhagen` at t2.
 */
export const windowOption = (input: WindowOptionInput): number =>
  windowOptionOn(input, windowSteps(input.windowEndYears))

/**
 * The lattice steps `windowOption` takes for a window `[t1, t2]`: `windowSteps(t2)`, or 0 when no lattice runs
 * (`t1 ≥ t2`: the European closed form; `t2 ≤ 0`: the intrinsic value). What a quote records as its steps.
 */
export const windowOptionSteps = (windowStartYears: number, windowEndYears: number): number =>
  windowEndYears > 0 && Math.max(0, windowStartYears) < windowEndYears ? windowSteps(windowEndYears) : 0

/** `windowOption` on a given number of lattice steps (a stored quote's), for repricing it exactly. */
export const windowOptionOn = (input: WindowOptionInput, steps: number): number => {
  const t2 = input.windowEndYears
  const t1 = Math.max(0, input.windowStartYears)
  if (t1 >= t2 && t2 > 0) return garmanKohlhagen({ ...input, years: t2 })
  return windowValue(input, t1, t2, input.kind, "bbsr", steps)
}

/**
 * Steps of the book's engine: 0.9 per day of the whole life, at least 50, even; 45 % of the quote engine's
 * (`windowSteps`), so about a fifth of its lattice nodes, for a book of 100,000 locks revalued ten times each.
 * Within 1 bp of notional of a 10,000-step CRR for every direction served (at most 0.74 bp on `pnpm bench`'s grid,
 * the book's own prices and puts deep in the money at the highest carry served, `pnpm bench:risk --accuracy`),
 * where the quote engine stays within 0.3 bp on the grid; fewer steps a day start to stray further (0.83 bp at
 * 0.8 a day).
 */
export const bookStepsPerDay = 0.9

export const bookSteps = (windowEndYears: number): number =>
  Math.max(50, 2 * Math.ceil((bookStepsPerDay / 2) * 365 * windowEndYears))

/**
 * The window option as the book revalues it (`Risk`): `windowOption`'s BBSR lattice on `bookSteps(t2)` steps.
 * Never a quote's price: quotes are priced and repriced with `windowOption` only.
 */
export const bookWindowOption = (input: WindowOptionInput): number =>
  windowOptionOn(input, bookSteps(input.windowEndYears))

export interface WindowLatticeInput extends WindowOptionInput {
  readonly steps: number
  readonly method: BinomialMethod
}

/**
 * The window option on a lattice of your choosing, for reference prices and benchmarks: `windowOption` is this
 * with `bbsr` and `windowSteps(t2)`. With `crr` it is the plain tree (`t1 ≥ t2` then gives the tree's European).
 */
export const windowLattice = (input: WindowLatticeInput): number =>
  windowValue(input, Math.max(0, input.windowStartYears), input.windowEndYears, input.kind, input.method, input.steps)

interface Market {
  readonly spot: number
  readonly strike: number
  readonly domesticRate: number
  readonly foreignRate: number
  readonly volatility: number
}

const windowValue = (
  market: Market,
  windowStart: number,
  windowEnd: number,
  kind: OptionKind,
  method: BinomialMethod,
  steps: number
): number => {
  const omega = omegaOf(kind)
  const { spot, strike, domesticRate, foreignRate, volatility } = market
  if (!(windowEnd > 0)) return intrinsic(omega, spot, strike)
  // Below this the lattice cannot resolve anything the forward path does not already give.
  if (!(volatility * Math.sqrt(windowEnd) > 1e-12)) {
    return deterministicWindow(omega, spot, strike, domesticRate, foreignRate, windowStart, windowEnd)
  }
  const input: LatticeInput = {
    spot,
    strike,
    domesticRate,
    foreignRate,
    volatility,
    exerciseFrom: windowStart,
    years: windowEnd,
    omega
  }
  return method === "bbsr" ? bbsr(input, steps, windowStart > 0) : lattice(input, steps, false)
}
