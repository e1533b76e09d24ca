/**
 * The amounts of a quote once the model has valued its option (pricing.md, Quote fields): how QUOTE
 * amounts become the settlement fiat, the premium and a forward's deposit, and the engine's value
 * from recorded inputs. One rule for `QuotePricer.price` and `QuotePricer.reprice`.
 */
import { BigDecimal, Option } from "effect"
import { type Direction, inBase, pair } from "../../kernel/Corridor.ts"
import * as Money from "../../kernel/Money.ts"
import { fiatOf, type SettlementCurrency } from "../../kernel/Rail.ts"
import type { PricingInputs } from "../../terms/PricingInputs.ts"
import type { QuoteRecord } from "../../terms/Quote.ts"
import { type Conversion, convert } from "../../terms/Settlement.ts"
import * as Pricing from "../Pricing.ts"
import type { QuotePolicyShape } from "../QuotePolicy.ts"

/** How amounts in QUOTE become the settlement fiat at quote time (at market_rate, or the cross mid). */
export const quoteConversion = (
  terms: { readonly direction: Direction; readonly settlementCurrency: SettlementCurrency },
  marketRate: Money.Decimal,
  cross: () => Option.Option<Money.Decimal>
): Option.Option<Conversion> => {
  const { base, quote } = pair(terms.direction)
  const fiat = fiatOf(terms.settlementCurrency)
  if (fiat === quote) return Option.some({ _tag: "Identity" })
  if (fiat === base) return Option.some({ _tag: "FromBase", liveExecutionRate: marketRate })
  return Option.map(cross(), (rate) => ({ _tag: "Cross", fiatPerQuote: rate }) as const)
}

/** What the amounts of a quote are computed from, once the model has valued the option. */
export interface QuoteTerms {
  readonly contractType: QuoteRecord["contractType"]
  readonly direction: Direction
  readonly notionalCurrency: QuoteRecord["notionalCurrency"]
  readonly notionalAmount: Money.Decimal
  readonly lockedRate: Money.Decimal
  readonly settlementCurrency: SettlementCurrency
}

/**
 * The charges of a quote from the model's value per 1 BASE (pricing.md, Quote fields): the premium
 * `value × N_b × (1 + margin)` in the settlement fiat (a forward's fee `max(min_fee, ratio × premium)`), and a
 * forward's deposit `notional × clamp(σ·√t2, min, max)`, each rounded up to the token unit. One rule for
 * `price` and `reprice`.
 */
export const charges = (
  terms: QuoteTerms,
  model: { readonly value: number; readonly sigma: number; readonly t2: number },
  marketRate: Money.Decimal,
  conversion: Conversion,
  policy: QuotePolicyShape
): { readonly premiumAmount: Money.Decimal; readonly depositAmount: Money.Decimal | null } => {
  const notionalBase = inBase(terms.notionalAmount, terms.notionalCurrency, terms.direction, terms.lockedRate)
  const marginFactor = Money.sum(Money.one, policy.optionMargin)
  const optionPremiumQuote = Money.multiply(Money.multiply(Money.fromModel(model.value), notionalBase), marginFactor)
  const optionPremium = convert(optionPremiumQuote, conversion)
  const premiumAmount = Money.roundUp(
    terms.contractType === "option"
      ? optionPremium
      : Money.max(policy.minForwardFee, Money.multiply(policy.forwardFeeRatio, optionPremium))
  )
  if (terms.contractType !== "forward") return { premiumAmount, depositAmount: null }
  const notionalQuote =
    terms.notionalCurrency === pair(terms.direction).base
      ? Money.multiply(terms.notionalAmount, marketRate)
      : terms.notionalAmount
  const ratio = BigDecimal.clamp(Money.fromModel(model.sigma * Math.sqrt(model.t2)), {
    minimum: policy.depositMin,
    maximum: policy.depositMax
  })
  return { premiumAmount, depositAmount: Money.roundUp(Money.multiply(convert(notionalQuote, conversion), ratio)) }
}

/** The engine's value per 1 BASE of a put on BASE from recorded inputs, struck at the locked rate. */
export const engineValue = (inputs: PricingInputs, strike: Money.Decimal): number =>
  Pricing.windowOptionOn(
    {
      spot: Money.toModel(inputs.spot),
      strike: Money.toModel(strike),
      domesticRate: inputs.rate_domestic,
      foreignRate: inputs.rate_foreign,
      volatility: inputs.sigma,
      windowStartYears: inputs.t1,
      windowEndYears: inputs.t2,
      kind: "put"
    },
    inputs.steps
  )
