// The hot wallets that pay the payouts, from GET /operator/v1/treasury: per chain and asset the
// balance the workers last read against its threshold, the payouts due and whether the wallet can
// pay them; the payouts stuck on the fee cap or on funds; the sweeps, the refunds waiting and the
// last reconciliation; and the status's alerts about them.

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

const sweeps = (t, environment) =>
  card(
    "Sweeps",
    t.sweeps.some((w) => w.funding_keys === "watch_only" && w.awaiting_sweep > 0) ? "bad" : "ok",
    routes.treasury(environment),
    table(
      "Funds waiting on funding addresses for a sweep into the hot wallet (below its float) or the treasury, and today's (UTC) sweeps and refunds",
      [
        { head: "Chain", cell: (w) => w.chain },
        { head: "Token", cell: (w) => w.token },
        {
          head: "Keys",
          cell: (w) =>
            w.funding_keys === "watch_only" ? h("span", { class: "flag" }, "watch only") : (w.funding_keys ?? "—")
        },
        {
          head: "Awaiting sweep",
          numeric: true,
          cell: (w, i) => figure(source, `sweeps.${i}.awaiting_sweep`, w.awaiting_sweep, "count")
        },
        {
          head: "Amount",
          numeric: true,
          cell: (w, i) => figure(source, `sweeps.${i}.awaiting_sweep_amount`, w.awaiting_sweep_amount)
        },
        { head: "Float", numeric: true, cell: (w) => w.hot_wallet_float ?? "—" },
        {
          head: "Treasury",
          numeric: true,
          cell: (w, i) =>
            w.treasury_address === null
              ? "—"
              : h(
                  "span",
                  { title: w.treasury_address },
                  figure(source, `sweeps.${i}.treasury_balance`, w.treasury_balance)
                )
        },
        {
          head: "Swept today",
          numeric: true,
          cell: (w, i) => figure(source, `sweeps.${i}.swept_today`, w.swept_today)
        },
        {
          head: "Refunded today",
          numeric: true,
          cell: (w, i) => figure(source, `sweeps.${i}.refunded_today`, w.refunded_today)
        }
      ],
      t.sweeps,
      { id: "sweeps", empty: "no chain is served in this environment." }
    ),
    ...t.fees.map((f) => h("p", {}, `Network fees today on ${f.chain}: ${f.fees_today} ${f.currency}`))
  )

const refunds = (t, environment) =>
  card(
    "Refunds waiting",
    t.refunds_waiting.some((r) => r.status === "failed" || r.waiting === "no_refund_address") ? "bad" : "ok",
    routes.treasury(environment),
    table(
      "Deposits and funds owed back to partners, not yet landed on their refund address, and why",
      [
        { head: "Chain", cell: (r) => r.chain },
        { head: "Token", cell: (r) => r.token },
        { head: "Purpose", cell: (r) => r.purpose },
        { head: "Amount", numeric: true, cell: (r, i) => figure(source, `refunds_waiting.${i}.amount`, r.amount) },
        { head: "Status", cell: (r) => r.status },
        { head: "Waiting", cell: (r) => h("span", { title: r.last_error ?? "" }, r.waiting ?? "—") },
        { head: "Contract", cell: (r) => r.contract_id }
      ],
      t.refunds_waiting,
      { id: "refunds-waiting", empty: "none: every refund has landed." }
    )
  )

const reconciliation = (t, environment) =>
  card(
    "Reconciliation",
    t.reconciliation.some((r) => r.differences.length > 0 || r.error !== null) ? "bad" : "ok",
    routes.treasury(environment),
    table(
      "The books against the chain at the last reconciliation of each chain: every difference, and since when",
      [
        { head: "Chain", cell: (d) => d.chain },
        { head: "Wallet", cell: (d) => h("span", { title: d.address }, d.wallet) },
        { head: "Currency", cell: (d) => d.currency },
        { head: "Books", numeric: true, cell: (d) => d.ledger },
        { head: "Chain", numeric: true, cell: (d) => d.on_chain },
        { head: "Difference", numeric: true, cell: (d) => h("span", { class: "flag" }, d.difference) },
        { head: "Since", cell: (d) => d.since }
      ],
      t.reconciliation.flatMap((r) => r.differences.map((d) => ({ ...d, chain: r.chain }))),
      {
        id: "reconciliation",
        empty:
          t.reconciliation.length === 0
            ? "not reconciled yet (every 10 minutes, or `ratelock treasury reconcile`)."
            : `no difference (last run ${t.reconciliation.map((r) => `${r.chain} ${r.at}`).join(", ")}).`
      }
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
  h(
    "div",
    { class: "grid pipes" },
    wallets(treasuryData, environment),
    stuck(treasuryData, environment),
    sweeps(treasuryData, environment),
    refunds(treasuryData, environment),
    reconciliation(treasuryData, environment)
  )
]
