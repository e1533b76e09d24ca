// The P&L of one environment, from GET /operator/v1/finance/pnl (its default span: the last 30 UTC days), and its
// last close as the status says (`environments[].last_close`): the span's figures, a bar per day of the explained lines stacked with the unexplained on top and the cumulative total
// as a line, then the days' figures with the totals and each market pair's. Every figure is the route's decimal
// string: nothing is summed or rounded here.

import { routes } from "./api.js"
import { legend, pnlChart, pnlTones } from "./charts.js"
import { age, clock, figure, h, table, tile, toNumber } from "./format.js"
import { jsonLink } from "./pipes.js"

const source = "pnl"
const f = (path, value, format) => figure(source, path, value, format)

/**
 * The explained lines, in the route's order: its lines run realised, unrealised and total, then the explain, then
 * `unexplained` (core's `PeriodPnl.lineNames`), so those between `total` and `unexplained` are the explain.
 */
const explainedOf = (lines) => {
  const names = Object.keys(lines)
  return names.slice(names.indexOf("total") + 1, names.indexOf("unexplained"))
}

/** A line's name as a reader says it: `fx_translation` → "fx translation". */
const spoken = (name) => name.replaceAll("_", " ")

const headline = (r) =>
  h(
    "div",
    { class: "tiles", id: "pnl-totals" },
    tile("Total", f("totals.total", r.totals.total), "USD", "realised + unrealised: the span's cumulative total"),
    tile("Realised", f("totals.realised", r.totals.realised), "USD", "premiums, forfeits, payouts, hedges closed"),
    tile("Unrealised", f("totals.unrealised", r.totals.unrealised), "USD", "the book's change of value"),
    tile("Unexplained", f("totals.unexplained", r.totals.unexplained), "USD", "what the explained lines leave over"),
    tile("Periods", f("periods", r.periods, "count"), "between closes")
  )

/** Each day's explained lines stacked, the unexplained on top, and the cumulative total as a line. */
const chart = (r, explained, later) => {
  const series = [...explained, "unexplained"]
  const rows = r.days.flatMap((d) => series.map((line) => ({ date: d.date, line, value: toNumber(d.lines[line]) })))
  const cumulative = r.days.map((d) => ({ date: d.date, value: toNumber(d.cumulative_total) }))
  const box = h("div", { class: "chart-box" })
  later.push(() =>
    pnlChart(box, `${r.environment}: each day's P&L explained, in USD, and the cumulative total`, rows, {
      series,
      cumulative
    })
  )
  return h(
    "figure",
    { class: "card" },
    h("figcaption", {}, "Each day's P&L (USD): the explained lines stacked, the unexplained on top"),
    h(
      "p",
      { class: "key" },
      legend([...series.map(spoken), "cumulative total"], [...pnlTones(series), "#111827"]),
      "Gains above zero, losses below; the line is the total since the span's first day."
    ),
    box
  )
}

const days = (r, explained) => {
  const lines = ["total", "realised", "unrealised", ...explained, "unexplained"]
  const rows = [
    ...r.days.map((d, i) => ({
      label: d.date,
      base: `days.${i}.lines`,
      lines: d.lines,
      cumulative: f(`days.${i}.cumulative_total`, d.cumulative_total)
    })),
    { label: "Total", base: "totals", lines: r.totals, cumulative: "—" }
  ]
  return table(
    "Each day's P&L in USD (the periods between closes that end that day), then the span's totals",
    [
      { head: "Day (UTC)", cell: (row) => row.label },
      ...lines.map((line) => ({
        head: spoken(line),
        numeric: true,
        cell: (row) => f(`${row.base}.${line}`, row.lines[line])
      })),
      { head: "cumulative", numeric: true, cell: (row) => row.cumulative }
    ],
    rows,
    { id: "pnl-days" }
  )
}

const pairs = (r) =>
  table(
    "Each market pair's P&L over the span: USD, and the total in the pair's quote currency",
    [
      { head: "Pair", cell: (p) => p.pair },
      { head: "Locks sold", numeric: true, cell: (p, i) => f(`pairs.${i}.locks_sold`, p.locks_sold, "count") },
      { head: "Total (USD)", numeric: true, cell: (p, i) => f(`pairs.${i}.usd.total`, p.usd.total) },
      { head: "Realised (USD)", numeric: true, cell: (p, i) => f(`pairs.${i}.usd.realised`, p.usd.realised) },
      { head: "Unrealised (USD)", numeric: true, cell: (p, i) => f(`pairs.${i}.usd.unrealised`, p.usd.unrealised) },
      {
        head: "Unexplained (USD)",
        numeric: true,
        cell: (p, i) => f(`pairs.${i}.usd.unexplained`, p.usd.unexplained)
      },
      {
        head: "Total (quote)",
        numeric: true,
        cell: (p, i) => h("span", {}, f(`pairs.${i}.in_quote.total`, p.in_quote.total), ` ${p.quote}`)
      }
    ],
    r.pairs,
    { id: "pnl-pairs", empty: "none." }
  )

/** The environment's last close, as the status says: when, for which cut, how long ago; or that none was taken. */
const lastClose = (status, environment) => {
  const last = status?.environments?.find((e) => e.environment === environment)?.last_close
  if (last === undefined) return null
  if (last === null) {
    return h(
      "p",
      { class: "provenance", id: "last-close" },
      h("strong", {}, "No close of the book in the last two days. "),
      "The workers close at the daily cut (RATELOCK_DAILY_CLOSE), production only on fresh market data; ratelock finance close closes now."
    )
  }
  return h(
    "p",
    { class: "provenance", id: "last-close" },
    "Last close of the book at ",
    h("time", { datetime: last.closed_at, title: last.closed_at }, clock(last.closed_at)),
    ` (${age(last.age_seconds)} ago), `,
    last.scheduled_for === null
      ? "an operator's."
      : h(
          "span",
          {},
          "the daily cut of ",
          h("time", { datetime: last.scheduled_for, title: last.scheduled_for }, clock(last.scheduled_for)),
          "."
        )
  )
}

/** The P&L section's content. */
export const pnl = (r, status, environment, later) => {
  const span = h(
    "p",
    { class: "provenance" },
    `From ${r.from} to ${r.to} (UTC days), in ${r.currency}: the periods between the closes of the book that end on those days. `,
    jsonLink(routes.pnl(environment))
  )
  if (r.periods === 0) {
    return [
      span,
      lastClose(status, environment),
      h(
        "p",
        { class: "empty", id: "pnl-empty" },
        "No P&L in these days: a period runs from one close of the book to the next. The workers close every day at RATELOCK_DAILY_CLOSE; ratelock finance close closes now."
      )
    ]
  }
  const explained = explainedOf(r.totals)
  return [span, lastClose(status, environment), headline(r), chart(r, explained, later), days(r, explained), pairs(r)]
}
