/**
 * Prices a validated quote request (pricing.md): the strike, the option value from the window
 * engine, and every amount of the quote, or the reason it cannot be priced.
 *
 * The market model (discount factors, forwards, the option engine) runs in float64; each model
 * output crosses into an exact decimal once (`Money.fromModel`), and every amount is rounded as
 * pricing.md says: the locked rate down to the pair's precision, charges up to 6 decimals.
 */
import { BigDecimal, type DateTime, Option } from "effect"
import { inBase, pair, ratePrecision, type Direction } from "./Corridor.ts"
import type { CorridorParameters } from "./MarketData.ts"
import * as Money from "./Money.ts"
import * as Pricing from "./Pricing.ts"
import type { FailureReason, QuoteFailureCode, QuoteStatus } from "./Quote.ts"
import type { QuotePolicyShape } from "./QuotePolicy.ts"
import type { QuoteRequest } from "./QuoteRequest.ts"
import { fiatOf, tokenDecimals } from "./Rail.ts"
import * as RateCurve from "./RateCurve.ts"
import { type Conversion, convert } from "./Settlement.ts"

export interface PricerInput {
  readonly request: QuoteRequest
  readonly corridor: Option.Option<CorridorParameters>
  /** Settlement fiat per 1 QUOTE, when the fiat is neither side of the corridor. */
  readonly fiatPerQuote: Option.Option<Money.Decimal>
  readonly now: DateTime.Utc
  readonly policy: QuotePolicyShape
  /** Whether this deployment settles the request's (chain, token) in the partner's environment. */
  readonly railSupported: boolean
}

export interface PricedQuote {
  readonly status: QuoteStatus
  readonly failureReason: FailureReason | null
  readonly lockedRate: Money.Decimal
  readonly strikeAdvantageBps: number
  readonly providerExtraSpread: Money.Decimal
  readonly premiumAmount: Money.Decimal
  readonly depositAmount: Money.Decimal | null
  readonly totalAmount: Money.Decimal
  readonly maxTransactionAmount: Money.Decimal
}

const MS_PER_YEAR = 365 * 86_400_000

const failed = (request: QuoteRequest, code: QuoteFailureCode, message: string): PricedQuote => ({
  status: "failed",
  failureReason: { code, message },
  lockedRate: Money.zero,
  strikeAdvantageBps: 0,
  providerExtraSpread: request.provider_extra_spread ?? Money.zero,
  // api-decisions.md: a quote that cannot be priced answers amounts "0"
  premiumAmount: Money.zero,
  depositAmount: request.contract_type === "forward" ? Money.zero : null,
  totalAmount: Money.zero,
  maxTransactionAmount: Money.zero
})

/** `|a / b − 1|` as an exact decimal. */
const deviation = (a: Money.Decimal, b: Money.Decimal) => BigDecimal.abs(Money.subtract(Money.divide(a, b), Money.one))

const percent = (d: Money.Decimal) => `${Money.format(Money.multiply(d, BigDecimal.make(100n, 0)))} %`

/** The continuous ACT/365F rate the option model takes, from the currency's own convention over [from, to]. */
const continuousRate = (leg: RateCurve.Leg, from: DateTime.Utc, to: DateTime.Utc) =>
  RateCurve.continuousRate(RateCurve.discountFactor({ ...leg, from, to }), RateCurve.yearFraction365(from, to))

/** Rounds a rate against the customer (down) to the pair's precision. */
export const roundLockedRate = (direction: Direction, rate: Money.Decimal): Money.Decimal => {
  const precision = ratePrecision(direction)
  return precision._tag === "Decimals"
    ? Money.roundDown(rate, precision.decimals)
    : BigDecimal.normalize(Money.roundDownSignificant(rate, precision.digits))
}

/** The strike before the partner's spread: cip_fair forward at the worse window end, live spot, or custom. */
const strikeOf = (input: PricerInput, corridor: CorridorParameters): Money.Decimal => {
  const { request, now } = input
  switch (request.strike_mode ?? "cip_fair") {
    case "live_spot":
      return request.market_rate
    case "custom":
      return request.target_strike!
    case "cip_fair": {
      const start = Math.max(request.window_start.epochMilliseconds, now.epochMilliseconds)
      return Money.fromModel(
        RateCurve.cipFairStrike({
          spot: Money.toModel(request.market_rate),
          domestic: corridor.quote,
          foreign: corridor.base,
          now: now.epochMilliseconds,
          windowStart: start,
          windowEnd: request.window_end.epochMilliseconds
        })
      )
    }
  }
}

/** How amounts in QUOTE become the settlement fiat at quote time (at market_rate). */
const quoteConversion = (input: PricerInput): Option.Option<Conversion> => {
  const { base, quote } = pair(input.request.direction)
  const fiat = fiatOf(input.request.settlement_currency)
  if (fiat === quote) return Option.some({ _tag: "Identity" })
  if (fiat === base) return Option.some({ _tag: "FromBase", liveExecutionRate: input.request.market_rate })
  return Option.map(input.fiatPerQuote, (fiatPerQuote) => ({ _tag: "Cross", fiatPerQuote }) as const)
}

export const price = (input: PricerInput): PricedQuote => {
  const { request, policy, now } = input
  if (!input.railSupported || tokenDecimals(request.settlement_currency, request.chain) === undefined) {
    return failed(
      request,
      "unsupported_settlement_rail",
      `${request.settlement_currency} is not available on ${request.chain}`
    )
  }
  if (Option.isNone(input.corridor)) {
    return failed(request, "no_market_parameters", `no market parameters for ${request.direction}`)
  }
  const corridor = input.corridor.value
  const conversion = quoteConversion(input)
  if (Option.isNone(conversion)) {
    return failed(
      request,
      "no_market_parameters",
      `no rate to convert ${request.direction} into ${request.settlement_currency}`
    )
  }
  if (Money.greaterThan(deviation(request.provider_rate, request.market_rate), policy.maxProviderDeviation)) {
    return failed(
      request,
      "provider_rate_off_market",
      `provider_rate is more than ${percent(policy.maxProviderDeviation)} from market_rate`
    )
  }
  if (Money.greaterThan(deviation(request.market_rate, corridor.referenceRate), policy.maxReferenceDeviation)) {
    return failed(
      request,
      "market_rate_off_reference",
      `market_rate is more than ${percent(policy.maxReferenceDeviation)} from the ${request.direction} reference rate ${Money.format(roundLockedRate(request.direction, corridor.referenceRate))}`
    )
  }
  if (
    request.strike_mode === "custom" &&
    Money.greaterThan(deviation(request.target_strike!, request.market_rate), policy.maxCustomStrikeDeviation)
  ) {
    return failed(
      request,
      "custom_strike_off_market",
      `target_strike is more than ${percent(policy.maxCustomStrikeDeviation)} from market_rate`
    )
  }
  const spread = request.provider_extra_spread ?? Money.zero
  const lockedRate = roundLockedRate(request.direction, Money.subtract(strikeOf(input, corridor), spread))
  if (!Money.isPositive(lockedRate)) {
    return failed(request, "custom_strike_off_market", "the strike less provider_extra_spread is not positive")
  }

  const { base } = pair(request.direction)
  const notionalIsBase = request.notional_currency === base
  const notionalBase = inBase(request.notional_amount, request.notional_currency, request.direction, lockedRate)
  if (Money.greaterThan(notionalBase, corridor.notionalLimitBase)) {
    return failed(
      request,
      "notional_above_limit",
      `notional is above the ${request.direction} limit of ${Money.format(corridor.notionalLimitBase)} ${base}`
    )
  }

  // The option model: a put on BASE struck at the locked rate, exercisable inside the window.
  const t1 = Math.max(0, request.window_start.epochMilliseconds - now.epochMilliseconds) / MS_PER_YEAR
  const t2 = Math.max(0, request.window_end.epochMilliseconds - now.epochMilliseconds) / MS_PER_YEAR
  const value = Pricing.windowOption({
    spot: Money.toModel(request.market_rate),
    strike: Money.toModel(lockedRate),
    domesticRate: continuousRate(corridor.quote, now, request.window_end),
    foreignRate: continuousRate(corridor.base, now, request.window_end),
    volatility: corridor.volatility,
    windowStartYears: t1,
    windowEndYears: t2,
    kind: "put"
  })

  const marginFactor = Money.sum(Money.one, policy.optionMargin)
  const optionPremiumQuote = Money.multiply(Money.multiply(Money.fromModel(value), notionalBase), marginFactor)
  const optionPremium = convert(optionPremiumQuote, conversion.value)
  const premiumAmount = Money.roundUp(
    request.contract_type === "option"
      ? optionPremium
      : Money.max(policy.minForwardFee, Money.multiply(policy.forwardFeeRatio, optionPremium))
  )

  let depositAmount: Money.Decimal | null = null
  if (request.contract_type === "forward") {
    const notionalQuote = notionalIsBase
      ? Money.multiply(request.notional_amount, request.market_rate)
      : request.notional_amount
    const ratio = BigDecimal.clamp(Money.fromModel(corridor.volatility * Math.sqrt(t2)), {
      minimum: policy.depositMin,
      maximum: policy.depositMax
    })
    depositAmount = Money.roundUp(Money.multiply(convert(notionalQuote, conversion.value), ratio))
  }

  const advance = Money.subtract(Money.divide(lockedRate, request.provider_rate), Money.one)
  const bps = BigDecimal.floor(Money.multiply(advance, BigDecimal.make(10_000n, 0)), 0)
  return {
    status: "created",
    failureReason: null,
    lockedRate,
    strikeAdvantageBps: Math.max(0, Number(BigDecimal.scale(bps, 0).value)),
    providerExtraSpread: spread,
    premiumAmount,
    depositAmount,
    totalAmount: Money.sum(premiumAmount, depositAmount ?? Money.zero),
    maxTransactionAmount: request.notional_amount
  }
}
