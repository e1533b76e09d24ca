/**
 * How the book is hedged, per environment and market pair (risk.md, Hedging), and the pure
 * decision: given the book's delta, the hedge position and the policy, the one order to place, or
 * none.
 *
 * Signs. `delta` is the book's, in BASE units: positive for a book of short puts (the service
 * loses when BASE falls). The hedge `position` is the signed sum of filled hedge orders in BASE
 * units, buying BASE positive. The position offsets the delta, so the residual delta is
 * `delta + position` and the target position is `−target_ratio × delta`. risk.md's rule
 * `|target_ratio × delta − hedge position| > band` reads "hedge position" as the delta the hedge
 * offsets (`−position`); it is the same rule as `|target − position| > band` here.
 */
import { BigDecimal, DateTime, Option, Schema } from "effect"
import { MarketPairKey } from "../kernel/Corridor.ts"
import * as Money from "../kernel/Money.ts"
import { Environment } from "../terms/Partner.ts"

/** `spot` settles two business days on; `forward` on a value date `valueDays` calendar days on. */
export const Instrument = Schema.Literals(["spot", "forward"])
export type Instrument = typeof Instrument.Type

/** Buying BASE (against QUOTE) or selling it. */
export const Side = Schema.Literals(["buy", "sell"])
export type Side = typeof Side.Type

/** Orders are whole hundredths of BASE: an amount is rounded half away from zero to 2 decimals, and kept at that scale. */
export const orderDecimals = 2

/**
 * The narrowest band: one order unit. Rounding moves a position at most half a unit from its
 * target, so with a band of at least one unit every order lands inside the band.
 */
export const minBand: Money.Decimal = BigDecimal.make(1n, orderDecimals)

/** The longest forward a policy may name. */
export const maxValueDays = 365

/** Spot's value date: two business days (weekdays; no holiday calendar yet) after the trade. */
export const spotLagDays = 2

export const HedgePolicy = Schema.Struct({
  environment: Environment,
  pair: MarketPairKey,
  /**
   * The share of the delta to hedge, from 0 to 1: a hedge larger than the delta would be a
   * position of its own, not a hedge.
   */
  targetRatio: Schema.BigDecimal.check(
    Schema.isBetweenBigDecimal({ minimum: Money.zero, maximum: Money.one }, { expected: "a ratio from 0 to 1" })
  ),
  /** BASE units the position may stray from its target before an order is placed. */
  band: Schema.BigDecimal.check(
    Schema.isGreaterThanOrEqualToBigDecimal(minBand, { expected: `at least ${Money.format(minBand)}` })
  ),
  instrument: Instrument,
  /** Calendar days from the trade to a forward's value date; null for spot. */
  valueDays: Schema.NullOr(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxValueDays }, { expected: `1 to ${maxValueDays}` }))
  ),
  updatedAt: Schema.DateTimeUtc
})
  .check(
    Schema.makeFilter((p) =>
      (p.instrument === "forward") === (p.valueDays !== null)
        ? true
        : {
            path: ["valueDays"],
            issue: p.instrument === "forward" ? "a forward needs its value days" : "spot takes no value days"
          }
    )
  )
  .annotate({ identifier: "HedgePolicy" })
export type HedgePolicy = typeof HedgePolicy.Type

/** The default `targetRatio`: the whole delta. */
export const defaultTargetRatio = Money.one

/** The position that hedges `targetRatio` of the delta: `−targetRatio × delta`. */
export const target = (delta: Money.Decimal, policy: Pick<HedgePolicy, "targetRatio">): Money.Decimal =>
  BigDecimal.negate(Money.multiply(policy.targetRatio, delta))

/** The delta the hedge leaves: `delta + position`. */
export const residual = (delta: Money.Decimal, position: Money.Decimal): Money.Decimal => Money.sum(delta, position)

const dayMillis = 86_400_000
const isWeekend = (millis: number) => {
  const day = new Date(millis).getUTCDay()
  return day === 0 || day === 6
}

/** The value date (`YYYY-MM-DD`, UTC) of an order traded at `now` under `policy`. */
export const valueDate = (policy: Pick<HedgePolicy, "instrument" | "valueDays">, now: DateTime.Utc): string => {
  let millis = DateTime.removeTime(now).epochMilliseconds
  if (policy.instrument === "spot") {
    for (let added = 0; added < spotLagDays; ) {
      millis += dayMillis
      if (!isWeekend(millis)) added++
    }
  } else {
    millis += (policy.valueDays ?? 0) * dayMillis
    while (isWeekend(millis)) millis += dayMillis
  }
  return DateTime.formatIsoDateUtc(DateTime.makeUnsafe(millis))
}

/** The order a decision places: `amount` BASE units, positive, to `side`. */
export interface Intent {
  readonly side: Side
  readonly amount: Money.Decimal
  readonly instrument: Instrument
  readonly valueDate: string
  /** The target position the order moves to. */
  readonly target: Money.Decimal
}

export interface DecisionInput {
  /** The book's delta for the pair, BASE units. */
  readonly delta: Money.Decimal
  /** The hedge position for the pair, BASE units (buys positive). */
  readonly position: Money.Decimal
  readonly policy: Pick<HedgePolicy, "targetRatio" | "band" | "instrument" | "valueDays">
  /** When the order would be traded (its value date follows from it). */
  readonly now: DateTime.Utc
}

/**
 * The order that brings the position back to target when it strays more than the band from it:
 * exactly `target − position`, rounded to `orderDecimals` (buy when positive, sell when
 * negative); none inside the band, or when the gap rounds to nothing.
 */
export const decide = (input: DecisionInput): Option.Option<Intent> => {
  const goal = target(input.delta, input.policy)
  const gap = Money.subtract(goal, input.position)
  if (!Money.greaterThan(BigDecimal.abs(gap), input.policy.band)) return Option.none()
  const amount = BigDecimal.scale(
    BigDecimal.round(BigDecimal.abs(gap), { scale: orderDecimals, mode: "half-from-zero" }),
    orderDecimals
  )
  if (Money.isZero(amount)) return Option.none()
  return Option.some({
    side: Money.isPositive(gap) ? "buy" : "sell",
    amount,
    instrument: input.policy.instrument,
    valueDate: valueDate(input.policy, input.now),
    target: goal
  })
}

/** The fields an operator sees (CLI `--json`, the operator API): snake_case, decimals as strings. */
export const HedgePolicyView = Schema.Struct({
  environment: Environment,
  pair: Schema.String,
  target_ratio: Money.DecimalString,
  band: Money.DecimalString,
  instrument: Instrument,
  value_days: Schema.NullOr(Schema.Int),
  updated_at: Schema.DateTimeUtcFromString
}).annotate({ identifier: "HedgePolicyView" })

/** The policy as an operator sees it, encoded (JSON-ready). */
export const view = (p: HedgePolicy): typeof HedgePolicyView.Encoded =>
  Schema.encodeSync(HedgePolicyView)({
    environment: p.environment,
    pair: p.pair,
    target_ratio: p.targetRatio,
    band: p.band,
    instrument: p.instrument,
    value_days: p.valueDays,
    updated_at: p.updatedAt
  })
