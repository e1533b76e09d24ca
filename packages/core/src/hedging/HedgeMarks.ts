/**
 * Hedge P&L (risk.md, Hedging): each filled order marked at the snapshot's forward for its value
 * date. A buy of `a` BASE at rate `r` is worth `a × (F(value date) − r)` in the pair's QUOTE now; a
 * sell the opposite. Model floats: the figure crosses into a decimal once, where it is reported.
 */
import { DateTime, Option } from "effect"
import { directions, marketPair, marketPairKey } from "../kernel/Corridor.ts"
import * as DiscountCurve from "../market/DiscountCurve.ts"
import type { HedgeOrder } from "./HedgeOrder.ts"
import * as MarketSnapshot from "../market/MarketSnapshot.ts"
import * as Money from "../kernel/Money.ts"

/** The direction quoted as `pair` is written (USD/BRL → USD_TO_BRL), whose curves give the pair's forward. */
const directionOf = (pair: string) => directions.find((d) => marketPairKey(d) === pair && !marketPair(d).inverted)

/** The pair's forward from the snapshot's spot to `valueDate` (`YYYY-MM-DD`, at midday UTC); none without data. */
export const forward = (
  snapshot: MarketSnapshot.MarketSnapshot,
  pair: string,
  valueDate: string
): Option.Option<number> => {
  const direction = directionOf(pair)
  if (direction === undefined) return Option.none()
  return Option.map(
    Option.all({ spot: MarketSnapshot.spot(snapshot, pair), curves: DiscountCurve.forDirection(snapshot, direction) }),
    ({ spot, curves }) =>
      DiscountCurve.forward({
        spot: Money.toModel(spot),
        domestic: curves.domestic,
        foreign: curves.foreign,
        from: snapshot.as_of,
        to: Math.max(snapshot.as_of.epochMilliseconds, DateTime.makeUnsafe(`${valueDate}T12:00:00Z`).epochMilliseconds)
      })
  )
}

/** The P&L of a pair's filled orders in its QUOTE, marked at the snapshot's forwards; 0 with no fill. */
export const pnl = (
  snapshot: MarketSnapshot.MarketSnapshot,
  orders: ReadonlyArray<Pick<HedgeOrder, "pair" | "status" | "side" | "fillAmount" | "fillRate" | "valueDate">>
): number => {
  let total = 0
  for (const order of orders) {
    if (order.status !== "filled" || order.fillAmount === null || order.fillRate === null) continue
    const mark = forward(snapshot, order.pair, order.valueDate)
    if (Option.isNone(mark)) continue
    const signed = (order.side === "buy" ? 1 : -1) * Money.toModel(order.fillAmount)
    total += signed * (mark.value - Money.toModel(order.fillRate))
  }
  return total
}
