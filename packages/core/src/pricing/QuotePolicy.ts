/**
 * The configurable numbers behind quoting and the lifecycle (pricing.md, api-decisions.md).
 * Every default here is configuration, per environment: hosts provide their own values.
 */
import { Context, Duration } from "effect"
import * as Money from "../kernel/Money.ts"

export interface QuotePolicyShape {
  /** How long a quote can be turned into a contract. */
  readonly quoteTtl: Duration.Duration
  /** Largest allowed `|now − market_rate_timestamp|`. */
  readonly maxRateAge: Duration.Duration
  /** How far ahead a window may start or end. */
  readonly maxHorizon: Duration.Duration
  /** Shortest allowed time from now to `window_end`. */
  readonly minTimeToWindowEnd: Duration.Duration
  /** How far in the past `window_start` may be ("now" as the partner saw it, allowing for latency). */
  readonly windowStartGrace: Duration.Duration
  /** Option margin over model value (15 %). */
  readonly optionMargin: Money.Decimal
  /** Forward fee as a share of the option premium (0.5), with a floor in settlement fiat (1.00). */
  readonly forwardFeeRatio: Money.Decimal
  readonly minForwardFee: Money.Decimal
  /** Forward deposit = notional × clamp(σ·√τ2, min, max). */
  readonly depositMin: Money.Decimal
  readonly depositMax: Money.Decimal
  /** Pricing refuses when provider_rate is farther than this from market_rate (5 %). */
  readonly maxProviderDeviation: Money.Decimal
  /** ... when market_rate is farther than this from the corridor's reference rate (20 %). */
  readonly maxReferenceDeviation: Money.Decimal
  /** ... when a custom strike is farther than this from market_rate (20 %). */
  readonly maxCustomStrikeDeviation: Money.Decimal
  /** A contract not funded by `min(created_at + fundingWindow, window_end)` fails or defaults. */
  readonly fundingWindow: Duration.Duration
}

export const defaults: QuotePolicyShape = {
  quoteTtl: Duration.seconds(90),
  maxRateAge: Duration.seconds(300),
  maxHorizon: Duration.days(180),
  minTimeToWindowEnd: Duration.hours(1),
  windowStartGrace: Duration.seconds(300),
  optionMargin: Money.unsafe("0.15"),
  forwardFeeRatio: Money.unsafe("0.5"),
  minForwardFee: Money.unsafe("1.00"),
  depositMin: Money.unsafe("0.05"),
  depositMax: Money.unsafe("0.10"),
  maxProviderDeviation: Money.unsafe("0.05"),
  maxReferenceDeviation: Money.unsafe("0.20"),
  maxCustomStrikeDeviation: Money.unsafe("0.20"),
  fundingWindow: Duration.hours(1)
}

export const QuotePolicy = Context.Reference<QuotePolicyShape>("@ratelock/core/QuotePolicy", {
  defaultValue: () => defaults
})
