// The strip under the bar: one line per concern, each coloured by its state, said in words, and
// linking to its section. What someone glancing at the screen needs to know is here.

import { level } from "./limits.js"
import { age, count, figure, h } from "./format.js"

const item = (href, label, state, ...value) =>
  h(
    "a",
    { class: `glance-item ${state}`, href },
    h("span", { class: "glance-label" }, label),
    h("span", { class: "glance-value" }, ...value)
  )

const unknown = (href, label) => item(href, label, "unknown", "unavailable")

/** The strip for `environment`, from whatever sources answered (`undefined`: not read, or failing). */
export const glance = (environment, { status, risk, deliveries, hedgeOrders, treasury }) => {
  const items = []
  if (status === undefined) items.push(unknown("#market", "Market"))
  else if (status.market === null) items.push(item("#market", "Market", "bad", "no snapshot"))
  else
    items.push(
      item(
        "#market",
        "Market",
        status.market.fresh ? "ok" : "bad",
        status.market.fresh ? "fresh" : "stale",
        `, ${age(status.market.age_seconds)} old`
      )
    )
  if (risk === undefined) items.push(unknown("#book", "Book"), unknown("#limits", "Limits"))
  else {
    const worst = risk.stress[0]
    items.push(
      item("#book", "MTM", "info", figure("risk", "mtm_usd", risk.mtm_usd), " USD"),
      item(
        "#book",
        "Worst stress",
        "info",
        worst === undefined ? "none" : [figure("risk", "stress.0.mtm_change_usd", worst.mtm_change_usd), " USD"]
      )
    )
    const over = risk.limits.filter((c) => c.usage.some((u) => level(u.ratio) === "over")).length
    items.push(
      item("#limits", "Limits", over > 0 ? "bad" : "ok", over > 0 ? `${count(over)} over 90 %` : "none over 90 %")
    )
  }
  const e = status?.environments.findIndex((x) => x.environment === environment) ?? -1
  if (e < 0) items.push(unknown("#pipes", "Outbox"), unknown("#pipes", "Payouts"))
  else {
    const env = status.environments[e]
    items.push(
      item(
        "#pipes",
        "Outbox",
        env.outbox.undelivered > 0 ? "warn" : "ok",
        figure("status", `environments.${e}.outbox.undelivered`, env.outbox.undelivered, "count"),
        " undelivered"
      ),
      item(
        "#pipes",
        "Payouts failed",
        env.payouts.failed > 0 ? "bad" : "ok",
        figure("status", `environments.${e}.payouts.failed`, env.payouts.failed, "count")
      )
    )
  }
  items.push(
    deliveries === undefined
      ? unknown("#pipes", "Webhooks")
      : item(
          "#pipes",
          "Webhooks",
          deliveries.partners.length > 0 ? "bad" : "ok",
          deliveries.partners.length === 0
            ? "all getting through"
            : `${count(deliveries.partners.length)} partner${deliveries.partners.length === 1 ? "" : "s"} failing`
        ),
    hedgeOrders === undefined
      ? unknown("#pipes", "Hedge orders")
      : item(
          "#pipes",
          "Hedge orders",
          hedgeOrders.items.length > 0 ? "warn" : "ok",
          `${count(hedgeOrders.items.length)} waiting`
        )
  )
  if (treasury === undefined) items.push(unknown("#treasury", "Hot wallets"))
  else {
    const low = treasury.wallets.filter((w) => w.below_min === true).length
    const unpaid = treasury.wallets.filter((w) => w.can_pay === false).length
    const stuck = treasury.stuck_payouts.reduce((n, s) => n + s.stuck, 0)
    items.push(
      item(
        "#treasury",
        "Hot wallets",
        low > 0 || unpaid > 0 ? "bad" : "ok",
        low > 0
          ? `${count(low)} under threshold`
          : unpaid > 0
            ? `${count(unpaid)} cannot pay what is due`
            : treasury.wallets.some((w) => w.balance !== null)
              ? "funded"
              : "none read"
      ),
      item("#treasury", "Payouts stuck", stuck > 0 ? "bad" : "ok", count(stuck))
    )
  }
  return h("nav", { class: "glance", "aria-label": `${environment} at a glance` }, items)
}
