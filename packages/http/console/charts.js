// The console's charts, drawn by Observable Plot (served by the operator listener itself). Every chart
// has its numbers written beside it as text; the charts are for the eye. Plot puts a <style> element
// in each figure, which the page's Content-Security-Policy would refuse: it is taken out before the
// figure enters the page, and console.css carries the same rules for the `chart` class.

import { h, toNumber } from "./format.js"

/** Colours that stay apart for colour-blind readers (Okabe–Ito), one per pair or currency. */
export const palette = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#56b4e9", "#e69f00", "#000000", "#f0e442"]

/** Long (the service gains when it rises) and short, and the hedge band. */
export const tones = { long: "#0f766e", short: "#c2410c", band: "#fde68a", target: "#111827" }

/** Tenors written as the desk says them, for the axes of term structures. */
const tenorTicks = [1, 7, 30, 91, 182, 365, 730, 1826]
const tenorLabel = (days) =>
  ({ 1: "1D", 7: "1W", 30: "1M", 91: "3M", 182: "6M", 365: "1Y", 730: "2Y", 1095: "3Y", 1826: "5Y" })[days] ??
  `${days}d`

const compact = (x) => {
  const abs = Math.abs(x)
  if (abs >= 1e9) return `${x / 1e9}B`
  if (abs >= 1e6) return `${x / 1e6}M`
  if (abs >= 1e3) return `${x / 1e3}k`
  return String(x)
}

/**
 * A chart in `container`, as wide as it is, from `build(Plot)`'s options; a note instead when the
 * library did not load.
 */
export const draw = (container, label, build) => {
  const Plot = globalThis.Plot
  if (Plot === undefined) {
    container.replaceChildren(
      h("p", { class: "note" }, "The chart library did not load; the figures are in the table.")
    )
    return
  }
  const width = Math.max(260, Math.floor(container.clientWidth || 600))
  const chart = Plot.plot({
    width,
    className: "chart",
    ariaLabel: label,
    style: { fontSize: "12px", fontFamily: "inherit", background: "transparent" },
    ...build(Plot)
  })
  for (const style of chart.querySelectorAll("style")) style.remove()
  chart.setAttribute("role", "img")
  container.replaceChildren(chart)
}

/** A legend in text: one swatch and name per series, in the chart's colours. */
export const legend = (names, colours = palette) =>
  h(
    "ul",
    { class: "legend", "aria-hidden": "true" },
    names.map((name, i) => {
      const swatch = h("span", { class: "swatch" })
      swatch.style.backgroundColor = colours[i % colours.length]
      return h("li", {}, swatch, name)
    })
  )

/**
 * One pair's delta, hedge position and residual, in BASE units, with the band the residual must keep
 * to: `|target − position| ≤ band`, that is the residual within `band` of `(1 − ratio) × delta`.
 */
export const hedgeChart = (container, pair) => {
  const base = pair.pair.split("/")[0]
  const delta = toNumber(pair.delta)
  const position = toNumber(pair.hedge.position)
  const residual = toNumber(pair.hedge.residual_delta)
  const policy = pair.hedge.policy
  const rows = [
    { label: "Book delta", value: delta },
    { label: "Hedge position", value: position },
    { label: "Residual", value: residual }
  ]
  draw(container, `${pair.pair}: book delta, hedge position and residual in ${base}`, (Plot) => {
    const marks = []
    if (policy !== null) {
      const band = toNumber(policy.band)
      const centre = (1 - toNumber(policy.target_ratio)) * delta
      marks.push(
        Plot.barX([{ x1: centre - band, x2: centre + band, label: "Residual" }], {
          x1: "x1",
          x2: "x2",
          y: "label",
          fill: tones.band,
          stroke: "#b45309",
          insetTop: -3,
          insetBottom: -3
        }),
        Plot.tickX([{ x: toNumber(pair.hedge.target), label: "Hedge position" }], {
          x: "x",
          y: "label",
          stroke: tones.target,
          strokeWidth: 2,
          strokeDasharray: "3,2"
        })
      )
    }
    marks.push(
      Plot.barX(rows, { x: "value", y: "label", fill: (d) => (d.value >= 0 ? tones.long : tones.short) }),
      Plot.ruleX([0])
    )
    return {
      height: 120,
      marginLeft: 104,
      marginRight: 16,
      x: { label: `${base} units`, grid: true, tickFormat: compact, nice: true },
      y: { label: null, domain: rows.map((r) => r.label) },
      marks
    }
  })
}

/**
 * Where the residual sits in its band, zoomed to twice the band each side (a band is small beside the
 * delta it hedges): the band shaded, the residual a dot, held at the edge with its value when it is
 * further out.
 */
export const bandChart = (container, pair) => {
  const base = pair.pair.split("/")[0]
  const band = toNumber(pair.hedge.policy.band)
  const centre = (1 - toNumber(pair.hedge.policy.target_ratio)) * toNumber(pair.delta)
  const residual = toNumber(pair.hedge.residual_delta)
  const [low, high] = [centre - 2 * band, centre + 2 * band]
  const shown = Math.min(high, Math.max(low, residual))
  const outside = Math.abs(residual - centre) > band
  draw(container, `${pair.pair}: the residual delta within its band of ±${band} ${base}`, (Plot) => ({
    height: 64,
    marginLeft: 104,
    marginRight: 16,
    marginTop: 8,
    x: { domain: [low, high], label: `residual, ${base} units`, tickFormat: compact, ticks: 5 },
    y: { axis: null, domain: ["band"] },
    marks: [
      Plot.barX([{ x1: centre - band, x2: centre + band }], {
        x1: "x1",
        x2: "x2",
        y: () => "band",
        fill: tones.band,
        stroke: "#b45309"
      }),
      Plot.ruleX([centre], { stroke: tones.target, strokeDasharray: "3,2" }),
      Plot.dot([{ x: shown }], {
        x: "x",
        y: () => "band",
        r: 6,
        fill: outside ? tones.short : tones.long,
        stroke: "white"
      })
    ]
  }))
}

/** Signed bars by name, long to the right and short to the left (exposure, stress). */
export const signedBars = (container, label, rows, { unit, marginLeft = 80 }) =>
  draw(container, label, (Plot) => ({
    height: Math.max(90, 26 * rows.length + 40),
    marginLeft,
    marginRight: 16,
    x: { label: unit, grid: true, tickFormat: compact, nice: true },
    y: { label: null, domain: rows.map((r) => r.name) },
    marks: [
      Plot.barX(rows, { x: "value", y: "name", fill: (d) => (d.value >= 0 ? tones.long : tones.short) }),
      Plot.ruleX([0])
    ]
  }))

/**
 * Lines over tenor, one per series: `rows` are `{ series, days, value }` with `value` in %. The axis
 * runs in log10(days) on a linear scale, so that every tenor tick keeps its label (Plot's log scale
 * blanks those that are not 1, 2 or 5 times a power of ten).
 */
export const termStructure = (container, label, input, { series, unit }) => {
  const rows = input.map((r) => ({ ...r, days: Math.log10(r.days) }))
  // the tenor ticks within the pillars (a tick beyond them would widen the axis)
  const days = input.map((r) => r.days)
  const ticks = tenorTicks.filter((t) => t >= Math.min(...days) && t <= Math.max(...days))
  return draw(container, label, (Plot) => ({
    height: 260,
    marginLeft: 48,
    marginRight: 16,
    x: {
      label: "Tenor",
      ticks: ticks.map(Math.log10),
      tickFormat: (x) => tenorLabel(Math.round(10 ** x))
    },
    y: { label: unit, grid: true },
    color: { domain: series, range: palette },
    marks: [
      Plot.line(rows, { x: "days", y: "value", stroke: "series", strokeWidth: 1.8 }),
      Plot.dot(rows, { x: "days", y: "value", fill: "series", r: 2.2 })
    ]
  }))
}

/** A smile: vol at the 25-delta put, ATM and the 25-delta call, one line per pair. */
export const smileChart = (container, label, rows, series) =>
  draw(container, label, (Plot) => ({
    height: 220,
    marginLeft: 48,
    marginRight: 16,
    x: { type: "point", label: null, domain: ["25Δ put", "ATM", "25Δ call"], padding: 0.3 },
    y: { label: "Vol (%)", grid: true },
    color: { domain: series, range: palette },
    marks: [
      Plot.line(rows, { x: "point", y: "value", stroke: "series", strokeWidth: 1.8 }),
      Plot.dot(rows, { x: "point", y: "value", fill: "series", r: 3 })
    ]
  }))

/** Colours for the explained lines: Okabe–Ito's without black, then Tol's muted ones, twelve apart. */
const lineColours = [...palette.filter((c) => c !== "#000000"), "#882255", "#44aa99", "#332288", "#ddcc77", "#aa4499"]

/** The explained lines' colours, in their order, then grey for the unexplained (so it reads as what is left). */
export const pnlTones = (series) =>
  series.map((line, i) => (line === "unexplained" ? "#9ca3af" : lineColours[i % lineColours.length]))

/**
 * A bar per day of the explained lines stacked in `series` order (gains up, losses down from zero), the last
 * series on top, and the cumulative total as a line with its dots: `rows` are `{ date, line, value }`,
 * `cumulative` `{ date, value }`, in USD.
 */
export const pnlChart = (container, label, rows, { series, cumulative }) =>
  draw(container, label, (Plot) => ({
    height: 280,
    marginLeft: 64,
    marginRight: 16,
    x: { type: "band", label: null, padding: 0.25 },
    y: { label: "USD", grid: true, tickFormat: compact, nice: true },
    color: { domain: series, range: pnlTones(series) },
    marks: [
      Plot.barY(rows, { x: "date", y: "value", fill: "line", order: series }),
      Plot.ruleY([0]),
      Plot.lineY(cumulative, { x: "date", y: "value", stroke: tones.target, strokeWidth: 1.8 }),
      Plot.dot(cumulative, { x: "date", y: "value", fill: tones.target, r: 3 })
    ]
  }))
