/**
 * Port for market parameters: what the pricer needs per corridor, and mid rates for crossing
 * into a settlement fiat that is neither side of the corridor.
 */
import { Context, Effect, Layer, Option } from "effect"
import type { DateTime } from "effect"
import { type Currency, type Direction, marketPair } from "./Corridor.ts"
import * as Money from "./Money.ts"

export interface CurrencyRate {
  readonly currency: Currency
  /** Annual rate in the currency's own convention (ACT/360, ACT/365 or BUS/252). */
  readonly rate: number
}

export interface CorridorParameters {
  /** Reference (mid) rate of the direction: QUOTE per 1 BASE. */
  readonly referenceRate: Money.Decimal
  /** ATM volatility of the pair, annualised. */
  readonly volatility: number
  readonly base: CurrencyRate
  readonly quote: CurrencyRate
  /** Largest notional the corridor takes, in BASE units. */
  readonly notionalLimitBase: Money.Decimal
}

export interface MarketDataShape {
  readonly corridor: (direction: Direction) => Effect.Effect<Option.Option<CorridorParameters>>
  /** Mid rate `quote` per 1 `base` at `at`, when known. */
  readonly midRate: (base: Currency, quote: Currency, at: DateTime.Utc) => Effect.Effect<Option.Option<Money.Decimal>>
}

export interface StaticTable {
  readonly rates: Readonly<Partial<Record<Currency, number>>>
  /** Keyed by market pair `BASE/QUOTE` in its usual order (`USD/BRL`). */
  readonly pairs: Readonly<
    Record<string, { readonly volatility: number; readonly reference: string; readonly notionalLimitBase: string }>
  >
}

export const defaultTable = (): StaticTable => ({
  rates: { USD: 0.0375, EUR: 0.02, BRL: 0.1425, MXN: 0.07, NGN: 0.27 },
  pairs: {
    "EUR/USD": { volatility: 0.075, reference: "1.17", notionalLimitBase: "5000000" },
    "USD/BRL": { volatility: 0.14, reference: "5.40", notionalLimitBase: "5000000" },
    "USD/MXN": { volatility: 0.12, reference: "18.50", notionalLimitBase: "5000000" },
    "USD/NGN": { volatility: 0.2, reference: "1500", notionalLimitBase: "1000000" },
    "EUR/BRL": { volatility: 0.15, reference: "6.32", notionalLimitBase: "5000000" },
    "BRL/MXN": { volatility: 0.13, reference: "3.43", notionalLimitBase: "25000000" }
  }
})

const fromTable = (table: StaticTable): MarketDataShape => {
  const lookup = (base: Currency, quote: Currency) => {
    const direct = table.pairs[`${base}/${quote}`]
    if (direct) return { ...direct, inverted: false }
    const inverse = table.pairs[`${quote}/${base}`]
    return inverse ? { ...inverse, inverted: true } : undefined
  }
  const mid = (base: Currency, quote: Currency): Option.Option<Money.Decimal> => {
    if (base === quote) return Option.some(Money.one)
    const entry = lookup(base, quote)
    if (!entry) return Option.none()
    const reference = Money.unsafe(entry.reference)
    return Option.some(entry.inverted ? Money.divide(Money.one, reference) : reference)
  }
  return {
    corridor: (direction) =>
      Effect.sync(() => {
        const p = marketPair(direction)
        const entry = table.pairs[`${p.base}/${p.quote}`]
        const baseRate = table.rates[p.inverted ? p.quote : p.base]
        const quoteRate = table.rates[p.inverted ? p.base : p.quote]
        if (!entry || baseRate === undefined || quoteRate === undefined) return Option.none()
        const reference = Money.unsafe(entry.reference)
        const limitInMarketBase = Money.unsafe(entry.notionalLimitBase)
        return Option.some({
          referenceRate: p.inverted ? Money.divide(Money.one, reference) : reference,
          volatility: entry.volatility,
          base: { currency: p.inverted ? p.quote : p.base, rate: baseRate },
          quote: { currency: p.inverted ? p.base : p.quote, rate: quoteRate },
          // the limit is set on the market pair's base; an inverted direction's base is its quote
          notionalLimitBase: p.inverted ? Money.multiply(limitInMarketBase, reference) : limitInMarketBase
        })
      }),
    midRate: (base, quote) => Effect.sync(() => mid(base, quote))
  }
}

export class MarketData extends Context.Service<MarketData, MarketDataShape>()("@ratelock/core/MarketData") {
  /** A fixed table of parameters (configuration, not a live feed). */
  static readonly layerStatic = (table: StaticTable) => Layer.succeed(MarketData, MarketData.of(fromTable(table)))

  /** The illustrative defaults of pricing.md. */
  static readonly layerDefaults = MarketData.layerStatic(defaultTable())
}
