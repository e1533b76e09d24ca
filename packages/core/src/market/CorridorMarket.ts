/**
 * One direction's market from a snapshot: what the window-option pricer reads (market-data.md, "A window
 * option [t1, t2] struck at K"). The direction's two curves (domestic = its QUOTE currency's, foreign = its
 * BASE currency's), its vol surface (mirrored for an inverted direction), and the snapshot's spot in the
 * direction's terms (`1 / spot` when inverted) for the reference check.
 *
 * Pure. Built once per (snapshot, direction) and kept while the snapshot object lives.
 */
import { Option } from "effect"
import { type Direction, marketPair } from "../kernel/Corridor.ts"
import * as DiscountCurve from "./DiscountCurve.ts"
import * as MarketSnapshot from "./MarketSnapshot.ts"
import * as Money from "../kernel/Money.ts"
import * as RateCurve from "./RateCurve.ts"
import type { Instant } from "./RateCurve.ts"
import * as VolSurface from "./VolSurface.ts"

export interface CorridorMarket {
  readonly direction: Direction
  /** The snapshot's `as_of`, epoch milliseconds. */
  readonly asOf: number
  /** The snapshot's mid in the direction's terms: QUOTE per 1 BASE (`1 / spot` for an inverted direction). */
  readonly referenceRate: Money.Decimal
  /** The QUOTE currency's curve. */
  readonly domestic: DiscountCurve.DiscountCurve
  /** The BASE currency's curve. */
  readonly foreign: DiscountCurve.DiscountCurve
  /** The direction's surface (strikes and forwards in the direction's terms). */
  readonly vols: VolSurface.VolSurface
}

/** What the pricing functions read of a market: any two curves and a surface, anchored at `asOf`. */
export type Curves = Pick<CorridorMarket, "asOf" | "domestic" | "foreign" | "vols">

const millisPerYear = 365 * 86_400_000

const millis = (instant: Instant): number => (typeof instant === "number" ? instant : instant.epochMilliseconds)

const build = (snapshot: MarketSnapshot.MarketSnapshot, direction: Direction): Option.Option<CorridorMarket> => {
  const p = marketPair(direction)
  const pairKey = `${p.base}/${p.quote}`
  return Option.map(
    Option.all({
      spot: MarketSnapshot.spot(snapshot, pairKey),
      curves: DiscountCurve.forDirection(snapshot, direction),
      vols: VolSurface.forDirection(snapshot, direction)
    }),
    ({ spot, curves, vols }) => ({
      direction,
      asOf: snapshot.as_of.epochMilliseconds,
      referenceRate: p.inverted ? Money.divide(Money.one, spot) : spot,
      domestic: curves.domestic,
      foreign: curves.foreign,
      vols
    })
  )
}

const cache = new WeakMap<MarketSnapshot.MarketSnapshot, Map<Direction, Option.Option<CorridorMarket>>>()

/** The direction's market, or none when the snapshot lacks its spot, a curve or its vols (a validated one never does). */
export const make = (snapshot: MarketSnapshot.MarketSnapshot, direction: Direction): Option.Option<CorridorMarket> => {
  let byDirection = cache.get(snapshot)
  if (byDirection === undefined) {
    byDirection = new Map()
    cache.set(snapshot, byDirection)
  }
  let market = byDirection.get(direction)
  if (market === undefined) {
    market = build(snapshot, direction)
    byDirection.set(direction, market)
  }
  return market
}

/** CIP forward over `[from, to]` from `spot` (the direction's QUOTE per BASE): `S · DF_foreign / DF_domestic`. */
export const forward = (market: Curves, spot: number, from: Instant, to: Instant): number =>
  DiscountCurve.forward({ spot, domestic: market.domestic, foreign: market.foreign, from, to })

/** The smile vol for an option expiring at `expiry` struck at `strike`, around the forward to expiry `forward`. */
export const volatility = (market: Curves, expiry: Instant, strike: number, forward: number): number =>
  VolSurface.volAt(market.vols, (millis(expiry) - market.asOf) / millisPerYear, strike, forward)

/** What prices a window option `[windowStart, windowEnd]` at `now`, and what a quote records of it. */
export interface WindowInputs {
  readonly spot: number
  readonly strike: number
  /** `F(t1)`, the forward to the window's start (`spot` when the window is open). */
  readonly forwardStart: number
  /** `F(t2)`, the forward to expiry: the smile's ATM. */
  readonly forwardEnd: number
  /** Continuous ACT/365F rates over `[now, t2]`. */
  readonly domesticRate: number
  readonly foreignRate: number
  /** The smile vol at `(t2, K)`. */
  readonly volatility: number
  /** ACT/365F years from `now`, at least 0. */
  readonly windowStartYears: number
  readonly windowEndYears: number
}

/**
 * The engine's inputs for a window option struck at `strike`: forwards at both ends from `spot` (the partner's
 * `market_rate`) on the curves, constant continuous rates over `[now, t2]` (as the engine takes them), and the
 * smile vol at `(t2, K)` around `F(t2)`. Spread into `Pricing.windowOption` with a `kind`.
 */
export const windowInputs = (
  market: Curves,
  input: {
    readonly spot: number
    readonly strike: number
    readonly now: Instant
    readonly windowStart: Instant
    readonly windowEnd: Instant
  }
): WindowInputs => {
  const times = windowTimes(market, input)
  return windowInputsAt(times, expiryVols(market, times), input.spot, input.strike)
}

/**
 * What of `windowInputs` depends neither on the spot nor on the strike nor on the vols: the window from now on,
 * each curve's discount factor to its start and to its end, and the engine's rates. A book revalues each lock
 * under several spots and vol shifts at one instant (`windowInputsAt`); the same numbers, computed once.
 */
export interface WindowTimes {
  /** Epoch milliseconds: now, `max(t1, now)` and `max(t2, now)`. */
  readonly now: number
  readonly start: number
  readonly end: number
  /** `DF` over `[now, start]` and `[now, end]`, foreign (BASE) and domestic (QUOTE). */
  readonly foreignToStart: number
  readonly domesticToStart: number
  readonly foreignToEnd: number
  readonly domesticToEnd: number
  readonly domesticRate: number
  readonly foreignRate: number
}

export const windowTimes = (
  market: Curves,
  input: { readonly now: Instant; readonly windowStart: Instant; readonly windowEnd: Instant }
): WindowTimes => {
  const now = millis(input.now)
  const start = Math.max(millis(input.windowStart), now)
  const end = Math.max(millis(input.windowEnd), now)
  const domesticToEnd = DiscountCurve.discountFactorBetween(market.domestic, now, end)
  const foreignToEnd = DiscountCurve.discountFactorBetween(market.foreign, now, end)
  const years = RateCurve.yearFraction365(now, end)
  return {
    now,
    start,
    end,
    foreignToStart: DiscountCurve.discountFactorBetween(market.foreign, now, start),
    domesticToStart: DiscountCurve.discountFactorBetween(market.domestic, now, start),
    foreignToEnd,
    domesticToEnd,
    domesticRate: RateCurve.continuousRate(domesticToEnd, years),
    foreignRate: RateCurve.continuousRate(foreignToEnd, years)
  }
}

/** The market's surface read at the window's end (`VolSurface.atExpiry`), for `windowInputsAt`. */
export const expiryVols = (market: Curves, times: WindowTimes): VolSurface.AtExpiry =>
  VolSurface.atExpiry(market.vols, (times.end - market.asOf) / millisPerYear)

/** `windowInputs` from its parts: the same inputs, to the bit, at any spot and strike. */
export const windowInputsAt = (
  times: WindowTimes,
  vols: VolSurface.AtExpiry,
  spot: number,
  strike: number
): WindowInputs => {
  // CIP as `DiscountCurve.forward` computes it: S · DF_foreign / DF_domestic
  const forwardEnd = (spot * times.foreignToEnd) / times.domesticToEnd
  return {
    spot,
    strike,
    forwardStart: (spot * times.foreignToStart) / times.domesticToStart,
    forwardEnd,
    domesticRate: times.domesticRate,
    foreignRate: times.foreignRate,
    volatility: VolSurface.expiryVol(vols, strike, forwardEnd),
    windowStartYears: (times.start - times.now) / millisPerYear,
    windowEndYears: (times.end - times.now) / millisPerYear
  }
}
