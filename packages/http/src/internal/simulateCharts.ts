/**
 * `ratelock simulate … --svg FILE`: the payout distribution of a Monte Carlo, or a backtest's premiums and payouts
 * over time, drawn by Observable Plot (the console's charting library) on linkedom's DOM, as an SVG file. The
 * figures are the printed ones; the chart is for the eye.
 */
import * as Plot from "@observablehq/plot"
import { type LockSimulation, Money } from "@ratelock/core"
import { parseHTML } from "linkedom"

/** Okabe–Ito, as the console's charts. */
const colours = { payout: "#0072b2", premium: "#d55e00", mean: "#000000" }

const draw = (options: Plot.PlotOptions): string => {
  const { document } = parseHTML("<!DOCTYPE html><html><body></body></html>")
  const svg = Plot.plot({ ...options, document })
  // a file read on its own (not inline in HTML) names its namespace
  svg.setAttribute("xmlns", "http://www.w3.org/2000/svg")
  return `<?xml version="1.0" encoding="UTF-8"?>\n${svg.outerHTML}\n`
}

/** A histogram of the paths' payouts (the settlement fiat), the premium and the mean payout as rules. */
export const payoutDistribution = (run: LockSimulation.MonteCarloRun): string => {
  const { result } = run
  const payouts = Array.from(run.paths.payoutUnits, (u) => u / 1e6)
  const premium = Money.toModel(result.premium)
  const mean = Money.toModel(result.meanPayout)
  const currency = result.settlementCurrency
  return draw({
    width: 720,
    height: 420,
    marginTop: 40,
    // room for a count in the tens of thousands beside the axis
    marginLeft: 56,
    x: { label: `payout (${currency})`, nice: true },
    y: { label: "paths", grid: true },
    marks: [
      Plot.rectY(payouts, {
        ...Plot.binX({ y: "count" }, { x: (d: number) => d, thresholds: 40 }),
        fill: colours.payout
      }),
      Plot.ruleY([0]),
      Plot.ruleX([premium], { stroke: colours.premium, strokeWidth: 2 }),
      Plot.ruleX([mean], { stroke: colours.mean, strokeDasharray: "4,3" }),
      Plot.text([`premium ${Money.format(result.premium)}`], {
        frameAnchor: "top-right",
        dy: -28,
        fill: colours.premium
      }),
      Plot.text(
        [
          `${result.paths} paths, exercise ${result.exercise._tag}: pays on ${(result.probabilityOfPayout * 100).toFixed(1)} %, mean ${Money.format(result.meanPayout)} (dashed)`
        ],
        { frameAnchor: "top-left", dy: -28 }
      )
    ]
  })
}

/** Each lock's premium and payout (the settlement fiat) by its start date. */
export const premiumsAndPayouts = (result: LockSimulation.BacktestResult): string => {
  const rows = result.locks.flatMap((l) => [
    { date: new Date(`${l.start}T00:00:00Z`), amount: Money.toModel(l.premium), series: "premium" },
    { date: new Date(`${l.start}T00:00:00Z`), amount: Money.toModel(l.payout), series: "payout" }
  ])
  const t = result.totals
  return draw({
    width: 720,
    height: 420,
    marginTop: 40,
    marginRight: 60,
    marginLeft: 56,
    x: { label: "lock start", type: "utc", labelAnchor: "center" },
    y: { label: result.settlementCurrency, grid: true },
    color: { domain: ["premium", "payout"], range: [colours.premium, colours.payout] },
    marks: [
      Plot.ruleY([0]),
      Plot.lineY(rows, { x: "date", y: "amount", stroke: "series" }),
      Plot.dot(rows, { x: "date", y: "amount", fill: "series", r: 2.5 }),
      Plot.text(
        rows,
        Plot.selectLast({
          x: "date",
          y: "amount",
          z: "series",
          text: "series",
          fill: "series",
          dx: 6,
          textAnchor: "start"
        })
      ),
      Plot.text(
        [
          `${t.locks} locks, ${t.locksThatPaid} paid: premiums ${Money.format(t.premiums)}, payouts ${Money.format(t.payouts)}, customers' net ${Money.format(t.customersNet)}`
        ],
        { frameAnchor: "top-left", dy: -28 }
      )
    ]
  })
}
