/**
 * What the `ratelock hedge …` commands print: aligned text, or with `--json` the operator views
 * of core (`HedgePolicy.view`, `HedgeOrder.view`), decimals as strings.
 */
import { Corridor, type HedgeDesk, HedgeOrder, HedgePolicy, Money } from "@ratelock/core"
import { DateTime } from "effect"
import { table } from "./table.ts"

const instrumentOf = (p: { readonly instrument: string; readonly valueDays: number | null }) =>
  p.instrument === "forward" ? `forward ${p.valueDays}d` : "spot"

export const policySet = (p: HedgePolicy.HedgePolicy): string => {
  const { base } = Corridor.marketPairCurrencies(p.pair)
  return (
    `Hedge policy set for ${p.pair} in ${p.environment}: hedge ${Money.format(p.targetRatio)} of the delta ` +
    `when the position strays more than ${Money.format(p.band)} ${base} from target, with ${instrumentOf(p)} orders.`
  )
}

/** `policy show --json`: each policy with its pair's position and outstanding order. */
export const policiesJson = (list: ReadonlyArray<HedgeDesk.PolicyStatus>) =>
  list.map((s) => ({
    ...HedgePolicy.view(s.policy),
    position: Money.format(s.position),
    outstanding_order: s.outstanding === null ? null : HedgeOrder.view(s.outstanding)
  }))

export const policies = (list: ReadonlyArray<HedgeDesk.PolicyStatus>): string => {
  if (list.length === 0) {
    return "No hedge policies. Set one: pnpm ratelock hedge policy set --environment E --pair USD/BRL --band 50000 --instrument spot"
  }
  return table(
    ["ENVIRONMENT", "PAIR", "TARGET_RATIO", "BAND", "INSTRUMENT", "POSITION", "OUTSTANDING"],
    list.map((s) => [
      s.policy.environment,
      s.policy.pair,
      Money.format(s.policy.targetRatio),
      Money.format(s.policy.band),
      instrumentOf(s.policy),
      Money.format(s.position),
      s.outstanding === null
        ? "-"
        : `${s.outstanding.id} ${s.outstanding.status} ${s.outstanding.side} ${Money.format(s.outstanding.amount)}`
    ])
  )
}

export const ordersJson = (orders: ReadonlyArray<HedgeOrder.HedgeOrder>) => orders.map(HedgeOrder.view)

export const orders = (list: ReadonlyArray<HedgeOrder.HedgeOrder>): string => {
  if (list.length === 0) return "No hedge orders."
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
    list.map((o) => [
      o.id,
      DateTime.formatIso(o.createdAt),
      o.environment,
      o.pair,
      o.side,
      Money.format(o.amount),
      o.instrument,
      o.valueDate,
      o.venue,
      o.status,
      o.status === "filled"
        ? `${Money.format(o.fillAmount!)} at ${Money.format(o.fillRate!)}`
        : o.status === "rejected"
          ? o.rejectionReason!
          : "-"
    ])
  )
}

export const filled = (o: HedgeOrder.HedgeOrder): string => {
  const { base, quote } = Corridor.marketPairCurrencies(o.pair)
  return `Hedge order ${o.id} filled: ${o.side === "buy" ? "bought" : "sold"} ${Money.format(o.fillAmount!)} ${base} at ${Money.format(o.fillRate!)} ${quote}.`
}

export const rejected = (o: HedgeOrder.HedgeOrder): string =>
  `Hedge order ${o.id} rejected (${o.rejectionReason}); the next hedging pass decides anew.`

export const armed = (r: { readonly armed: string; readonly hedging: string }): string => {
  const what =
    r.armed === "reject"
      ? "The simulated venue will reject the next new order."
      : "The simulated venue will fill the next new order but answer it with a timeout."
  return r.hedging === "simulated"
    ? what
    : `${what} (This deployment's RATELOCK_HEDGING is ${r.hedging}: no order goes to the simulated venue.)`
}
