// The book of one environment, from GET /operator/v1/risk: the headline, each pair's figures, each
// pair's delta against its hedge band, the net currency exposure and the stress results.

import { bandChart, hedgeChart, legend, signedBars, tones } from "./charts.js"
import { age, clock, decimal, figure, h, shortId, table, tile, toNumber } from "./format.js"

const source = "risk"
const f = (path, value, format) => figure(source, path, value, format)

/** The worst stress result in words, as the desk would say it. */
const worstInWords = (report) => {
  const worst = report.stress[0]
  if (worst === undefined) return h("p", { class: "worst" }, "No stress scenario ran.")
  const loss = toNumber(worst.mtm_change_usd) < 0
  return h(
    "p",
    { class: loss ? "worst loss" : "worst", id: "worst-stress" },
    loss ? "Worst case: " : "No scenario loses money. The least favourable: ",
    h("strong", {}, worst.name),
    ` (${worst.description}) `,
    loss ? "would lose " : "would change the book's value by ",
    figure(
      source,
      "stress.0.mtm_change_usd",
      loss ? worst.mtm_change_usd.slice(1) : worst.mtm_change_usd,
      "decimal",
      "strong",
      {
        "data-sign": loss ? "negated" : "as-is"
      }
    ),
    " USD."
  )
}

const headline = (r) =>
  h(
    "div",
    { class: "tiles" },
    tile("Open locks", f("open_locks", r.open_locks, "count")),
    tile("Open notional", f("open_notional_usd", r.open_notional_usd), "USD"),
    tile("Mark-to-market", f("mtm_usd", r.mtm_usd), "USD", "what the open locks are worth to the service"),
    tile("Vega", f("vega_usd", r.vega_usd), "USD", "per vol point"),
    tile("Theta", f("theta_usd", r.theta_usd), "USD", "per day"),
    tile("Committed, not funded", f("committed.locks", r.committed.locks, "count"), "locks", [
      f("committed.notional_usd", r.committed.notional_usd),
      " USD"
    ])
  )

const pairColumns = [
  { head: "Pair", cell: (p) => p.pair },
  { head: "Spot", numeric: true, cell: (p, i) => f(`pairs.${i}.spot`, p.spot, "exact") },
  { head: "Open locks", numeric: true, cell: (p, i) => f(`pairs.${i}.open_locks`, p.open_locks, "count") },
  { head: "Open notional (base)", numeric: true, cell: (p, i) => f(`pairs.${i}.open_notional`, p.open_notional) },
  { head: "MTM (quote)", numeric: true, cell: (p, i) => f(`pairs.${i}.mtm`, p.mtm) },
  { head: "MTM (USD)", numeric: true, cell: (p, i) => f(`pairs.${i}.mtm_usd`, p.mtm_usd) },
  { head: "Delta (base)", numeric: true, cell: (p, i) => f(`pairs.${i}.delta`, p.delta) },
  { head: "Gamma (base)", numeric: true, cell: (p, i) => f(`pairs.${i}.gamma`, p.gamma) },
  { head: "Vega (USD)", numeric: true, cell: (p, i) => f(`pairs.${i}.vega_usd`, p.vega_usd) },
  { head: "Theta (USD)", numeric: true, cell: (p, i) => f(`pairs.${i}.theta_usd`, p.theta_usd) }
]

const orderNeeded = (p, i) =>
  p.hedge.order_needed === null
    ? "none"
    : h(
        "span",
        {},
        `${p.hedge.order_needed.side} `,
        f(`pairs.${i}.hedge.order_needed.amount`, p.hedge.order_needed.amount)
      )

const hedgeColumns = [
  { head: "Pair", cell: (p) => p.pair },
  {
    head: "Policy",
    cell: (p) =>
      p.hedge.policy === null
        ? "none: not hedged"
        : `${p.hedge.policy.instrument}${p.hedge.policy.value_days === null ? "" : ` ${p.hedge.policy.value_days} d`}, ratio ${p.hedge.policy.target_ratio}`
  },
  {
    head: "Band",
    numeric: true,
    cell: (p, i) =>
      p.hedge.policy === null ? "—" : h("span", {}, "±", f(`pairs.${i}.hedge.policy.band`, p.hedge.policy.band))
  },
  { head: "Position", numeric: true, cell: (p, i) => f(`pairs.${i}.hedge.position`, p.hedge.position) },
  {
    head: "Target",
    numeric: true,
    cell: (p, i) => (p.hedge.target === null ? "—" : f(`pairs.${i}.hedge.target`, p.hedge.target))
  },
  {
    head: "Residual delta",
    numeric: true,
    cell: (p, i) => f(`pairs.${i}.hedge.residual_delta`, p.hedge.residual_delta)
  },
  { head: "Order needed", cell: orderNeeded },
  { head: "Hedge P&L (USD)", numeric: true, cell: (p, i) => f(`pairs.${i}.hedge.pnl_usd`, p.hedge.pnl_usd) },
  {
    head: "Orders today",
    numeric: true,
    cell: (p, i) => f(`pairs.${i}.hedge.orders_today`, p.hedge.orders_today, "count")
  },
  { head: "Waiting order", cell: (p) => (p.hedge.pending_order === null ? "none" : shortId(p.hedge.pending_order)) }
]

/** Whether a pair has anything to draw: exposure, a position or a policy. */
const active = (p) => p.open_locks > 0 || toNumber(p.delta) !== 0 || toNumber(p.hedge.position) !== 0

/** The band in words, beside each pair's chart. */
const bandInWords = (p) => {
  const base = p.pair.split("/")[0]
  const parts = [
    `Delta ${decimal(p.delta)} ${base}, hedge ${decimal(p.hedge.position)}, residual ${decimal(p.hedge.residual_delta)}.`
  ]
  if (p.hedge.policy === null) parts.push("No hedge policy: nothing is hedged.")
  else {
    const inside = p.hedge.order_needed === null
    parts.push(
      inside
        ? `Within its band of ±${decimal(p.hedge.policy.band)} around the target.`
        : `Outside its band of ±${decimal(p.hedge.policy.band)}: the policy would ${p.hedge.order_needed.side} ${decimal(p.hedge.order_needed.amount)} ${base}.`
    )
    if (p.hedge.pending_order !== null)
      parts.push(`Order ${shortId(p.hedge.pending_order)} is waiting for its outcome.`)
  }
  return h("p", { class: "chart-text" }, parts.join(" "))
}

const hedgeCharts = (r, later) => {
  const drawn = r.pairs.filter(active)
  const idle = r.pairs.filter((p) => !active(p)).map((p) => p.pair)
  if (drawn.length === 0) return h("p", { class: "empty" }, "No pair has open locks or a hedge position.")
  return h(
    "div",
    {},
    h(
      "p",
      { class: "key" },
      legend(
        ["long: gains when the rate rises", "short", "hedge band", "target"],
        [tones.long, tones.short, tones.band, tones.target]
      ),
      "Bars in base units. The residual (delta + hedge position) must stay in the shaded band, shown again under each pair zoomed to the band; the dashed tick is the position the policy aims at."
    ),
    h(
      "div",
      { class: "grid small-multiples" },
      drawn.map((p) => {
        const box = h("div", { class: "chart-box" })
        later.push(() => hedgeChart(box, p))
        const zoom = p.hedge.policy === null ? null : h("div", { class: "chart-box band" })
        if (zoom !== null) later.push(() => bandChart(zoom, p))
        return h("figure", { class: "card" }, h("figcaption", {}, p.pair), box, zoom, bandInWords(p))
      })
    ),
    idle.length === 0 ? null : h("p", { class: "note" }, `Nothing open or hedged: ${idle.join(", ")}.`)
  )
}

const exposure = (r, later) => {
  // longs on top, largest first, then the shorts: the two sides apart
  const rows = r.currencies
    .map((c) => ({ name: c.currency, value: toNumber(c.net_exposure_usd) }))
    .sort((a, b) => b.value - a.value)
  const box = h("div", { class: "chart-box" })
  later.push(() => signedBars(box, "Net currency exposure in USD", rows, { unit: "USD", marginLeft: 48 }))
  return h(
    "figure",
    { class: "card" },
    h("figcaption", {}, "Net currency exposure (USD): long to the right, short to the left"),
    box,
    table(
      "Net exposure per currency",
      [
        { head: "Currency", cell: (c) => c.currency },
        { head: "Net (units)", numeric: true, cell: (c, i) => f(`currencies.${i}.net_exposure`, c.net_exposure) },
        { head: "Net (USD)", numeric: true, cell: (c, i) => f(`currencies.${i}.net_exposure_usd`, c.net_exposure_usd) },
        {
          head: "Side",
          cell: (c) => (toNumber(c.net_exposure) > 0 ? "long" : toNumber(c.net_exposure) < 0 ? "short" : "flat")
        }
      ],
      r.currencies
    )
  )
}

const stress = (r, later) => {
  const rows = r.stress.map((s) => ({ name: s.name, value: toNumber(s.mtm_change_usd) }))
  const box = h("div", { class: "chart-box" })
  later.push(() =>
    signedBars(box, "Stress results in USD, worst first", rows, { unit: "MTM change (USD)", marginLeft: 132 })
  )
  return h(
    "figure",
    { class: "card" },
    h("figcaption", {}, "Stress: the book's value change per scenario (USD), worst first"),
    worstInWords(r),
    box,
    table(
      "Stress results, worst first",
      [
        { head: "Scenario", cell: (s) => s.name },
        { head: "What moves", wrap: true, cell: (s) => s.description },
        { head: "MTM change (USD)", numeric: true, cell: (s, i) => f(`stress.${i}.mtm_change_usd`, s.mtm_change_usd) }
      ],
      r.stress
    )
  )
}

const payoutsDue = (r) =>
  table(
    "Payouts due (exercised, not yet settled)",
    [
      { head: "Token", cell: (p) => p.token },
      { head: "Chain", cell: (p) => p.chain },
      { head: "Payouts", numeric: true, cell: (p, i) => f(`payouts_due.${i}.payouts`, p.payouts, "count") },
      { head: "Amount", numeric: true, cell: (p, i) => f(`payouts_due.${i}.amount`, p.amount, "exact") },
      { head: "USD", numeric: true, cell: (p, i) => f(`payouts_due.${i}.amount_usd`, p.amount_usd) }
    ],
    r.payouts_due,
    { empty: "none." }
  )

/** When the book was revalued and from which snapshot; a word when a newer snapshot is in force. */
const revaluation = (r, status) => {
  const seconds = (Date.now() - new Date(r.computed_at).getTime()) / 1000
  const inForce = status?.market?.snapshot_id
  const newer = inForce !== undefined && r.snapshot_id !== null && inForce !== r.snapshot_id
  return h(
    "p",
    { class: "provenance" },
    "Revalued at ",
    h("time", { datetime: r.computed_at, title: r.computed_at }, clock(r.computed_at)),
    ` (${age(seconds)} ago) from snapshot `,
    r.snapshot_id === null ? "built-in illustrative" : h("code", { title: r.snapshot_id }, shortId(r.snapshot_id)),
    ` of ${clock(r.snapshot_as_of)}.`,
    newer ? h("strong", {}, " A newer snapshot is in force: the workers revalue on their next pass.") : null
  )
}

/** The book section's content. */
export const book = (r, status, later) => [
  revaluation(r, status),
  headline(r),
  table("Book per market pair", pairColumns, r.pairs, { id: "book-pairs" }),
  h("h3", {}, "Delta against the hedge band"),
  hedgeCharts(r, later),
  table("Hedge per market pair", hedgeColumns, r.pairs, { id: "hedge-pairs" }),
  h("div", { class: "grid two" }, exposure(r, later), stress(r, later)),
  payoutsDue(r)
]
