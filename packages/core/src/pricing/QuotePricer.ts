/**
 * Prices a validated quote request (pricing.md): the strike, the option value from the window
 * engine, and every amount of the quote, or the reason it cannot be priced.
 *
 * The market model (discount factors, forwards, the option engine) runs in float64; each model
 * output crosses into an exact decimal once (`Money.fromModel`), and every amount is rounded as
 * pricing.md says: the locked rate down to the pair's precision, charges up to 6 decimals.
 */
import { BigDecimal, type DateTime, Option, Result } from "effect"
import { type Direction, marketPairKey, marketPair, pair, ratePrecision } from "../kernel/Corridor.ts"
import * as CorridorLimit from "../limits/CorridorLimit.ts"
import * as CorridorMarket from "../market/CorridorMarket.ts"
import type { NotionalLimits } from "../market/MarketData.ts"
import type * as MarketFreshness from "../market/MarketFreshness.ts"
import * as MarketSnapshot from "../market/MarketSnapshot.ts"
import * as Money from "../kernel/Money.ts"
import * as Pricing from "./Pricing.ts"
import type { PricingInputs } from "../terms/PricingInputs.ts"
import type { FailureReason, QuoteFailureCode, QuoteStatus } from "../terms/Quote.ts"
import type { QuotePolicyShape } from "./QuotePolicy.ts"
import type { QuoteRequest } from "../terms/QuoteRequest.ts"
import { fiatOf, type SettlementCurrency, tokenDecimals } from "../kernel/Rail.ts"
import { charges, engineValue, quoteConversion, type QuoteTerms } from "./internal/charges.ts"

export type { QuoteTerms } from "./internal/charges.ts"

/** The engine a quote records: `Pricing.windowOption` (BBSR lattice, `t1` on the grid). */
export const engine = "window-lattice"
/** A change of method (not of market data) is a new version: `reprice` refuses inputs of another. */
export const engineVersion = "1"

export interface PricerInput {
  readonly request: QuoteRequest
  /** The snapshot in force for the partner's environment, or why there is none (`MarketFreshness`). */
  readonly market: MarketFreshness.InForce
  /** Largest notional per market pair, in the pair's BASE (configuration): the default `max_lock_notional`. */
  readonly notionalLimits: NotionalLimits
  /**
   * The corridor's limits and the open notional its locks hold (`CorridorLimitRepo`): a quote that
   * would breach one if accepted fails. Absent: the default `max_lock_notional` only.
   */
  readonly corridor?: CorridorLimit.CorridorLimit | undefined
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
  /** The snapshot the quote was priced (or refused) from; null when none was in force. */
  readonly snapshotId: string | null
  /** What the engine took; null when the quote failed before pricing. `reprice` reproduces the premium. */
  readonly inputs: PricingInputs | null
}

const failed = (
  request: QuoteRequest,
  code: QuoteFailureCode,
  message: string,
  snapshotId: string | null = null
): PricedQuote => ({
  status: "failed",
  failureReason: { code, message },
  lockedRate: Money.zero,
  strikeAdvantageBps: 0,
  providerExtraSpread: request.provider_extra_spread ?? Money.zero,
  // api-decisions.md: a quote that cannot be priced answers amounts "0"
  premiumAmount: Money.zero,
  depositAmount: request.contract_type === "forward" ? Money.zero : null,
  totalAmount: Money.zero,
  maxTransactionAmount: Money.zero,
  snapshotId,
  inputs: null
})

/** `|a / b − 1|` as an exact decimal. */
const deviation = (a: Money.Decimal, b: Money.Decimal) => BigDecimal.abs(Money.subtract(Money.divide(a, b), Money.one))

const percent = (d: Money.Decimal) => `${Money.format(Money.multiply(d, BigDecimal.make(100n, 0)))} %`

/** Rounds a rate against the customer (down) to the pair's precision. */
export const roundLockedRate = (direction: Direction, rate: Money.Decimal): Money.Decimal => {
  const precision = ratePrecision(direction)
  return precision._tag === "Decimals"
    ? Money.roundDown(rate, precision.decimals)
    : BigDecimal.normalize(Money.roundDownSignificant(rate, precision.digits))
}

/**
 * The strike before the partner's spread: cip_fair is the forward (from `market_rate` on the snapshot's curves)
 * at the worse window end; live spot; or custom.
 */
const strikeOf = (input: PricerInput, market: CorridorMarket.CorridorMarket): Money.Decimal => {
  const { request, now } = input
  switch (request.strike_mode ?? "cip_fair") {
    case "live_spot":
      return request.market_rate
    case "custom":
      return request.target_strike!
    case "cip_fair": {
      const spot = Money.toModel(request.market_rate)
      const start = Math.max(request.window_start.epochMilliseconds, now.epochMilliseconds)
      return Money.fromModel(
        Math.min(
          CorridorMarket.forward(market, spot, now, start),
          CorridorMarket.forward(market, spot, now, request.window_end)
        )
      )
    }
  }
}

/**
 * The settlement fiat per 1 QUOTE when the fiat is neither side of the direction: the snapshot's mid
 * (`MarketSnapshot.midRate`). Repricing a cross-fiat quote reads it again from the quote's snapshot.
 */
export const fiatPerQuote = (
  snapshot: MarketSnapshot.MarketSnapshot,
  direction: Direction,
  settlementCurrency: SettlementCurrency
): Option.Option<Money.Decimal> => MarketSnapshot.midRate(snapshot, pair(direction).quote, fiatOf(settlementCurrency))

/**
 * The direction's default `max_lock_notional` in its BASE units: the pair's limit of the table, times
 * the snapshot's spot when inverted.
 */
const notionalLimitOf = (
  limits: NotionalLimits,
  snapshot: MarketSnapshot.MarketSnapshot,
  direction: Direction
): Option.Option<Money.Decimal> => {
  const key = marketPairKey(direction)
  const limit = Option.fromNullishOr(limits[key])
  if (!marketPair(direction).inverted) return limit
  // the limit is set on the market pair's base; an inverted direction's base is its quote
  return Option.flatMap(limit, (l) => Option.map(MarketSnapshot.spot(snapshot, key), (s) => Money.multiply(l, s)))
}

/** A model number as JSON keeps it: `-0` (a zero rate, `−ln 1 / τ`) is written `0`, so it is priced as `0`. */
const storable = (x: number): number => (x === 0 ? 0 : x)

export const price = (input: PricerInput): PricedQuote => {
  const { request, policy, now } = input
  if (!input.railSupported || tokenDecimals(request.settlement_currency, request.chain) === undefined) {
    return failed(
      request,
      "unsupported_settlement_rail",
      `${request.settlement_currency} is not available on ${request.chain}`
    )
  }
  if (input.market._tag === "Stale") return failed(request, "market_data_stale", input.market.message)
  const { snapshot, snapshotId } = input.market
  const fail = (code: QuoteFailureCode, message: string) => failed(request, code, message, snapshotId)
  const found = CorridorMarket.make(snapshot, request.direction)
  // an operator's max_lock_notional, else the table's
  const explicitLimit = Option.fromNullishOr(input.corridor?.maxLockNotional)
  const limit = Option.isSome(explicitLimit)
    ? explicitLimit
    : notionalLimitOf(input.notionalLimits, snapshot, request.direction)
  if (Option.isNone(found) || Option.isNone(limit)) {
    return fail("no_market_parameters", `no market parameters for ${request.direction}`)
  }
  const market = found.value
  const conversion = quoteConversion(
    { direction: request.direction, settlementCurrency: request.settlement_currency },
    request.market_rate,
    () => fiatPerQuote(snapshot, request.direction, request.settlement_currency)
  )
  if (Option.isNone(conversion)) {
    return fail("no_market_parameters", `no rate to convert ${request.direction} into ${request.settlement_currency}`)
  }
  if (Money.greaterThan(deviation(request.provider_rate, request.market_rate), policy.maxProviderDeviation)) {
    return fail(
      "provider_rate_off_market",
      `provider_rate is more than ${percent(policy.maxProviderDeviation)} from market_rate`
    )
  }
  // the snapshot's spot is the reference: a market_rate far from it is most likely quoted the wrong way round
  if (Money.greaterThan(deviation(request.market_rate, market.referenceRate), policy.maxReferenceDeviation)) {
    return fail(
      "market_rate_off_reference",
      `market_rate is more than ${percent(policy.maxReferenceDeviation)} from the ${request.direction} reference rate ${Money.format(roundLockedRate(request.direction, market.referenceRate))}`
    )
  }
  if (
    request.strike_mode === "custom" &&
    Money.greaterThan(deviation(request.target_strike!, request.market_rate), policy.maxCustomStrikeDeviation)
  ) {
    return fail(
      "custom_strike_off_market",
      `target_strike is more than ${percent(policy.maxCustomStrikeDeviation)} from market_rate`
    )
  }
  const spread = request.provider_extra_spread ?? Money.zero
  const lockedRate = roundLockedRate(request.direction, Money.subtract(strikeOf(input, market), spread))
  if (!Money.isPositive(lockedRate)) {
    return fail("custom_strike_off_market", "the strike less provider_extra_spread is not positive")
  }

  // what the lock would take of its corridor's limits: N_b as the store counts it
  const counted = CorridorLimit.lockNotional({
    direction: request.direction,
    notionalCurrency: request.notional_currency,
    notionalAmount: request.notional_amount,
    lockedRate
  })
  if (Money.greaterThan(counted, limit.value)) {
    // one limit, one code (risk.md): the message says this size never fits, where a full corridor may free up
    return fail(
      "corridor_capacity_exceeded",
      `notional is above the ${request.direction} largest single lock of ${Money.format(BigDecimal.normalize(limit.value))} ${pair(request.direction).base}`
    )
  }
  if (input.corridor !== undefined && Option.isSome(CorridorLimit.breached(input.corridor, counted, Option.none()))) {
    return fail("corridor_capacity_exceeded", CorridorLimit.capacityMessage(request.direction))
  }

  // The option model: a put on BASE struck at the locked rate, exercisable inside the window, on the curves
  // at t1 and t2 and the smile vol at (t2, K) around F(t2) = market_rate · DF_f / DF_d.
  const w = CorridorMarket.windowInputs(market, {
    spot: Money.toModel(request.market_rate),
    strike: Money.toModel(lockedRate),
    now,
    windowStart: request.window_start,
    windowEnd: request.window_end
  })
  // the engine prices from the recorded inputs themselves, so that what is stored is exactly what priced
  const inputs: PricingInputs = {
    spot: request.market_rate,
    forward_t1: storable(w.forwardStart),
    forward_t2: storable(w.forwardEnd),
    rate_domestic: storable(w.domesticRate),
    rate_foreign: storable(w.foreignRate),
    sigma: storable(w.volatility),
    t1: storable(w.windowStartYears),
    t2: storable(w.windowEndYears),
    engine,
    engine_version: engineVersion,
    steps: Pricing.windowOptionSteps(w.windowStartYears, w.windowEndYears)
  }
  const terms: QuoteTerms = {
    contractType: request.contract_type,
    direction: request.direction,
    notionalCurrency: request.notional_currency,
    notionalAmount: request.notional_amount,
    lockedRate,
    settlementCurrency: request.settlement_currency
  }
  const { premiumAmount, depositAmount } = charges(
    terms,
    { value: engineValue(inputs, lockedRate), sigma: inputs.sigma, t2: inputs.t2 },
    request.market_rate,
    conversion.value,
    policy
  )

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
    maxTransactionAmount: request.notional_amount,
    snapshotId,
    inputs
  }
}

export interface RepriceInput {
  /** The inputs the quote recorded. */
  readonly inputs: PricingInputs
  /** The quote's terms; a `QuoteRecord` has them under these names. */
  readonly quote: QuoteTerms
  /**
   * Settlement fiat per 1 QUOTE, needed only when the fiat is neither side of the direction: `fiatPerQuote` of
   * the quote's snapshot (`MarketSnapshot.illustrative` when the quote names no stored snapshot).
   */
  readonly fiatPerQuote?: Option.Option<Money.Decimal> | undefined
  /** The policy the quote was priced under (its margin, forward fee and deposit bounds). */
  readonly policy: QuotePolicyShape
}

export type RepriceError =
  | { readonly _tag: "UnknownEngine"; readonly message: string }
  | { readonly _tag: "NoCrossRate"; readonly message: string }

/**
 * A quote's charges again from its recorded inputs alone (no snapshot, no clock): the same engine on the same
 * float64 inputs and steps, then the same exact arithmetic, so the premium equals the stored one to the token
 * unit. Refuses inputs of another engine or version, and a cross-fiat quote without its cross rate.
 */
export const reprice = (
  input: RepriceInput
): Result.Result<
  { readonly premiumAmount: Money.Decimal; readonly depositAmount: Money.Decimal | null },
  RepriceError
> => {
  const { inputs, quote } = input
  if (inputs.engine !== engine || inputs.engine_version !== engineVersion) {
    return Result.fail({
      _tag: "UnknownEngine",
      message: `inputs of engine ${inputs.engine} version ${inputs.engine_version}; this pricer is ${engine} version ${engineVersion}`
    })
  }
  const conversion = quoteConversion(quote, inputs.spot, () => input.fiatPerQuote ?? Option.none())
  if (Option.isNone(conversion)) {
    return Result.fail({
      _tag: "NoCrossRate",
      message: `no rate to convert ${quote.direction} into ${quote.settlementCurrency}`
    })
  }
  return Result.succeed(
    charges(
      quote,
      { value: engineValue(inputs, quote.lockedRate), sigma: inputs.sigma, t2: inputs.t2 },
      inputs.spot,
      conversion.value,
      input.policy
    )
  )
}
