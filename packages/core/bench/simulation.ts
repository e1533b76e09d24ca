/**
 * Lock simulation benchmark (issue 30): the path generator's path-steps per second on one core (target ≥ 10 M),
 * a 100,000-path Monte Carlo of a 90-day lock end to end (pricing, paths, every path settled exactly by
 * `Settlement.payout`, the figures), and a five-year daily backtest (a lock every day, each priced and settled).
 *
 * Run: `pnpm bench` (= `... && node bench/simulation.ts` in packages/core, Node ≥ 24).
 */
import { DateTime, Result } from "effect"
import * as Money from "../src/kernel/Money.ts"
import * as MarketSnapshot from "../src/market/MarketSnapshot.ts"
import * as LockSimulation from "../src/simulation/LockSimulation.ts"
import * as Paths from "../src/simulation/internal/paths.ts"
import * as Random from "../src/simulation/internal/random.ts"

const now = DateTime.makeUnsafe("2026-03-02T09:00:00Z")
const snapshot = MarketSnapshot.illustrativeAt(now)
const day = 86_400_000

const seconds = (f: () => void): number => {
  const t = performance.now()
  f()
  return (performance.now() - t) / 1000
}

// 1. the generator alone: 90 daily steps, the window from day 0, hindsight best and the stopping rule tracked
const steps = 90
const sigma = 0.14
const dt = 1 / 365
const grid: Paths.Grid = {
  spot: 5.4,
  logDrift: new Float64Array(steps).fill((0.1425 - 0.0375) * dt - 0.5 * sigma * sigma * dt),
  volSqrtDt: new Float64Array(steps).fill(sigma * Math.sqrt(dt)),
  windowFrom: 0,
  atIndex: -1
}
const stop: Paths.StopRule = {
  strike: 5.4,
  boundary: new Float64Array(steps + 1).fill(4.9),
  discount: new Float64Array(steps + 1).fill(0.99)
}
const generatorPaths = 200_000
Paths.simulate(grid, "best", 20_000, Random.make(1), stop) // warm-up
let best = Number.POSITIVE_INFINITY
for (let i = 0; i < 5; i++)
  best = Math.min(
    best,
    seconds(() => Paths.simulate(grid, "best", generatorPaths, Random.make(i), stop))
  )
const stepsPerSecond = (generatorPaths * steps) / best

// 2. a 100,000-path Monte Carlo of a 90-day USD_TO_BRL option, end to end
const request = {
  customer_reference_id: "bench",
  customer_name: "Bench",
  contract_type: "option" as const,
  direction: "USD_TO_BRL" as const,
  notional_currency: "USD" as const,
  notional_amount: Money.unsafe("10000"),
  provider_rate: Money.unsafe("5.4"),
  market_rate: Money.unsafe("5.4"),
  market_rate_timestamp: now,
  window_start: now,
  window_end: DateTime.makeUnsafe(now.epochMilliseconds + 90 * day),
  chain: "polygon" as const,
  settlement_currency: "USDC" as const
}
const monteCarlo = (exercise: LockSimulation.Exercise) => {
  let run: LockSimulation.MonteCarloRun | undefined
  const s = seconds(() => {
    run = Result.getOrThrow(LockSimulation.monteCarlo({ request, snapshot, now, paths: 100_000, seed: 2026, exercise }))
  })
  return { s, result: run!.result }
}
monteCarlo({ _tag: "end" }) // warm-up
const mcEnd = monteCarlo({ _tag: "end" })
const mcBest = monteCarlo({ _tag: "best" })
const mcUniform = monteCarlo({ _tag: "uniform" })

// 3. a five-year daily backtest: a seeded lognormal history, a 30-day lock every day
const random = Random.make(5)
const first = Date.UTC(2021, 0, 1)
const days = 5 * 365
let rate = 5.4
const lines = ["date,rate"]
for (let i = 0; i < days; i++) {
  lines.push(`${new Date(first + i * day).toISOString().slice(0, 10)},${rate.toFixed(4)}`)
  rate *= Math.exp(0.14 * Math.sqrt(dt) * Random.normal(random) - 0.5 * 0.14 * 0.14 * dt)
}
const csv = `${lines.join("\n")}\n`
let backtest: LockSimulation.BacktestResult | undefined
const backtestSeconds = seconds(() => {
  const series = Result.getOrThrow(LockSimulation.parseSeries(csv))
  backtest = Result.getOrThrow(
    LockSimulation.backtest({
      series,
      snapshot,
      template: {
        direction: "USD_TO_BRL",
        notionalCurrency: "USD",
        notionalAmount: Money.unsafe("10000"),
        contractType: "option",
        tenorDays: 30,
        strikeMode: "cip_fair",
        settlementCurrency: "USDC"
      },
      everyDays: 1,
      exercise: "end"
    })
  )
})

const fmt = (x: number, d = 2) => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d })
console.log("Lock simulation (one core)")
console.log(
  `  path generator: ${fmt(stepsPerSecond / 1e6, 1)} M path-steps/s (${generatorPaths.toLocaleString("en-US")} paths × ${steps} daily steps, best of 5; target ≥ 10 M)`
)
for (const [name, r] of [
  ["end", mcEnd],
  ["best", mcBest],
  ["uniform", mcUniform]
] as const) {
  console.log(
    `  Monte Carlo, 100,000 paths, 90-day USD_TO_BRL option, ${name}: ${fmt(r.s)} s (premium ${Money.format(r.result.premium)} USDC, mean payout ${Money.format(r.result.meanPayout)} ± ${fmt(r.result.standardError)}, P(payout) ${fmt(r.result.probabilityOfPayout, 3)})`
  )
}
console.log(
  `  backtest, five years daily (${backtest!.totals.locks} 30-day locks, cip_fair, end): ${fmt(backtestSeconds)} s (parse, price and settle)`
)
