// Each corridor's use of its limits, from the `limits` of GET /operator/v1/risk: one gauge per
// capacity limit set (open notional under max_open_notional, the delta bound under max_net_delta),
// amber from 75 %, red above 90 % and when a limit is 0 (the corridor takes nothing).

import { decimal, figure, h, percent, table } from "./format.js"

const source = "risk"

/** How full a limit is, for its colour: `over` above 90 % (or a limit of 0), `near` from 75 %. */
export const level = (ratio) => (ratio === null || Number(ratio) > 0.9 ? "over" : Number(ratio) >= 0.75 ? "near" : "ok")

const gauge = (corridor, u, i, j) => {
  const path = `limits.${i}.usage.${j}`
  const state = level(u.ratio)
  const fill = h("span", { class: "gauge-fill" })
  fill.style.width = u.ratio === null ? "100%" : `${Math.min(100, Number(u.ratio) * 100)}%`
  const words =
    u.ratio === null
      ? `${u.limit} is 0: the corridor takes no new lock`
      : `${percent(u.ratio)} of ${u.limit}: ${decimal(u.held)} of ${decimal(u.amount)} ${corridor.currency}`
  return h(
    "div",
    { class: `gauge-row ${state}` },
    h(
      "div",
      {
        class: "gauge",
        role: "meter",
        "aria-valuemin": "0",
        "aria-valuemax": "100",
        "aria-valuenow": u.ratio === null ? "100" : String(Math.round(Number(u.ratio) * 10_000) / 100),
        "aria-valuetext": words,
        "aria-label": `${corridor.corridor} ${u.limit}`
      },
      fill
    ),
    h(
      "p",
      { class: "gauge-text" },
      ...(u.ratio === null
        ? [
            h("span", { class: "flag" }, "Closed: "),
            `${u.limit.replaceAll("_", " ")} is `,
            figure(source, `${path}.amount`, u.amount),
            ", nothing fits; ",
            figure(source, `${path}.held`, u.held),
            ` ${corridor.currency} held`
          ]
        : [
            state === "over" ? h("span", { class: "flag" }, "Over 90 %: ") : null,
            figure(source, `${path}.ratio`, u.ratio, "percent", "strong"),
            ` of ${u.limit.replaceAll("_", " ")}: `,
            figure(source, `${path}.held`, u.held),
            " of ",
            figure(source, `${path}.amount`, u.amount),
            ` ${corridor.currency}`
          ])
    )
  )
}

/** The largest single lock the corridor takes: its own limit, the table's default, or none. */
const largestLock = (c, i) =>
  c.max_lock_notional !== null
    ? [figure(source, `limits.${i}.max_lock_notional`, c.max_lock_notional), ` ${c.currency}`]
    : c.default_max_lock_notional !== null
      ? [
          figure(source, `limits.${i}.default_max_lock_notional.amount`, c.default_max_lock_notional.amount),
          ` ${c.default_max_lock_notional.currency} (default)`
        ]
      : "unlimited"

const card = (c, i) =>
  h(
    "article",
    {
      class: `card limit ${c.usage.some((u) => level(u.ratio) === "over") ? "over" : ""}`,
      dataset: { corridor: c.corridor }
    },
    h("h3", {}, c.corridor.replaceAll("_", " "), h("span", { class: "unit" }, ` in ${c.currency}`)),
    c.usage.map((u, j) => gauge(c, u, i, j)),
    h(
      "p",
      { class: "note" },
      "Open and committed: ",
      figure(source, `limits.${i}.open_notional`, c.open_notional),
      ` ${c.currency}. Largest lock: `,
      largestLock(c, i),
      "."
    )
  )

/** The limits section's content: gauges for the corridors with a capacity limit, fullest first; the others in a table. */
export const limits = (r) => {
  const fullness = (c) =>
    Math.max(...c.usage.map((u) => (u.ratio === null ? Number.POSITIVE_INFINITY : Number(u.ratio))))
  const indexed = r.limits.map((c, i) => [c, i])
  const limited = indexed.filter(([c]) => c.usage.length > 0).sort(([a], [b]) => fullness(b) - fullness(a))
  const unlimited = indexed.filter(([c]) => c.usage.length === 0)
  const over = limited.filter(([c]) => c.usage.some((u) => level(u.ratio) === "over")).map(([c]) => c.corridor)
  return [
    h(
      "p",
      { class: over.length > 0 ? "summary alert" : "summary", id: "limits-summary" },
      over.length > 0
        ? `Above 90 % of a limit: ${over.join(", ")}. A lock that does not fit fails with corridor_capacity_exceeded.`
        : limited.length === 0
          ? "No corridor has a capacity limit (max_open_notional, max_net_delta): set one with ratelock limits set."
          : "No corridor is above 90 % of a limit."
    ),
    limited.length === 0
      ? null
      : h(
          "div",
          { class: "grid limits" },
          limited.map(([c, i]) => card(c, i))
        ),
    table(
      "Corridors without a capacity limit",
      [
        { head: "Corridor", cell: ([c]) => c.corridor },
        {
          head: "Open and committed",
          numeric: true,
          cell: ([c, i]) => [figure(source, `limits.${i}.open_notional`, c.open_notional), ` ${c.currency}`]
        },
        { head: "Largest lock", numeric: true, cell: ([c, i]) => largestLock(c, i) }
      ],
      unlimited,
      { id: "unlimited-corridors", empty: "none." }
    )
  ]
}
