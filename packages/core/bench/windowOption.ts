/**
 * Window-option engine benchmark: speed (prices/s on one core) and accuracy (bp of notional) against a
 * 10,000-step plain CRR with the same window rule, over the corridors' pairs in both directions.
 *
 * Run: `pnpm bench` (= `node bench/windowOption.ts` in packages/core, Node ≥ 24).
 */
import { windowLattice, windowOption, windowSteps, type WindowOptionInput } from "../src/Pricing.ts"
import * as RateCurve from "../src/RateCurve.ts"

type Currency = "USD" | "EUR" | "BRL" | "MXN" | "NGN"

const quotedRates: Record<Currency, number> = { USD: 0.0375, EUR: 0.02, BRL: 0.1425, MXN: 0.07, NGN: 0.27 }
const markets: ReadonlyArray<readonly [Currency, Currency, number, number]> = [
  ["EUR", "USD", 0.075, 1.17],
  ["USD", "BRL", 0.14, 5.4],
  ["USD", "MXN", 0.12, 18.5],
  ["USD", "NGN", 0.2, 1500],
  ["EUR", "BRL", 0.15, 6.32],
  ["BRL", "MXN", 0.13, 3.43]
]
const strikeFactors = [0.97, 1, 1.02]
const hour = 1 / 24
// [t1, t2] in days: American, forward-starting, fractional t1, one-hour and mid-life windows.
const windows: ReadonlyArray<readonly [number, number]> = [
  [0, 7],
  [0, 30],
  [0, 180],
  [2.5, 14],
  [7, 60],
  [30, 31],
  [45, 45 + hour],
  [60, 180],
  [90, 180]
]

const now = Date.UTC(2026, 2, 2, 9, 0) // a Monday, 09:00 UTC
const dayMs = 86_400_000

const cases: Array<WindowOptionInput & { readonly label: string }> = []
for (const [a, b, volatility, reference] of markets) {
  for (const [base, quote, spot] of [[a, b, reference] as const, [b, a, 1 / reference] as const]) {
    for (const [d1, d2] of windows) {
      const t1 = now + d1 * dayMs
      const t2 = now + d2 * dayMs
      const rate = (currency: Currency) =>
        RateCurve.continuousRate(
          RateCurve.discountFactor({ currency, rate: quotedRates[currency], from: now, to: t2 }),
          RateCurve.yearFraction365(now, t2)
        )
      const fair = RateCurve.cipFairStrike({
        spot,
        domestic: { currency: quote, rate: quotedRates[quote] },
        foreign: { currency: base, rate: quotedRates[base] },
        now,
        windowStart: t1,
        windowEnd: t2
      })
      for (const factor of strikeFactors) {
        cases.push({
          label: `${base}/${quote} K=${factor}F [${+d1.toFixed(3)},${+d2.toFixed(3)}]d`,
          spot,
          strike: factor * fair,
          domesticRate: rate(quote),
          foreignRate: rate(base),
          volatility,
          windowStartYears: RateCurve.yearFraction365(now, t1),
          windowEndYears: RateCurve.yearFraction365(now, t2),
          kind: "put"
        })
      }
    }
  }
}

/** Prices per second over all cases, after a warm-up, for about `seconds`. */
const throughput = (price: (input: WindowOptionInput) => number, seconds: number): number => {
  let sink = 0
  for (let i = 0; i < 3; i++) for (const c of cases) sink += price(c)
  let count = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < seconds * 1000) {
    for (const c of cases) sink += price(c)
    count += cases.length
    elapsed = performance.now() - start
  }
  if (!Number.isFinite(sink)) throw new Error("non-finite price")
  return (count * 1000) / elapsed
}

const referenceSteps = 10_000
console.log(`${cases.length} cases (puts; 6 pairs × 2 directions × ${windows.length} windows × 3 strikes)`)
console.log(`reference: plain CRR, ${referenceSteps} steps, same window rule`)
const refStart = performance.now()
const reference = cases.map((c, i) => {
  if (i % 50 === 0) {
    const line = `  reference ${i}/${cases.length} (${((performance.now() - refStart) / 1000).toFixed(1)} s)`
    if (process.stdout.isTTY) process.stdout.write(`${line}\r`)
    else console.log(line)
  }
  return windowLattice({ ...c, steps: referenceSteps, method: "crr" })
})
console.log(`  reference ${cases.length}/${cases.length} in ${((performance.now() - refStart) / 1000).toFixed(1)} s`)

interface Variant {
  readonly name: string
  readonly price: (input: WindowOptionInput) => number
}
const withSteps = (perDay: number, floor: number) => (input: WindowOptionInput) =>
  windowLattice({
    ...input,
    steps: Math.max(floor, 2 * Math.ceil((perDay / 2) * 365 * input.windowEndYears)),
    method: "bbsr"
  })
const variants: ReadonlyArray<Variant> = [
  { name: "windowOption (BBSR, 2/day, ≥100)", price: windowOption },
  { name: "BBSR 1.5/day, ≥60", price: withSteps(1.5, 60) },
  { name: "BBSR 1/day, ≥50", price: withSteps(1, 50) }
]

const rows = variants.map(({ name, price }) => {
  let worst = 0
  let worstLabel = ""
  let sum = 0
  cases.forEach((c, i) => {
    const bp = (Math.abs(price(c) - reference[i]!) / c.spot) * 1e4
    sum += bp
    if (bp > worst) {
      worst = bp
      worstLabel = c.label
    }
  })
  return { name, worst, mean: sum / cases.length, worstLabel, perSecond: throughput(price, 3) }
})

console.log("")
console.log(
  "engine".padEnd(36) +
    "max err bp".padStart(11) +
    "mean err bp".padStart(12) +
    "prices/s".padStart(10) +
    "  worst case"
)
for (const r of rows) {
  console.log(
    r.name.padEnd(36) +
      r.worst.toFixed(4).padStart(11) +
      r.mean.toFixed(4).padStart(12) +
      Math.round(r.perSecond).toString().padStart(10) +
      "  " +
      r.worstLabel
  )
}
console.log(`targets: max err ≤ 0.5 bp, ≥ 5,000 prices/s (stretch 20,000); Node ${process.version}`)
console.log(
  `production steps: ${windowSteps(7 / 365)} for 7 days, ${windowSteps(180 / 365)} for 180 days (+ N/2 for BBSR)`
)
