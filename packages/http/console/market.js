// The market data in force, from GET /operator/v1/market (and its freshness from the status): the
// snapshot, each corridor's spot, forwards and ATM vols, the ATM vol term structure per pair, each
// currency's curve, and each pair's smile at 1 and 3 months.

import { legend, smileChart, termStructure } from "./charts.js"
import { age, clock, figure, h, shortId, table, toNumber } from "./format.js"

const source = "market"
const f = (path, value, format) => figure(source, path, value, format)

const pointLabel = { "25d_put": "25Δ put", atm: "ATM", "25d_call": "25Δ call" }

/** The snapshot in force: id, source, age against the limit; red when production may not price from it. */
const snapshotCard = (m, status) => {
  const fresh = status?.market?.fresh
  return h(
    "div",
    { class: `card snapshot ${fresh === false ? "stale" : ""}`, id: "snapshot-in-force" },
    h(
      "dl",
      {},
      h("dt", {}, "Snapshot"),
      h("dd", {}, h("code", { title: m.snapshot.snapshot_id }, shortId(m.snapshot.snapshot_id))),
      h("dt", {}, "Source"),
      h("dd", {}, f("snapshot.source", m.snapshot.source, "text")),
      h("dt", {}, "Observed"),
      h("dd", {}, h("time", { datetime: m.snapshot.as_of, title: m.snapshot.as_of }, clock(m.snapshot.as_of))),
      h("dt", {}, "Age"),
      h(
        "dd",
        {},
        age(status?.market?.age_seconds ?? m.snapshot.age_seconds),
        status?.market ? ` (production's limit ${age(status.market.max_age_seconds)})` : null
      ),
      h("dt", {}, "Production"),
      h(
        "dd",
        { class: fresh === false ? "bad" : "good" },
        fresh === false ? "stale: quotes fail" : fresh ? "may price from it" : "—"
      )
    )
  )
}

const corridorTable = (m) => {
  const tenors = m.corridors[0]?.points.map((p) => p.tenor) ?? []
  return table(
    "Spot, forwards and ATM vols per corridor",
    [
      { head: "Corridor", cell: (c) => c.corridor },
      { head: "Spot", numeric: true, cell: (c, i) => f(`corridors.${i}.spot`, c.spot, "exact") },
      ...tenors.flatMap((tenor, t) => [
        {
          head: `F ${tenor}`,
          numeric: true,
          cell: (c, i) => f(`corridors.${i}.points.${t}.forward`, c.points[t].forward, "exact")
        },
        {
          head: `Vol ${tenor}`,
          numeric: true,
          cell: (c, i) => f(`corridors.${i}.points.${t}.atm_vol`, c.points[t].atm_vol, "percent")
        }
      ])
    ],
    m.corridors
  )
}

/** A chart with its legend, and its figures in a table under a disclosure. */
const chartCard = (title, series, box, details) =>
  h(
    "figure",
    { class: "card" },
    h("figcaption", {}, title),
    legend(series),
    box,
    h("details", {}, h("summary", {}, "Figures"), details)
  )

const volTerm = (m, later) => {
  const series = m.vols.map((v) => v.pair)
  const rows = m.vols.flatMap((v) =>
    v.pillars.map((p) => ({ series: v.pair, days: p.tenor_days, value: toNumber(p.atm) * 100 }))
  )
  const box = h("div", { class: "chart-box" })
  later.push(() => termStructure(box, "ATM vol term structure per pair", rows, { series, unit: "ATM vol (%)" }))
  const tenors = m.vols[0]?.pillars.map((p) => p.tenor_days) ?? []
  return chartCard(
    "ATM vol term structure",
    series,
    box,
    table(
      "ATM vol per pillar (days)",
      [
        { head: "Pair", cell: (v) => v.pair },
        ...tenors.map((days, t) => ({
          head: `${days} d`,
          numeric: true,
          cell: (v, i) => (v.pillars[t] ? f(`vols.${i}.pillars.${t}.atm`, v.pillars[t].atm, "percent") : "—")
        }))
      ],
      m.vols
    )
  )
}

const curves = (m, later) => {
  const series = m.curves.map((c) => c.currency)
  const rows = m.curves.flatMap((c) =>
    c.points.map((p) => ({ series: c.currency, days: p.tenor_days, value: toNumber(p.rate) * 100 }))
  )
  const box = h("div", { class: "chart-box" })
  later.push(() => termStructure(box, "Interest-rate curves per currency", rows, { series, unit: "Rate (%)" }))
  const tenors = m.curves[0]?.points.map((p) => p.tenor_days) ?? []
  return chartCard(
    "Curves (each in its own convention)",
    m.curves.map((c) => `${c.currency} ${c.convention}`),
    box,
    table(
      "Rate per pillar (days)",
      [
        { head: "Currency", cell: (c) => `${c.currency} (${c.convention})` },
        ...tenors.map((days, t) => ({
          head: `${days} d`,
          numeric: true,
          cell: (c, i) => (c.points[t] ? f(`curves.${i}.points.${t}.rate`, c.points[t].rate, "percent") : "—")
        }))
      ],
      m.curves
    )
  )
}

const smiles = (m, later) => {
  const series = m.vols.map((v) => v.pair)
  const tenors = m.vols[0]?.smiles.map((s) => s.tenor) ?? []
  return tenors.map((tenor, t) => {
    const rows = m.vols.flatMap((v) =>
      v.smiles[t].points.map((p) => ({ series: v.pair, point: pointLabel[p.point], value: toNumber(p.vol) * 100 }))
    )
    const box = h("div", { class: "chart-box" })
    later.push(() => smileChart(box, `Smile at ${tenor} per pair`, rows, series))
    return chartCard(
      `Smile at ${tenor}`,
      series,
      box,
      table(
        `Smile at ${tenor}: strike and vol`,
        [
          { head: "Pair", cell: (v) => v.pair },
          {
            head: "Forward",
            numeric: true,
            cell: (v, i) => f(`vols.${i}.smiles.${t}.forward`, v.smiles[t].forward, "exact")
          },
          ...["25d_put", "atm", "25d_call"].flatMap((point, k) => [
            {
              head: `${pointLabel[point]} strike`,
              numeric: true,
              cell: (v, i) => f(`vols.${i}.smiles.${t}.points.${k}.strike`, v.smiles[t].points[k].strike, "exact")
            },
            {
              head: `${pointLabel[point]} vol`,
              numeric: true,
              cell: (v, i) => f(`vols.${i}.smiles.${t}.points.${k}.vol`, v.smiles[t].points[k].vol, "percent")
            }
          ])
        ],
        m.vols
      )
    )
  })
}

/** The market section's content. */
export const market = (m, status, later) =>
  m.snapshot === null
    ? [
        h(
          "p",
          { class: "summary alert" },
          "No market snapshot has been imported. The sandbox prices from the built-in illustrative one; production sells nothing. Import one: POST /operator/v1/market/snapshots or ratelock market import FILE."
        )
      ]
    : [
        snapshotCard(m, status),
        corridorTable(m),
        h("div", { class: "grid two" }, volTerm(m, later), curves(m, later)),
        h("div", { class: "grid two" }, smiles(m, later))
      ]
