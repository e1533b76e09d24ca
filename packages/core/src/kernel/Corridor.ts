/**
 * Currency corridors. A direction `BASE_TO_QUOTE` is quoted as QUOTE per 1 BASE, exactly as
 * written (`USD_TO_BRL` ≈ 5.4). The customer sells BASE and buys QUOTE.
 */
import { Schema } from "effect"
import * as Money from "./Money.ts"

export const Currency = Schema.Literals(["USD", "BRL", "MXN", "EUR", "NGN"])
export type Currency = typeof Currency.Type

/** Currencies a notional may be written in (the spec's list; NGN is a corridor currency only). */
export const NotionalCurrency = Schema.Literals(["USD", "BRL", "MXN", "EUR"])
export type NotionalCurrency = typeof NotionalCurrency.Type

/** The union of the spec's schema list and prose list: 9 directions. */
export const directions = [
  "BRL_TO_USD",
  "USD_TO_BRL",
  "BRL_TO_EUR",
  "BRL_TO_MXN",
  "USD_TO_EUR",
  "EUR_TO_USD",
  "NGN_TO_USD",
  "USD_TO_MXN",
  "MXN_TO_USD"
] as const
export const Direction = Schema.Literals(directions)
export type Direction = typeof Direction.Type

export interface Pair {
  readonly base: Currency
  readonly quote: Currency
}

export const pair = (direction: Direction): Pair => {
  const [base, quote] = direction.split("_TO_") as [Currency, Currency]
  return { base, quote }
}

/**
 * An amount written in `currency` (a side of `direction`) in BASE units: as it is when written in
 * BASE, else divided by `rate` (QUOTE per BASE).
 */
export const inBase = (amount: Money.Decimal, currency: Currency, direction: Direction, rate: Money.Decimal) =>
  currency === pair(direction).base ? amount : Money.divide(amount, rate)

/** `true` when the currency is one side of the direction. */
export const includes = (direction: Direction, currency: Currency): boolean => {
  const { base, quote } = pair(direction)
  return currency === base || currency === quote
}

/** The market pair a direction trades on, in its usual quoting order (`BRL_TO_USD` → USD/BRL). */
const marketPairs: ReadonlyArray<readonly [Currency, Currency]> = [
  ["EUR", "USD"],
  ["USD", "BRL"],
  ["USD", "MXN"],
  ["USD", "NGN"],
  ["EUR", "BRL"],
  ["BRL", "MXN"]
]

export interface MarketPair {
  readonly base: Currency
  readonly quote: Currency
  /** `true` when the direction is the inverse of the usual quote (`BRL_TO_USD` on USD/BRL). */
  readonly inverted: boolean
}

export const marketPair = (direction: Direction): MarketPair => {
  const { base, quote } = pair(direction)
  for (const [b, q] of marketPairs) {
    if (b === base && q === quote) return { base: b, quote: q, inverted: false }
    if (b === quote && q === base) return { base: b, quote: q, inverted: true }
  }
  return { base, quote, inverted: false }
}

/** `EUR/USD` style key of the market pair, for configuration tables. */
export const marketPairKey = (direction: Direction): string => {
  const p = marketPair(direction)
  return `${p.base}/${p.quote}`
}

const unique = <A>(items: ReadonlyArray<A>): ReadonlyArray<A> => [...new Set(items)]

/** The market pairs of the corridors served (`marketPair` of every direction), each once. */
export const servedPairs: ReadonlyArray<string> = unique(directions.map(marketPairKey))

/** The currencies of the corridors served, each once. */
export const servedCurrencies: ReadonlyArray<Currency> = unique(
  directions.flatMap((direction) => {
    const p = marketPair(direction)
    return [p.base, p.quote]
  })
)

/** A market pair's key in its usual order (`USD/BRL`), one the service quotes on: what the book and hedges are kept by. */
export const MarketPairKey = Schema.String.check(
  Schema.makeFilter(
    (s: string) => servedPairs.includes(s) || `a market pair in its usual order: one of ${servedPairs.join(", ")}`
  )
)

/** The BASE and QUOTE currencies of a market pair key (`USD/BRL` → USD, BRL). */
export const marketPairCurrencies = (key: string): { readonly base: Currency; readonly quote: Currency } => {
  const [base, quote] = key.split("/") as [Currency, Currency]
  return { base, quote }
}

/**
 * How a locked rate is rounded: a number of decimals for pairs in their usual order
 * (EUR/USD 5, NGN pairs 2, the rest 4), or significant digits for inverted pairs.
 */
export type RatePrecision =
  | { readonly _tag: "Decimals"; readonly decimals: number }
  | {
      readonly _tag: "Significant"
      readonly digits: number
    }

export const ratePrecision = (direction: Direction): RatePrecision => {
  const p = marketPair(direction)
  if (p.inverted) return { _tag: "Significant", digits: 10 }
  return { _tag: "Decimals", decimals: marketPairDecimals(p) }
}

/** The decimals a market pair in its usual order is quoted with: EUR/USD 5, NGN pairs 2, the rest 4. */
export const marketPairDecimals = (p: Pair): number => {
  if (p.base === "EUR" && p.quote === "USD") return 5
  if (p.base === "NGN" || p.quote === "NGN") return 2
  return 4
}
