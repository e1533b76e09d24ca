// The hot wallets that pay the payouts, from GET /operator/v1/treasury: per chain and asset the
// balance the workers last read against its threshold, the payouts due and whether the wallet can
// pay them; the payouts stuck on the fee cap or on funds; and the status's alerts about them.

import { routes } from "./api.js"
import { age, figure, h, table } from "./format.js"
import { jsonLink } from "./pipes.js"

const source = "treasury"

const card = (title, state, path, ...body) =>
  h("article", { class: `card pipe wide ${state}` }, h("h3", {}, title, " ", jsonLink(path)), ...body)

/** Low (under its threshold), ok, or unknown (no threshold, or never read). */
const level = (w) => (w.below_min === true ? "LOW" : w.below_min === false ? "ok" : "—")

const yesNo = (value) => (value === null ? "—" : value ? "yes" : h("span", { class: "flag" }, "no"))

const wallets = (t, environment) =>
  card(
    "Hot wallets",
    t.wallets.some((w) => w.below_min === true || w.can_pay === false) ? "bad" : "ok",
    routes.treasury(environment),
    table(
      "Each chain's hot wallet as the workers last read it (once a minute), against its threshold and the payouts due",
      [
        { head: "Chain", cell: (w) => h("span", { title: w.address ?? "no hot wallet read" }, w.chain) },
        { head: "Asset", cell: (w) => w.asset },
        {
          head: "Balance",
          numeric: true,
          cell: (w, i) => (w.balance === null ? "—" : figure(source, `wallets.${i}.balance`, w.balance))
        },
        {
          head: "Threshold",
          numeric: true,
          cell: (w, i) => (w.min_balance === null ? "—" : figure(source, `wallets.${i}.min_balance`, w.min_balance))
        },
        {
          head: "Level",
          cell: (w) => (w.below_min === true ? h("span", { class: "flag" }, level(w)) : level(w))
        },
        { head: "Read", numeric: true, cell: (w) => (w.age_seconds === null ? "never" : `${age(w.age_seconds)} ago`) },
        {
          head: "Payouts due",
          numeric: true,
          cell: (w, i) => figure(source, `wallets.${i}.payouts_due`, w.payouts_due, "count")
        },
        {
          head: "They need",
          numeric: true,
          cell: (w, i) => figure(source, `wallets.${i}.payouts_due_amount`, w.payouts_due_amount)
        },
        { head: "Can pay", cell: (w) => yesNo(w.can_pay) }
      ],
      t.wallets,
      {
        id: "hot-wallets",
        empty:
          environment === "sandbox"
            ? "the sandbox's simulated chains have no hot wallet, and no payout is due."
            : "no hot wallet read yet and no payout due."
      }
    )
  )

const stuck = (t, environment) =>
  card(
    "Payouts stuck",
    t.stuck_payouts.length > 0 ? "bad" : "ok",
    routes.treasury(environment),
    table(
      "Payouts waiting on the fee cap or on the hot wallet's funds, per chain",
      [
        { head: "Chain", cell: (s) => s.chain },
        { head: "Stuck", numeric: true, cell: (s, i) => figure(source, `stuck_payouts.${i}.stuck`, s.stuck, "count") },
        {
          head: "Over the fee cap",
          numeric: true,
          cell: (s, i) => figure(source, `stuck_payouts.${i}.fee_cap`, s.fee_cap, "count")
        },
        {
          head: "Short of funds",
          numeric: true,
          cell: (s, i) => figure(source, `stuck_payouts.${i}.insufficient_funds`, s.insufficient_funds, "count")
        },
        { head: "Oldest", numeric: true, cell: (s) => age(s.oldest_stuck_age_seconds) }
      ],
      t.stuck_payouts,
      { id: "stuck-payouts", empty: "none: every payout signed is paying what the chain asks." }
    )
  )

/** The status's alerts of `environment`, in its words. */
const alerts = (status, environment) => {
  if (status === undefined) return null
  const mine = status.alerts.map((a, i) => [a, i]).filter(([a]) => a.environment === environment)
  if (mine.length === 0) return null
  return h(
    "ul",
    { class: "alerts", id: "treasury-alerts" },
    mine.map(([a, i]) => h("li", {}, figure("status", `alerts.${i}.message`, a.message, "text")))
  )
}

/** The hot wallets section's content for `environment`. */
export const treasury = (environment, treasuryData, status) => [
  alerts(status, environment),
  h("div", { class: "grid pipes" }, wallets(treasuryData, environment), stuck(treasuryData, environment))
]
