/**
 * The rules the Monte Carlo and the backtest share: a lock priced as the API prices it, the payout's conversion, a
 * forward's walk-away, token units.
 */
import { SimulationRefused } from "../Simulated.ts"
import { BigDecimal, type DateTime, Option, Result } from "effect"
import { type Direction, pair } from "../../kernel/Corridor.ts"
import * as Money from "../../kernel/Money.ts"
import { fiatOf, type SettlementCurrency } from "../../kernel/Rail.ts"
import type * as CorridorMarket from "../../market/CorridorMarket.ts"
import * as MarketData from "../../market/MarketData.ts"
import type * as MarketSnapshot from "../../market/MarketSnapshot.ts"
import * as Pricing from "../../pricing/Pricing.ts"
import type * as QuotePolicy from "../../pricing/QuotePolicy.ts"
import * as QuotePricer from "../../pricing/QuotePricer.ts"
import * as QuoteRules from "../../pricing/QuoteRules.ts"
import type { PricingInputs } from "../../terms/PricingInputs.ts"
import type { QuoteRequest } from "../../terms/QuoteRequest.ts"
import * as Settlement from "../../terms/Settlement.ts"

export const millisPerDay = 86_400_000
export const millisPerYear = 365 * millisPerDay

/** The payout's conversion at a live rate: the settlement fiat's side, or the snapshot's cross mid. */
export const conversionAt = (
  direction: Direction,
  settlementCurrency: SettlementCurrency,
  rate: Money.Decimal,
  cross: Option.Option<Money.Decimal>
): Option.Option<Settlement.Conversion> => {
  const c = Settlement.conversionFor(direction, fiatOf(settlementCurrency), rate)
  if (c !== "needs_cross_rate") return Option.some(c)
  return Option.map(cross, (fiatPerQuote) => ({ _tag: "Cross", fiatPerQuote }) as const)
}

/** The settlement fiat per 1 QUOTE as a model float at a live rate (1, 1/rate, or the cross mid). */
export const conversionModel = (direction: Direction, settlementCurrency: SettlementCurrency, cross: number) => {
  const fiat = fiatOf(settlementCurrency)
  const { base, quote } = pair(direction)
  if (fiat === quote) return (_rate: number) => 1
  if (fiat === base) return (rate: number) => 1 / rate
  return (_rate: number) => cross
}

/**
 * A forward's customer walks away, forfeiting the deposit, when the live rate beats the locked rate by more than the
 * deposit is worth: transacting at the locked rate would cost them more than the deposit does (model floats: the
 * gain in the settlement fiat against the deposit).
 */
export const walksAway = (rate: number, strike: number, notionalBase: number, fiatPerQuote: number, deposit: number) =>
  (rate - strike) * notionalBase * fiatPerQuote > deposit

export const units = (d: Money.Decimal): bigint => Money.toBaseUnits(Money.roundDown(d))

export const fromUnits = (u: bigint): Money.Decimal => BigDecimal.normalize(Money.fromBaseUnits(u))

/**
 * A request priced as the API prices it: first the rules it checks a request by (the window's order and horizon,
 * the notional's side ...), then the pricer (the rail, the reference rate, the largest single lock).
 */
export const priceAsTheApi = (
  request: QuoteRequest,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  policy: QuotePolicy.QuotePolicyShape
): Result.Result<QuotePricer.PricedQuote & { readonly inputs: PricingInputs }, SimulationRefused> => {
  const broken = QuoteRules.violations(request, now, policy)
  if (broken.length > 0) {
    return refused("validation_error", broken.map((i) => `${i.loc.at(-1)}: ${i.msg}`).join("; "))
  }
  const priced = QuotePricer.price({
    request,
    market: { _tag: "InForce", snapshotId: null, snapshot },
    notionalLimits: MarketData.defaultNotionalLimits,
    now,
    policy,
    railSupported: true
  })
  if (priced.status === "failed" || priced.inputs === null) {
    const reason = priced.failureReason ?? { code: "no_market_parameters", message: "no market parameters" }
    return refused(reason.code, reason.message)
  }
  return Result.succeed({ ...priced, inputs: priced.inputs })
}

/** What a quote records of the engine's inputs (the engine, its version, its steps). */
export const pricingInputsOf = (spot: Money.Decimal, w: CorridorMarket.WindowInputs): PricingInputs => ({
  spot,
  forward_t1: w.forwardStart,
  forward_t2: w.forwardEnd,
  rate_domestic: w.domesticRate,
  rate_foreign: w.foreignRate,
  sigma: w.volatility,
  t1: w.windowStartYears,
  t2: w.windowEndYears,
  engine: QuotePricer.engine,
  engine_version: QuotePricer.engineVersion,
  steps: Pricing.windowOptionSteps(w.windowStartYears, w.windowEndYears)
})

export const refused = (code: string, message: string) => Result.fail(new SimulationRefused({ code, message }))

export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
