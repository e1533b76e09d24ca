/**
 * Window-option engine benchmark: speed (prices/s on one core) and accuracy (bp of notional) against a
 * 10,000-step plain CRR with the same window rule, over the corridors' pairs in both directions; then the same
 * grid priced from a market snapshot (curves and smiles interpolated for every price), and the import of a
 * snapshot (parse, validate, hash).
 *
 * Run: `pnpm bench` (= `node bench/windowOption.ts` in packages/core, Node ≥ 24).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { DateTime, Effect, Option, Result } from "effect"
import { Digest } from "effect/crypto"
import { directions, pair } from "../src/kernel/Corridor.ts"
import * as CorridorMarket from "../src/market/CorridorMarket.ts"
import * as DiscountCurve from "../src/market/DiscountCurve.ts"
import * as MarketData from "../src/market/MarketData.ts"
import type * as MarketFreshness from "../src/market/MarketFreshness.ts"
import * as MarketSnapshot from "../src/market/MarketSnapshot.ts"
import * as Money from "../src/kernel/Money.ts"
import {
  bookWindowOption,
  windowLattice,
  windowOption,
  windowSteps,
  type WindowOptionInput
} from "../src/pricing/Pricing.ts"
import * as QuotePolicy from "../src/pricing/QuotePolicy.ts"
import * as QuotePricer from "../src/pricing/QuotePricer.ts"
import type * as QuoteRequest from "../src/terms/QuoteRequest.ts"
import * as RateCurve from "../src/market/RateCurve.ts"
import * as VolSurface from "../src/market/VolSurface.ts"
import { errorBp, referenceSteps, referenceValues } from "./reference.ts"

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

console.log(`${cases.length} cases (puts; 6 pairs × 2 directions × ${windows.length} windows × 3 strikes)`)
console.log(`reference: plain CRR, ${referenceSteps} steps, same window rule`)

const reference = referenceValues(cases)

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
  { name: "bookWindowOption (0.9/day, ≥50)", price: bookWindowOption }
]

const rows = variants.map(({ name, price }) => {
  let worst = 0
  let worstLabel = ""
  let sum = 0
  cases.forEach((c, i) => {
    const bp = errorBp(price(c), reference[i]!, c.spot)
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

// ---------------------------------------------------------------------------------------------------------------
// The same grid priced from a market snapshot: term structure and smile interpolated for every price

const examplePath = join(import.meta.dirname, "../../../docs/market/example-snapshot.json")
const exampleText = readFileSync(examplePath, "utf8")
const snapshotNow = Date.parse("2026-03-02T20:05:00Z") // the example's as_of + 5 min
const snapshot = Result.getOrThrow(MarketSnapshot.validateJson(exampleText, { now: snapshotNow }))

/** Any orientation of a market pair on the snapshot (the grid has 12, the served directions 9). */
const curvesFor = (base: Currency, quote: Currency, inverted: boolean): CorridorMarket.Curves => {
  const pairKey = inverted ? `${quote}/${base}` : `${base}/${quote}`
  const surface = Option.getOrThrow(VolSurface.fromSnapshot(snapshot, pairKey))
  return {
    asOf: snapshot.as_of.epochMilliseconds,
    domestic: Option.getOrThrow(DiscountCurve.fromSnapshot(snapshot, quote)),
    foreign: Option.getOrThrow(DiscountCurve.fromSnapshot(snapshot, base)),
    vols: { ...surface, inverted }
  }
}

interface SnapshotCase {
  readonly label: string
  readonly curves: CorridorMarket.Curves
  readonly args: Parameters<typeof CorridorMarket.windowInputs>[1]
}
const snapshotCases: Array<SnapshotCase> = []
for (const [a, b] of markets) {
  const pairSpot = Money.toModel(Option.getOrThrow(MarketSnapshot.spot(snapshot, `${a}/${b}`)))
  for (const [base, quote, spot, inverted] of [[a, b, pairSpot, false] as const, [b, a, 1 / pairSpot, true] as const]) {
    const curves = curvesFor(base, quote, inverted)
    for (const [d1, d2] of windows) {
      const windowStart = snapshotNow + d1 * dayMs
      const windowEnd = snapshotNow + d2 * dayMs
      const fair = Math.min(
        CorridorMarket.forward(curves, spot, snapshotNow, windowStart),
        CorridorMarket.forward(curves, spot, snapshotNow, windowEnd)
      )
      for (const factor of strikeFactors) {
        snapshotCases.push({
          label: `${base}/${quote} K=${factor}F [${+d1.toFixed(3)},${+d2.toFixed(3)}]d`,
          curves,
          args: { spot, strike: factor * fair, now: snapshotNow, windowStart, windowEnd }
        })
      }
    }
  }
}

/** Curves and smile interpolated, then the production engine: what a quote priced from a snapshot costs. */
const priceFromSnapshot = (c: SnapshotCase): number =>
  windowOption({ ...CorridorMarket.windowInputs(c.curves, c.args), kind: "put" })
const snapshotInputs = snapshotCases.map((c) => ({
  ...CorridorMarket.windowInputs(c.curves, c.args),
  kind: "put" as const
}))

console.log("")
console.log(
  `snapshot grid: the same ${snapshotCases.length} cases priced from ${examplePath.split("/").slice(-3).join("/")}`
)
console.log("  (curves at t1 and t2, smile vol at (t2, K)); reference: the same CRR at the same σ and rates")
const snapshotReference = referenceValues(snapshotInputs)

/** Prices per second of `price` over `items`, after a warm-up, for about `seconds`. */
const perSecond = <A>(items: ReadonlyArray<A>, price: (item: A) => number, seconds: number): number => {
  let sink = 0
  for (let i = 0; i < 3; i++) for (const item of items) sink += price(item)
  let count = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < seconds * 1000) {
    for (const item of items) sink += price(item)
    count += items.length
    elapsed = performance.now() - start
  }
  if (!Number.isFinite(sink)) throw new Error("non-finite price")
  return (count * 1000) / elapsed
}

let snapshotWorst = 0
let snapshotWorstLabel = ""
let snapshotSum = 0
snapshotCases.forEach((c, i) => {
  const bp = errorBp(priceFromSnapshot(c), snapshotReference[i]!, c.args.spot)
  snapshotSum += bp
  if (bp > snapshotWorst) {
    snapshotWorst = bp
    snapshotWorstLabel = c.label
  }
})
// engine alone on the same inputs, then interpolation + engine, alternated so that drift hits both alike
const engineRates: Array<number> = []
const fullRates: Array<number> = []
for (let round = 0; round < 3; round++) {
  engineRates.push(perSecond(snapshotInputs, windowOption, 2))
  fullRates.push(perSecond(snapshotCases, priceFromSnapshot, 2))
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
const engineRate = median(engineRates)
const fullRate = median(fullRates)
const interpolationOnly = perSecond(snapshotCases, (c) => CorridorMarket.windowInputs(c.curves, c.args).volatility, 2)

console.log("")
console.log(
  "from the snapshot".padEnd(36) + "max err bp".padStart(11) + "mean err bp".padStart(12) + "prices/s".padStart(10)
)
console.log(
  "engine on precomputed inputs".padEnd(36) +
    "".padStart(11) +
    "".padStart(12) +
    Math.round(engineRate).toString().padStart(10)
)
console.log(
  "curves + smile + engine".padEnd(36) +
    snapshotWorst.toFixed(4).padStart(11) +
    (snapshotSum / snapshotCases.length).toFixed(4).padStart(12) +
    Math.round(fullRate).toString().padStart(10) +
    "  " +
    snapshotWorstLabel
)
console.log(
  `interpolation costs ${((1 - fullRate / engineRate) * 100).toFixed(1)} % of the engine's rate ` +
    `(alone: ${Math.round(interpolationOnly)} input sets/s; rounds ${engineRates.map(Math.round).join("/")} vs ${fullRates.map(Math.round).join("/")})`
)
console.log("targets: max err ≤ 0.5 bp, ≥ 20,000 prices/s, interpolation under 10 % of the engine's rate")

// ---------------------------------------------------------------------------------------------------------------
// Whole quotes: QuotePricer.price from the snapshot (checks, strike, curves, smile, engine, exact amounts, inputs)

const quoteNow = DateTime.makeUnsafe(snapshotNow)
const inForce: MarketFreshness.InForce = { _tag: "InForce", snapshotId: "bench", snapshot }
const quoteRequests: Array<QuoteRequest.QuoteRequest> = []
for (const direction of directions) {
  const market = Option.getOrThrow(CorridorMarket.make(snapshot, direction))
  const rate = Money.fromModel(Number(Money.toModel(market.referenceRate).toPrecision(8)))
  const { base, quote } = pair(direction)
  // NGN is never a notional currency: NGN_TO_USD takes its notional in USD
  const notionalCurrency = base === "NGN" ? quote : base
  for (const [d1, d2] of windows) {
    quoteRequests.push({
      customer_reference_id: "bench",
      customer_name: "Bench",
      contract_type: "option",
      direction,
      notional_currency: notionalCurrency === "NGN" ? "USD" : notionalCurrency,
      notional_amount: Money.unsafe("10000"),
      provider_rate: rate,
      market_rate: rate,
      market_rate_timestamp: quoteNow,
      window_start: DateTime.makeUnsafe(snapshotNow + d1 * dayMs),
      window_end: DateTime.makeUnsafe(snapshotNow + d2 * dayMs),
      chain: "polygon",
      settlement_currency: "USDC"
    })
  }
}
const priceQuote = (request: QuoteRequest.QuoteRequest): number => {
  const q = QuotePricer.price({
    request,
    market: inForce,
    notionalLimits: MarketData.defaultNotionalLimits,
    now: quoteNow,
    policy: QuotePolicy.defaults,
    railSupported: true
  })
  if (q.status !== "created") throw new Error(`${request.direction}: ${q.failureReason?.code}`)
  return q.strikeAdvantageBps
}
const quoteRate = perSecond(quoteRequests, priceQuote, 3)
console.log("")
console.log(
  `whole quotes (QuotePricer.price from the snapshot, ${quoteRequests.length} requests: every direction × the windows above, cip_fair options): ${Math.round(quoteRate)} quotes/s`
)

// ---------------------------------------------------------------------------------------------------------------
// Importing a snapshot: parse, validate, hash

const importOnce = async (): Promise<number> => {
  const start = performance.now()
  const imported = Result.getOrThrow(MarketSnapshot.validateJson(exampleText, { now: snapshotNow }))
  await Effect.runPromise(Effect.provide(MarketSnapshot.hash(imported), Digest.layerWebCrypto))
  return performance.now() - start
}
const pillars = Object.values(snapshot.vols).reduce((n, p) => n + p.length, 0)
const points = Object.values(snapshot.rates).reduce((n, c) => n + c.points.length, 0)
const first = await importOnce()
const runs: Array<number> = []
for (let i = 0; i < 50; i++) runs.push(await importOnce())
console.log("")
console.log(
  `snapshot import (JSON.parse + validate + SHA-256 of the canonical JSON), ${Object.keys(snapshot.vols).length} pairs / ${pillars} smile pillars, ` +
    `${Object.keys(snapshot.rates).length} curves / ${points} points, ${exampleText.length} bytes:`
)
console.log(
  `  first ${first.toFixed(1)} ms, then median ${median(runs).toFixed(2)} ms, max ${Math.max(...runs).toFixed(2)} ms over ${runs.length} (target < 50 ms)`
)
