/**
 * What the `ratelock hedge …` commands print without `--json`, made from the JSON they print with
 * it (core's operator views: `HedgePolicy.view`, `HedgeDesk.statusView`, `HedgeOrder.view`), which
 * is also the operator API's answer: so the text reads the same in both modes.
 */
import { Corridor, type HedgeDesk, type HedgeOrder, type HedgePolicy } from "@ratelock/core"
import { table } from "./table.ts"

type PolicyView = typeof HedgePolicy.HedgePolicyView.Encoded
type PolicyStatusView = typeof HedgeDesk.PolicyStatusView.Encoded
type OrderView = typeof HedgeOrder.HedgeOrderView.Encoded

const instrumentOf = (p: { readonly instrument: string; readonly value_days: number | null }) =>
  p.instrument === "forward" ? `forward ${p.value_days}d` : "spot"

export const policySet = (p: PolicyView): string => {
  const { base } = Corridor.marketPairCurrencies(p.pair)
  return (
    `Hedge policy set for ${p.pair} in ${p.environment}: hedge ${p.target_ratio} of the delta ` +
    `when the position strays more than ${p.band} ${base} from target, with ${instrumentOf(p)} orders.`
  )
}

export const policies = (shown: { readonly items: ReadonlyArray<PolicyStatusView> }): string => {
  if (shown.items.length === 0) {
    return "No hedge policies. Set one: pnpm ratelock hedge policy set --environment E --pair USD/BRL --band 50000 --instrument spot"
  }
  return table(
    ["ENVIRONMENT", "PAIR", "TARGET_RATIO", "BAND", "INSTRUMENT", "POSITION", "OUTSTANDING"],
    shown.items.map((s) => [
      s.environment,
      s.pair,
      s.target_ratio,
      s.band,
      instrumentOf(s),
      s.position,
      s.outstanding_order === null
        ? "-"
        : `${s.outstanding_order.id} ${s.outstanding_order.status} ${s.outstanding_order.side} ${s.outstanding_order.amount}`
    ])
  )
}

export const orders = (shown: { readonly items: ReadonlyArray<OrderView> }): string => {
  if (shown.items.length === 0) return "No hedge orders."
  return table(
    [
      "ID",
      "CREATED",
      "ENVIRONMENT",
      "PAIR",
      "SIDE",
      "AMOUNT",
      "INSTRUMENT",
      "VALUE_DATE",
      "VENUE",
      "STATUS",
      "OUTCOME"
    ],
    shown.items.map((o) => [
      o.id,
      o.created_at,
      o.environment,
      o.pair,
      o.side,
      o.amount,
      o.instrument,
      o.value_date,
      o.venue,
      o.status,
      o.status === "filled" ? `${o.fill_amount} at ${o.fill_rate}` : o.status === "rejected" ? o.rejection_reason! : "-"
    ])
  )
}

export const filled = (o: OrderView): string => {
  const { base, quote } = Corridor.marketPairCurrencies(o.pair)
  return `Hedge order ${o.id} filled: ${o.side === "buy" ? "bought" : "sold"} ${o.fill_amount} ${base} at ${o.fill_rate} ${quote}.`
}

export const rejected = (o: OrderView): string =>
  `Hedge order ${o.id} rejected (${o.rejection_reason}); the next hedging pass decides anew.`

export const armed = (r: { readonly armed: string; readonly hedging: string }): string => {
  const what =
    r.armed === "reject"
      ? "The simulated venue will reject the next new order."
      : "The simulated venue will fill the next new order but answer it with a timeout."
  return r.hedging === "simulated"
    ? what
    : `${what} (This deployment's RATELOCK_HEDGING is ${r.hedging}: no order goes to the simulated venue.)`
}
