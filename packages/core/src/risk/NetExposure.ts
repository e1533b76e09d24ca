/**
 * Net currency exposure with the hedges (risk.md, Figures): the book's exposure from its deltas
 * (`RiskReport.CurrencyExposure`, what `Risk.report` gives, which knows no hedge) plus each pair's
 * hedge position. The operator's report (`RiskDesk.report`) applies it where the positions are read.
 *
 * Signs, as `HedgePolicy` has them: a pair's delta is BASE the book is long (positive for short
 * puts), counted `+delta` in BASE and `−delta × spot` in QUOTE; a hedge position is BASE bought
 * (a sale negative), and it offsets the delta (the residual is `delta + position`). So a position
 * counts as a delta does: `+position` in its BASE, `−position × spot` in its QUOTE, and a fully
 * hedged pair (position ≈ `−delta`) nets to about zero in both currencies.
 *
 * Exact: positions are decimals, countervalues at the pair's spot and USD at the snapshot's mid are
 * decimal products, rounded once per currency to the report's 2 decimals and added to the book's
 * (already rounded) figures.
 */
import { BigDecimal } from "effect"
import { type Currency, marketPairCurrencies } from "../kernel/Corridor.ts"
import * as Money from "../kernel/Money.ts"
import { type CurrencyExposure, figureScale } from "./RiskReport.ts"

/** One pair's hedge position (BASE units, buys positive) and the spot its delta was valued at. */
export interface PairPosition {
  readonly pair: string
  readonly spot: Money.Decimal
  readonly position: Money.Decimal
}

const rounded = (x: Money.Decimal) => BigDecimal.round(x, { scale: figureScale, mode: "half-from-zero" })

/**
 * The book's exposure per currency with the hedge positions added; `usdPer` is USD per 1 unit of a
 * currency at the snapshot's mid. A currency no position touches keeps the book's figures.
 */
export const withHedges = (
  book: ReadonlyArray<CurrencyExposure>,
  positions: ReadonlyArray<PairPosition>,
  usdPer: (currency: Currency) => Money.Decimal
): ReadonlyArray<CurrencyExposure> => {
  const hedged = new Map<Currency, Money.Decimal>()
  const add = (currency: Currency, amount: Money.Decimal) =>
    hedged.set(currency, Money.sum(hedged.get(currency) ?? Money.zero, amount))
  for (const p of positions) {
    const { base, quote } = marketPairCurrencies(p.pair)
    add(base, p.position)
    add(quote, BigDecimal.negate(Money.multiply(p.position, p.spot)))
  }
  return book.map((c) => {
    const units = hedged.get(c.currency)
    if (units === undefined) return c
    return {
      currency: c.currency,
      net_exposure: Money.sum(c.net_exposure, rounded(units)),
      net_exposure_usd: Money.sum(c.net_exposure_usd, rounded(Money.multiply(units, usdPer(c.currency))))
    }
  })
}
