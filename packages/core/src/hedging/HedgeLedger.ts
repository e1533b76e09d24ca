/**
 * The ledger of the book's hedges: what each fill moves, in the corridors' currencies rather than
 * in tokens. Debits are positive, credits negative; the entries of one fill sum to zero per
 * currency (`Ledger.balances` sums them).
 */
import { Schema } from "effect"
import { Currency, marketPairCurrencies } from "../kernel/Corridor.ts"
import * as Money from "../kernel/Money.ts"
import { entryFields } from "../lifecycle/Ledger.ts"
import { Environment } from "../terms/Partner.ts"
import { type HedgeOrder, signedFill } from "./HedgeOrder.ts"

/**
 * The accounts of hedge fills: `hedge_position`, the currencies the service bought and sold on
 * its hedge venues (its side of the hedges); `hedge_venue`, what it owes the venues or they owe
 * it for them, until they settle on the value date (off this ledger, as the chains' wallets are
 * funded off it).
 */
export const HedgeAccount = Schema.Literals(["hedge_position", "hedge_venue"])
export type HedgeAccount = typeof HedgeAccount.Type

export const HedgeEntryKind = Schema.Literals(["hedge_filled"])
export type HedgeEntryKind = typeof HedgeEntryKind.Type

export const HedgeLedgerEntry = Schema.Struct({
  orderId: Schema.String,
  environment: Environment,
  /** The market pair, `USD/BRL`. */
  pair: Schema.String,
  ...entryFields(HedgeEntryKind, HedgeAccount, Currency)
}).annotate({ identifier: "HedgeLedgerEntry" })
export type HedgeLedgerEntry = typeof HedgeLedgerEntry.Type

/**
 * What a filled hedge order books: a buy of `A` BASE at rate `r` takes `A` BASE into
 * `hedge_position` from `hedge_venue` and pays `A × r` QUOTE (exact, unrounded) out of
 * `hedge_position` to `hedge_venue`; a sell the reverse. Each currency sums to zero. Nothing for
 * an order that is not filled.
 */
export const hedgeFillEntries = (order: HedgeOrder): ReadonlyArray<HedgeLedgerEntry> => {
  if (order.status !== "filled" || order.fillAmount === null || order.fillRate === null || order.filledAt === null) {
    return []
  }
  const { base, quote } = marketPairCurrencies(order.pair)
  const entry = (account: HedgeAccount, currency: Currency, amount: Money.Decimal): HedgeLedgerEntry => ({
    orderId: order.id,
    environment: order.environment,
    pair: order.pair,
    kind: "hedge_filled",
    account,
    currency,
    amount,
    at: order.filledAt!
  })
  // what the fill adds to the position, as the position itself counts it
  const bought = signedFill(order)
  if (Money.isZero(bought)) return []
  const paid = Money.multiply(bought, order.fillRate)
  return [
    entry("hedge_position", base, bought),
    entry("hedge_venue", base, Money.subtract(Money.zero, bought)),
    entry("hedge_venue", quote, paid),
    entry("hedge_position", quote, Money.subtract(Money.zero, paid))
  ]
}
