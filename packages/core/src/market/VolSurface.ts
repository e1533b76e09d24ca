/**
 * Volatility surfaces from a snapshot's smile pillars (market-data.md, Conventions). Float64 model math, pure.
 *
 * Time `t` is ACT/365F years from the snapshot's `as_of` to the expiry (pillars sit at `tenor_days / 365`):
 * every interpolation runs in calendar time. Strikes and forwards are in the surface's own orientation: a
 * surface made for an inverted direction (`BRL_TO_USD` on USD/BRL) takes the direction's strikes and forwards
 * and reads the pair's smile at `1/K`, `1/F`, so the smile is mirrored (a put on one side is a call on the other).
 */
import { Option } from "effect"
import { type Direction, marketPair } from "../kernel/Corridor.ts"
import { cdf, inverseCdf } from "../kernel/Normal.ts"
import * as MarketSnapshot from "./MarketSnapshot.ts"
import * as Money from "../kernel/Money.ts"

export interface VolSurface {
  /** The market pair whose quotes these are (`USD/BRL`). */
  readonly pair: string
  /** `true` when strikes and forwards are the inverse direction's (1 / the pair's). */
  readonly inverted: boolean
  /** Pillars in years from `as_of` (`tenor_days / 365`), strictly increasing. */
  readonly years: Float64Array
  readonly atm: Float64Array
  readonly rr25: Float64Array
  readonly bf25: Float64Array
  /** ATM total variance `atm²·t` at each pillar. */
  readonly variance: Float64Array
}

export interface PillarInput {
  readonly tenorDays: number
  readonly atm: number
  readonly rr25?: number
  readonly bf25?: number
}

export const make = (input: {
  readonly pair: string
  readonly inverted?: boolean
  /** By strictly increasing tenor (a validated snapshot's are). */
  readonly pillars: ReadonlyArray<PillarInput>
}): VolSurface => {
  const { pillars } = input
  if (pillars.length === 0) throw new Error(`surface ${input.pair} has no pillar`)
  pillars.forEach((p, i) => {
    if (i > 0 && !(p.tenorDays > pillars[i - 1]!.tenorDays)) {
      throw new Error(`surface ${input.pair}: tenors not strictly increasing`)
    }
  })
  const years = Float64Array.from(pillars, (p) => p.tenorDays / 365)
  const atm = Float64Array.from(pillars, (p) => p.atm)
  return {
    pair: input.pair,
    inverted: input.inverted ?? false,
    years,
    atm,
    rr25: Float64Array.from(pillars, (p) => p.rr25 ?? 0),
    bf25: Float64Array.from(pillars, (p) => p.bf25 ?? 0),
    variance: atm.map((v, i) => v * v * years[i]!)
  }
}

/** A validated snapshot's surface for a market pair (`USD/BRL`), in the pair's orientation. */
export const fromSnapshot = (snapshot: MarketSnapshot.MarketSnapshot, pair: string): Option.Option<VolSurface> =>
  Option.map(MarketSnapshot.vols(snapshot, pair), (pillars) =>
    make({
      pair,
      pillars: pillars.map((p) => ({
        tenorDays: p.tenor_days,
        atm: Money.toModel(p.atm),
        rr25: Money.toModel(p.rr25),
        bf25: Money.toModel(p.bf25)
      }))
    })
  )

/** A direction's surface: its market pair's, inverted when the direction is the pair's inverse. */
export const forDirection = (
  snapshot: MarketSnapshot.MarketSnapshot,
  direction: Direction
): Option.Option<VolSurface> => {
  const p = marketPair(direction)
  return Option.map(fromSnapshot(snapshot, `${p.base}/${p.quote}`), (surface) => ({ ...surface, inverted: p.inverted }))
}

/** The first pillar index `i` with `years[i] > t`. */
const upperPillar = (years: Float64Array, t: number): number => {
  let lo = 0
  let hi = years.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (years[mid]! <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * ATM vol at `t`: linear in total variance `σ²·t` between pillars, so `σ(t) = √(w(t) / t)`; outside the pillars,
 * the nearest pillar's vol held flat.
 */
export const atmVol = (surface: VolSurface, t: number): number => {
  const { years, atm, variance } = surface
  const n = years.length
  if (t <= years[0]!) return atm[0]!
  if (t >= years[n - 1]!) return atm[n - 1]!
  const i = upperPillar(years, t)
  const t0 = years[i - 1]!
  const w = variance[i - 1]! + ((t - t0) / (years[i]! - t0)) * (variance[i]! - variance[i - 1]!)
  return Math.sqrt(w / t)
}

/** A quote linear in `t` between pillars, flat outside them (how `rr25` and `bf25` run in tenor). */
const linearInTime = (years: Float64Array, values: Float64Array, t: number): number => {
  const n = years.length
  if (t <= years[0]!) return values[0]!
  if (t >= years[n - 1]!) return values[n - 1]!
  const i = upperPillar(years, t)
  const t0 = years[i - 1]!
  return values[i - 1]! + ((t - t0) / (years[i]! - t0)) * (values[i]! - values[i - 1]!)
}

/** 25-delta risk reversal at `t` (the pair's: call vol less put vol), linear in `t`, flat outside the pillars. */
export const riskReversal = (surface: VolSurface, t: number): number => linearInTime(surface.years, surface.rr25, t)

/** 25-delta butterfly at `t`, linear in `t`, flat outside the pillars. */
export const butterfly = (surface: VolSurface, t: number): number => linearInTime(surface.years, surface.bf25, t)

export type OptionKind = "call" | "put"

/**
 * Garman–Kohlhagen forward delta, premium not included: `N(d1)` for a call, `−N(−d1)` for a put, with
 * `d1 = (ln(F/K) + σ²t/2) / (σ√t)`.
 */
export const forwardDelta = (input: {
  readonly forward: number
  readonly strike: number
  readonly volatility: number
  readonly years: number
  readonly kind: OptionKind
}): number => {
  const stdDev = input.volatility * Math.sqrt(input.years)
  const d1 = (Math.log(input.forward / input.strike) + 0.5 * stdDev * stdDev) / stdDev
  return input.kind === "call" ? cdf(d1) : -cdf(-d1)
}

/** `ln(K/F)` of the strike with forward delta `N(d1)` = `d1`'s: `−d1·σ√t + σ²t/2`. */
const logMoneyness = (d1: number, stdDev: number): number => -d1 * stdDev + 0.5 * stdDev * stdDev

/**
 * The strike whose forward delta (premium not included) is `delta`, inverting `forwardDelta` in closed form:
 * `K = F·exp(−d1·σ√t + σ²t/2)` with `d1 = N⁻¹(Δ)` for a call (Δ in (0, 1)), `d1 = −N⁻¹(−Δ)` for a put (Δ in (−1, 0)).
 */
export const strikeFromDelta = (input: {
  readonly forward: number
  readonly delta: number
  readonly volatility: number
  readonly years: number
  readonly kind: OptionKind
}): number => {
  const d1 = input.kind === "call" ? inverseCdf(input.delta) : -inverseCdf(-input.delta)
  return input.forward * Math.exp(logMoneyness(d1, input.volatility * Math.sqrt(input.years)))
}

/** `d1` of a 25-delta call (`N(d1) = 0.25`); a 25-delta put has `−d1`. */
const d1Call25 = inverseCdf(0.25)

/**
 * The three-point smile at one tenor, in the pair's orientation, as a function of `x = ln(K/F)`: points sorted
 * by `x` (25Δ put, ATM, 25Δ call for any market smile) with the quadratic through them in Newton form
 * `σ(x) = v0 + s·(x − x0) + a·(x − x0)(x − x1)`.
 */
export interface Smile extends SmileShape {
  /** The pair's forward (ATMF strike). */
  readonly forward: number
}

/** The smile at one tenor in `x = ln(K/F)` alone: the same for every forward (see `Smile`). */
export interface SmileShape {
  readonly years: number
  readonly x: readonly [number, number, number]
  readonly vols: readonly [number, number, number]
  readonly slope: number
  readonly curvature: number
}

/**
 * The least vol a smile gives: the lowest a snapshot may quote (its vols lie in (0.001, 2.0]). A quadratic
 * through three valid points can still dip below it, even below zero, between extreme wings, and so can wings
 * interpolated between valid pillars.
 */
export const minimumVol = Money.toModel(MarketSnapshot.minVol)

/**
 * The surface with every pillar's ATM vol moved by `shift` (absolute: `0.01` is one vol point), risk reversals
 * and butterflies unchanged, so the whole smile moves with it: how the book's vega and vol scenarios bump the
 * market (risk.md). A vol pushed to `minimumVol` or below stays at `minimumVol`.
 */
export const shifted = (surface: VolSurface, shift: number): VolSurface => {
  if (shift === 0) return surface
  const atm = surface.atm.map((v) => Math.max(v + shift, minimumVol))
  return { ...surface, atm, variance: atm.map((v, i) => v * v * surface.years[i]!) }
}

/** One of the three quoted points of a smile (market-data.md, Smile at a tenor). */
export interface SmilePoint {
  readonly point: "25d_put" | "atm" | "25d_call"
  /** `ln(K/F)` of its strike: 0 at ATM (the forward). */
  readonly logMoneyness: number
  readonly vol: number
}

/**
 * The three quoted points at `t`, in the pair's orientation: `σ(25Δ put) = atm + bf − rr/2`, `σ(ATM) = atm`,
 * `σ(25Δ call) = atm + bf + rr/2`, each wing's strike from its forward delta with its own vol.
 */
export const smilePoints = (surface: VolSurface, t: number): readonly [SmilePoint, SmilePoint, SmilePoint] => {
  const atm = atmVol(surface, t)
  const rr = riskReversal(surface, t)
  const bf = butterfly(surface, t)
  // Between pillars the wings can fall below what any pillar may quote, though every pillar's are valid (ATM
  // runs in total variance, the butterfly linearly): they are floored as the quadratic is. ATM never needs it:
  // σ(t) lies between its neighbouring pillars' vols.
  const putVol = Math.max(atm + bf - 0.5 * rr, minimumVol)
  const callVol = Math.max(atm + bf + 0.5 * rr, minimumVol)
  const sqrtT = Math.sqrt(Math.max(t, 0))
  return [
    { point: "25d_put", logMoneyness: logMoneyness(-d1Call25, putVol * sqrtT), vol: putVol },
    { point: "atm", logMoneyness: 0, vol: atm },
    { point: "25d_call", logMoneyness: logMoneyness(d1Call25, callVol * sqrtT), vol: callVol }
  ]
}

/**
 * The smile at `t` around the pair's forward: `σ(25Δ put) = atm + bf − rr/2`, `σ(ATM) = atm`,
 * `σ(25Δ call) = atm + bf + rr/2`; deltas are forward deltas, premium not included; ATM is the forward (ATMF);
 * each wing's strike is `strikeFromDelta` with its own vol. Wings never go below `minimumVol`.
 */
export const smile = (surface: VolSurface, t: number, pairForward: number): Smile => ({
  ...smileShape(surface, t),
  forward: pairForward
})

/** `smile` without its forward: the points and the quadratic in `ln(K/F)`, which the forward does not move. */
const smileShape = (surface: VolSurface, t: number): SmileShape => {
  const points: Array<readonly [number, number]> = smilePoints(surface, t).map((p) => [p.logMoneyness, p.vol] as const)
  // sorted by strike (for market smiles, σ√t under ~1.3, already put < ATM < call); strikes closer than
  // 1e-10 in ln(K/F) are one point, ATM's vol kept: no quadratic through (nearly) coincident strikes
  points.sort((p, q) => p[0] - q[0])
  const distinct: Array<readonly [number, number]> = []
  for (const point of points) {
    const last = distinct[distinct.length - 1]
    if (last === undefined || point[0] - last[0] > 1e-10) distinct.push(point)
    else if (point[0] === 0) distinct[distinct.length - 1] = point
  }
  // one point: flat; two: linear (the second repeated); three: the quadratic
  const [p0, p1 = p0, p2 = p1] = distinct as [readonly [number, number], ...Array<readonly [number, number]>]
  const [x0, v0] = p0
  const [x1, v1] = p1
  const [x2, v2] = p2
  const s01 = x1 > x0 ? (v1 - v0) / (x1 - x0) : 0
  const s12 = x2 > x1 ? (v2 - v1) / (x2 - x1) : 0
  return {
    years: t,
    x: [x0, x1, x2],
    vols: [v0, v1, v2],
    slope: s01,
    curvature: x2 > x1 && x1 > x0 ? (s12 - s01) / (x2 - x0) : 0
  }
}

/**
 * The smile's vol at a strike (pair orientation): the quadratic in `ln(K/F)` between the outer strikes, flat at
 * the nearer outer vol beyond them; never below `minimumVol` (a floor market smiles never reach: it keeps every
 * vol positive for every valid snapshot).
 */
export const smileVol = (s: Smile, strike: number): number => shapeVol(s, Math.log(strike / s.forward))

/** The smile's vol at `x = ln(K/F)` (`smileVol`). */
const shapeVol = (s: SmileShape, x: number): number => {
  // indexed, not destructured: an array pattern runs the iterator, and this runs for every price
  const x0 = s.x[0]
  const x1 = s.x[1]
  const x2 = s.x[2]
  if (!(x > x0)) return s.vols[0]
  if (!(x < x2)) return s.vols[2]
  const v = s.vols[0] + s.slope * (x - x0) + s.curvature * (x - x0) * (x - x1)
  return Math.max(v, minimumVol)
}

/**
 * The vol at `(t, K)`: the smile at `t` around forward `F` read at strike `K`. `K` and `F` are in the surface's
 * orientation: an inverted surface reads the pair's smile at `1/K` around `1/F`. A flat smile (no risk reversal,
 * no butterfly at `t`) is the ATM vol at every strike, and so is every smile at `t ≤ 0`.
 */
export const volAt = (surface: VolSurface, t: number, strike: number, forward: number): number =>
  expiryVol(atExpiry(surface, t), strike, forward)

/**
 * The surface read at one expiry `t`, for `expiryVol` at any strike and forward: what `volAt` does, the part that
 * depends on `t` alone done once (a book revalues each lock at several forwards, one per market move).
 */
export interface AtExpiry {
  readonly inverted: boolean
  /** The ATM vol at `t`, every strike's vol when the smile is flat (`smile` null). */
  readonly atm: number
  readonly smile: SmileShape | null
}

export const atExpiry = (surface: VolSurface, t: number): AtExpiry =>
  !(t > 0) || (riskReversal(surface, t) === 0 && butterfly(surface, t) === 0)
    ? { inverted: surface.inverted, atm: atmVol(surface, t), smile: null }
    : { inverted: surface.inverted, atm: Number.NaN, smile: smileShape(surface, t) }

/** `volAt` from the surface read at the expiry (`atExpiry`): the same vol, to the bit. */
export const expiryVol = (at: AtExpiry, strike: number, forward: number): number => {
  if (at.smile === null) return at.atm
  return at.inverted
    ? shapeVol(at.smile, Math.log(1 / strike / (1 / forward)))
    : shapeVol(at.smile, Math.log(strike / forward))
}
