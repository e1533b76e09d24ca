/**
 * The realised P&L of a pair's hedge fills, at average cost: a fill that adds to the position (or opens it)
 * raises its cost; a fill that reduces it realises `reduced × (fill rate − average cost)` on a long position
 * (the opposite on a short one), and leaves the rest at the same average cost; a fill that crosses zero closes
 * the old position and opens the remainder at its own rate. In the pair's QUOTE, exact but for the average cost's
 * one division, rounded to the token unit. What is not realised stays in the orders' marks (`HedgeMarks`).
 */
import { BigDecimal } from "effect"
import * as Money from "../kernel/Money.ts"
import { type HedgeOrder, signedFill } from "./HedgeOrder.ts"

type Fill = Pick<HedgeOrder, "id" | "status" | "side" | "fillAmount" | "fillRate" | "filledAt">

const round = (value: Money.Decimal) => BigDecimal.round(value, { scale: Money.tokenScale, mode: "half-even" })

/** The realised P&L of `fills` (one pair's), taken in fill order (`filledAt`, then id). */
export const realised = (fills: ReadonlyArray<Fill>): Money.Decimal => {
  const ordered = fills
    .filter((f) => f.status === "filled" && f.fillAmount !== null && f.fillRate !== null && f.filledAt !== null)
    .sort((a, b) => a.filledAt!.epochMilliseconds - b.filledAt!.epochMilliseconds || (a.id < b.id ? -1 : 1))
  let position = Money.zero
  // what the open position cost, QUOTE: position × its average rate, kept exact
  let cost = Money.zero
  let total = Money.zero
  for (const fill of ordered) {
    const amount = signedFill(fill)
    const rate = fill.fillRate!
    const reduces = !Money.isZero(position) && BigDecimal.sign(amount) !== BigDecimal.sign(position)
    if (!reduces) {
      position = Money.sum(position, amount)
      cost = Money.sum(cost, Money.multiply(amount, rate))
      continue
    }
    const closed = Money.min(BigDecimal.abs(amount), BigDecimal.abs(position))
    const closedSigned = BigDecimal.sign(position) > 0 ? closed : Money.subtract(Money.zero, closed)
    // the closed part's share of the cost, at the average rate
    const closedCost = Money.divide(Money.multiply(cost, closedSigned), position)
    total = Money.sum(total, Money.subtract(Money.multiply(closedSigned, rate), closedCost))
    position = Money.subtract(position, closedSigned)
    cost = Money.isZero(position) ? Money.zero : Money.subtract(cost, closedCost)
    const opened = Money.sum(amount, closedSigned)
    if (!Money.isZero(opened)) {
      position = Money.sum(position, opened)
      cost = Money.sum(cost, Money.multiply(opened, rate))
    }
  }
  return round(total)
}
