/**
 * Money-market discounting per currency convention, covered-interest-parity forwards, and the conversion to the
 * continuous ACT/365F rates the option engines take. Float64 model math; pure (callers pass every instant,
 * including `now`).
 *
 * Instants are `DateTime.Utc` or epoch milliseconds. Day counts use actual elapsed time as a fraction of a day
 * (`ms / 86_400_000`), so a lock expiring at 15:00 counts the part-day.
 */
import { DateTime } from "effect"
import type { Currency } from "../kernel/Corridor.ts"

export type Instant = DateTime.Utc | number

/** How a currency's quoted rate discounts. */
export type Convention =
  /** `DF = 1 / (1 + r·d/basis)`, d = actual days. */
  | { readonly _tag: "Simple"; readonly basis: 360 | 365 }
  /** `DF = (1 + r)^(−b/252)`, b = business days (see `businessDays`). */
  | { readonly _tag: "Business252" }

export const conventions: { readonly [C in Currency]: Convention } = {
  USD: { _tag: "Simple", basis: 360 },
  EUR: { _tag: "Simple", basis: 360 },
  MXN: { _tag: "Simple", basis: 360 },
  NGN: { _tag: "Simple", basis: 365 },
  BRL: { _tag: "Business252" }
}

/** A currency with its quoted (convention) rate, e.g. `{ currency: "BRL", rate: 0.1425 }`. */
export interface Leg {
  readonly currency: Currency
  readonly rate: number
}

const millisPerDay = 86_400_000

const millis = (instant: Instant): number => (typeof instant === "number" ? instant : DateTime.toEpochMillis(instant))

/** Actual days from `from` to `to`, fractional, negative when `to` is earlier. */
export const days = (from: Instant, to: Instant): number => (millis(to) - millis(from)) / millisPerDay

/** ACT/365F year fraction, the time unit of `Pricing`. */
export const yearFraction365 = (from: Instant, to: Instant): number => days(from, to) / 365

// 1970-01-05 (epoch day 4) was a Monday.
const firstMonday = 4

/** Weekday-days elapsed since 1970-01-05: five per week, a weekday counting the part of it that has passed. */
const weekdayClock = (instant: Instant): number => {
  const sinceMonday = millis(instant) / millisPerDay - firstMonday
  const weeks = Math.floor(sinceMonday / 7)
  return 5 * weeks + Math.min(sinceMonday - 7 * weeks, 5)
}

/**
 * Business days between two instants (UTC weekdays, no holiday calendar): the weekday time elapsed, in days.
 * Whole weekdays count 1, a partly elapsed weekday its elapsed fraction, Saturdays and Sundays nothing, so
 * Monday→next Monday is 5 and Friday 18:00 → Monday 06:00 is 0.5. Negative when `to` is earlier.
 */
export const businessDays = (from: Instant, to: Instant): number => weekdayClock(to) - weekdayClock(from)

/**
 * Discount factor from `from` to `to` under the currency's convention. A span of zero or less discounts
 * nothing (DF = 1): curves only look forward.
 */
export const discountFactor = (input: {
  readonly currency: Currency
  readonly rate: number
  readonly from: Instant
  readonly to: Instant
}): number => {
  const d = days(input.from, input.to)
  if (!(d > 0)) return 1
  const convention = conventions[input.currency]
  switch (convention._tag) {
    case "Simple":
      return 1 / (1 + (input.rate * d) / convention.basis)
    case "Business252":
      return (1 + input.rate) ** (-businessDays(input.from, input.to) / 252)
  }
}

/** Covered interest parity: `F = S · DF_foreign / DF_domestic` (S in domestic per 1 foreign). */
export const forward = (input: {
  readonly spot: number
  readonly domestic: Leg
  readonly foreign: Leg
  readonly from: Instant
  readonly to: Instant
}): number => {
  const { from, to } = input
  const dfForeign = discountFactor({ ...input.foreign, from, to })
  const dfDomestic = discountFactor({ ...input.domestic, from, to })
  return (input.spot * dfForeign) / dfDomestic
}

/**
 * The continuously compounded ACT/365F rate with the same discount factor: `−ln(DF) / years`. At `years ≤ 0`
 * there is no interest to express and every option value is intrinsic, so the rate is 0 rather than `0/0`.
 */
export const continuousRate = (df: number, years: number): number => (years > 0 ? -Math.log(df) / years : 0)

/**
 * Fair strike of a lock exercisable in [windowStart, windowEnd]: the CIP forward at whichever end is lower,
 * i.e. worse for the customer, who sells BASE (foreign) for QUOTE (domestic) at the strike.
 */
export const cipFairStrike = (input: {
  readonly spot: number
  readonly domestic: Leg
  readonly foreign: Leg
  readonly now: Instant
  readonly windowStart: Instant
  readonly windowEnd: Instant
}): number => {
  const { spot, domestic, foreign, now } = input
  return Math.min(
    forward({ spot, domestic, foreign, from: now, to: input.windowStart }),
    forward({ spot, domestic, foreign, from: now, to: input.windowEnd })
  )
}
