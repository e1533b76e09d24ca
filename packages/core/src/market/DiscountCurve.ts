/**
 * Discount curves from a snapshot's zero-rate pillars (market-data.md, Conventions). Float64 model math, pure.
 *
 * A curve is anchored at the snapshot's `as_of`: `discountFactor(curve, t)` discounts from `as_of` to `t`, and
 * over any span `[from, to]` a curve discounts `DF(to) / DF(from)` (a snapshot a few minutes old prices from
 * `now` on its own forward rates). Time runs in calendar days from `as_of`; pillars sit at `tenor_days`.
 *
 * - At a pillar, the discount factor of its rate in the curve's convention (`conventionDiscount`).
 * - Between pillars, log-linear in the discount factor over calendar time (piecewise-flat forward rates).
 * - Before the first pillar and after the last, the nearest pillar's zero rate held flat in the curve's own
 *   convention (a one-pillar curve is its rate's convention at every date, as `RateCurve` discounts today).
 */
import { Option } from "effect"
import type { Direction } from "../kernel/Corridor.ts"
import { pair } from "../kernel/Corridor.ts"
import * as MarketSnapshot from "./MarketSnapshot.ts"
import * as Money from "../kernel/Money.ts"
import * as RateCurve from "./RateCurve.ts"
import type { Convention, Instant } from "./RateCurve.ts"

const millisPerDay = 86_400_000

const millis = (instant: Instant): number => (typeof instant === "number" ? instant : instant.epochMilliseconds)

/** The UTC date of an instant, as days since 1970-01-01. */
const epochDay = (ms: number): number => Math.floor(ms / millisPerDay)

/** A snapshot's convention name as the discounting rule it stands for. */
export const convention = (name: MarketSnapshot.Convention): Convention => {
  switch (name) {
    case "ACT/360":
      return { _tag: "Simple", basis: 360 }
    case "ACT/365":
      return { _tag: "Simple", basis: 365 }
    case "BUS/252":
      return { _tag: "Business252" }
  }
}

// 1970-01-05 (epoch day 4) was a Monday.
const firstMonday = 4

/** Weekdays among the days up to and including `day` (counted from a Monday; only differences matter). */
const weekdaysThrough = (day: number): number => {
  const sinceMonday = day - firstMonday
  const weeks = Math.floor(sinceMonday / 7)
  return 5 * weeks + Math.min(sinceMonday - 7 * weeks + 1, 5)
}

/** How many of the sorted `days` are at most `day`. */
const countThrough = (days: Float64Array, day: number): number => {
  let lo = 0
  let hi = days.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (days[mid]! <= day) lo = mid + 1
    else hi = mid
  }
  return lo
}

const isWeekday = (day: number): boolean => {
  const weekday = (((day - firstMonday) % 7) + 7) % 7
  return weekday < 5
}

const dayOfIsoDate = (date: string): number => {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number]
  return epochDay(Date.UTC(y, m - 1, d))
}

export interface DiscountCurve {
  readonly currency: string
  readonly convention: Convention
  /** The snapshot's `as_of`, epoch milliseconds: the curve's time origin. */
  readonly asOf: number
  /** `as_of`'s UTC date (epoch days). */
  readonly asOfDay: number
  /** Pillars in calendar days from `as_of`, strictly increasing. */
  readonly pillarDays: Float64Array
  /** Each pillar's rate in the convention. */
  readonly rates: Float64Array
  /** `ln DF` at each pillar. */
  readonly logDiscounts: Float64Array
  /** Holidays that fall on weekdays (epoch days, sorted): BUS/252 does not count them. */
  readonly holidays: Float64Array
}

export interface CurveInput {
  readonly currency: string
  readonly convention: Convention
  readonly asOf: Instant
  /** Pillars by strictly increasing tenor (a validated snapshot's are). */
  readonly points: ReadonlyArray<{ readonly tenorDays: number; readonly rate: number }>
  /** `YYYY-MM-DD` dates that are not business days. */
  readonly holidays?: ReadonlyArray<string>
}

/**
 * BUS/252 business days of an instant: the weekdays, less the curve's holidays, from the day after `as_of`'s
 * UTC date through the instant's UTC date (whole days; negative before `as_of`'s date).
 */
export const businessDays = (curve: DiscountCurve, at: Instant): number => {
  const day = epochDay(millis(at))
  const through = (d: number) => weekdaysThrough(d) - countThrough(curve.holidays, d)
  return through(day) - through(curve.asOfDay)
}

/**
 * A rate's discount factor `days` calendar days after `as_of` (the instant `at`) in the curve's convention:
 * simple ACT/360 or ACT/365 `DF = 1 / (1 + r·d/basis)` with `d` the actual (fractional) days; BUS/252 compounded
 * `DF = (1 + r)^(−b/252)` with `b = businessDays(curve, at)`.
 */
const conventionDiscount = (curve: DiscountCurve, rate: number, days: number, at: number): number => {
  const c = curve.convention
  return c._tag === "Simple" ? 1 / (1 + (rate * days) / c.basis) : (1 + rate) ** (-businessDays(curve, at) / 252)
}

export const make = (input: CurveInput): DiscountCurve => {
  const asOf = millis(input.asOf)
  const n = input.points.length
  if (n === 0) throw new Error(`curve ${input.currency} has no pillar`)
  const holidays = Float64Array.from(
    [...new Set((input.holidays ?? []).map(dayOfIsoDate))].filter(isWeekday).sort((a, b) => a - b)
  )
  const curve: DiscountCurve = {
    currency: input.currency,
    convention: input.convention,
    asOf,
    asOfDay: epochDay(asOf),
    pillarDays: Float64Array.from(input.points, (p) => p.tenorDays),
    rates: Float64Array.from(input.points, (p) => p.rate),
    logDiscounts: new Float64Array(n),
    holidays
  }
  input.points.forEach((p, i) => {
    if (i > 0 && !(p.tenorDays > input.points[i - 1]!.tenorDays)) {
      throw new Error(`curve ${input.currency}: tenors not strictly increasing`)
    }
    // the pillar's instant is `tenor_days` whole days after as_of, so its date is as_of's date + tenor_days
    curve.logDiscounts[i] = Math.log(conventionDiscount(curve, p.rate, p.tenorDays, asOf + p.tenorDays * millisPerDay))
  })
  return curve
}

/** A validated snapshot's curve for `currency`, with its holidays. */
export const fromSnapshot = (snapshot: MarketSnapshot.MarketSnapshot, currency: string): Option.Option<DiscountCurve> =>
  Option.map(MarketSnapshot.curve(snapshot, currency), (c) =>
    make({
      currency,
      convention: convention(c.convention),
      asOf: snapshot.as_of,
      points: c.points.map((p) => ({ tenorDays: p.tenor_days, rate: Money.toModel(p.rate) })),
      holidays: MarketSnapshot.holidays(snapshot, currency)
    })
  )

/** The first pillar index `i` with `pillarDays[i] > t` (so `t` lies in `[pillarDays[i−1], pillarDays[i])`). */
const upperPillar = (pillarDays: Float64Array, t: number): number => {
  let lo = 0
  let hi = pillarDays.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (pillarDays[mid]! <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Discount factor from `as_of` to `at`. Log-linear in DF between pillars (calendar time); outside them the
 * nearest pillar's rate held flat in the convention. Past the last pillar a simple rate that discounts to
 * nothing (a negative rate decades out) holds the last pillar's continuous zero rate instead.
 */
export const discountFactor = (curve: DiscountCurve, at: Instant): number => {
  const ms = millis(at)
  const t = (ms - curve.asOf) / millisPerDay
  const { pillarDays, logDiscounts, rates } = curve
  const n = pillarDays.length
  if (t <= pillarDays[0]!) return conventionDiscount(curve, rates[0]!, t, ms)
  if (t >= pillarDays[n - 1]!) {
    const df = conventionDiscount(curve, rates[n - 1]!, t, ms)
    return df > 0 ? df : Math.exp((logDiscounts[n - 1]! * t) / pillarDays[n - 1]!)
  }
  const i = upperPillar(pillarDays, t)
  const t0 = pillarDays[i - 1]!
  const w = (t - t0) / (pillarDays[i]! - t0)
  return Math.exp(logDiscounts[i - 1]! + w * (logDiscounts[i]! - logDiscounts[i - 1]!))
}

/** Discount factor over `[from, to]`: `DF(to) / DF(from)`, both from `as_of`. */
export const discountFactorBetween = (curve: DiscountCurve, from: Instant, to: Instant): number =>
  discountFactor(curve, to) / discountFactor(curve, from)

/**
 * The continuous ACT/365F rate the option engine takes over `[from, to]`: `r = −ln DF / τ`, `τ` in ACT/365F
 * years (`RateCurve.continuousRate`: 0 when `τ ≤ 0`).
 */
export const continuousRate = (curve: DiscountCurve, from: Instant, to: Instant): number =>
  RateCurve.continuousRate(discountFactorBetween(curve, from, to), RateCurve.yearFraction365(from, to))

/**
 * Covered interest parity on two curves: `F = S · DF_foreign / DF_domestic` over `[from, to]`, `S` in domestic
 * (QUOTE) per 1 foreign (BASE).
 */
export const forward = (input: {
  readonly spot: number
  readonly domestic: DiscountCurve
  readonly foreign: DiscountCurve
  readonly from: Instant
  readonly to: Instant
}): number =>
  (input.spot * discountFactorBetween(input.foreign, input.from, input.to)) /
  discountFactorBetween(input.domestic, input.from, input.to)

/** A direction's two curves: domestic = its QUOTE currency's, foreign = its BASE currency's. */
export const forDirection = (
  snapshot: MarketSnapshot.MarketSnapshot,
  direction: Direction
): Option.Option<{ readonly domestic: DiscountCurve; readonly foreign: DiscountCurve }> => {
  const { base, quote } = pair(direction)
  return Option.all({ domestic: fromSnapshot(snapshot, quote), foreign: fromSnapshot(snapshot, base) })
}
