/**
 * `ratelock simulate …`'s output: the engine's results as JSON (their schemas' encoding, every decimal exact), as
 * text for a person, and a backtest's locks as CSV.
 */
import { LockSimulation } from "@ratelock/core"
import { type BigDecimal, type DateTime, Schema } from "effect"
import { table } from "./table.ts"

/** A result as its JSON codec writes it: decimals and instants as strings. */
type Encoded<T> = T extends BigDecimal.BigDecimal | DateTime.Utc
  ? string
  : T extends ReadonlyArray<infer U>
    ? ReadonlyArray<Encoded<U>>
    : T extends object
      ? { readonly [K in keyof T]: Encoded<T[K]> }
      : T

const encodeMonteCarlo = Schema.encodeSync(Schema.toCodecJson(LockSimulation.MonteCarloResult))
const encodeBacktest = Schema.encodeSync(Schema.toCodecJson(LockSimulation.BacktestResult))

/** `simulate lock --json`. */
export const monteCarloJson = (r: LockSimulation.MonteCarloResult) => encodeMonteCarlo(r) as unknown as MonteCarloJson
export type MonteCarloJson = Encoded<LockSimulation.MonteCarloResult>

/** `simulate backtest --json`. */
export const backtestJson = (r: LockSimulation.BacktestResult) => encodeBacktest(r) as unknown as BacktestJson
export type BacktestJson = Encoded<LockSimulation.BacktestResult>

const percent = (p: number) => `${(p * 100).toFixed(2)} %`
const num = (x: number, digits = 6) => x.toFixed(digits)

const exerciseText = (e: MonteCarloJson["exercise"]) => (e._tag === "at" ? `at ${e.at}` : e._tag)

export const monteCarlo = (r: MonteCarloJson): string => {
  const c = r.settlementCurrency
  const lines = [
    ...(r.marketWarning === null ? [] : [`WARNING: ${r.marketWarning}`, ""]),
    `Monte Carlo of one lock: ${r.paths} paths, seed ${r.seed}`,
    `Exercise:              ${exerciseText(r.exercise)}: ${r.exerciseMeaning}`,
    `Drift:                 ${r.drift}`,
    `Locked rate:           ${r.lockedRate}`,
    `Premium:               ${r.premium} ${c}`,
    ...(r.deposit === null ? [] : [`Deposit:               ${r.deposit} ${c}`]),
    `Volatility:            ${num(r.volatility, 4)}`,
    `Probability of payout: ${percent(r.probabilityOfPayout)}`,
    `Mean payout:           ${r.meanPayout} ${c} (standard error ${num(r.standardError, 2)})`,
    `Percentiles:           p50 ${r.p50}  p90 ${r.p90}  p99 ${r.p99} ${c}`,
    `Mean payout / premium: ${r.payoutOverPremium === null ? "n/a (no premium)" : num(r.payoutOverPremium, 4)}`,
    `Payout above premium:  ${percent(r.probabilityPayoutAbovePremium)} of paths (the service loses, before hedging)`,
    ...(r.forfeiture === null
      ? []
      : [
          `Deposit forfeited:     ${percent(r.forfeiture.probability)} of paths, expected ${r.forfeiture.expected} ${c}`
        ]),
    "",
    "Per 1 BASE, in QUOTE units (what the premium is priced from):",
    `  window engine (optimal stopping, the premium's basis): ${num(r.model.engineValue)}`,
    `  a stopping rule without foresight (at most the engine): ${num(r.model.stoppingRuleValue)} (standard error ${num(r.model.stoppingRuleStandardError)})`,
    ...(r.exercise._tag === "best"
      ? [
          "  best (above) is the hindsight best moment on each path: the service's worst case, over-counting foresight against the engine"
        ]
      : [])
  ]
  return lines.join("\n")
}

const lockRow = (l: BacktestJson["locks"][number]) => [
  l.start,
  l.windowEnd,
  l.spot,
  l.lockedRate,
  l.premium,
  l.deposit ?? "",
  l.exercisedOn,
  l.exerciseRate,
  l.payout,
  l.forfeited ? "yes" : "",
  l.net
]

const lockHeader = [
  "start",
  "window_end",
  "spot",
  "locked_rate",
  "premium",
  "deposit",
  "exercised_on",
  "exercise_rate",
  "payout",
  "forfeited",
  "net"
]

export const backtest = (r: BacktestJson): string => {
  const t = r.totals
  const c = r.settlementCurrency
  const s = r.settings
  return [
    `Backtest: ${r.basis}`,
    `Settings: ${s.direction} ${s.contractType}, ${s.notionalAmount} ${s.notionalCurrency}, ${s.tenorDays} days, ${s.strikeMode}, a lock every ${s.everyDays} days, exercise ${s.exercise}${s.seed === null ? "" : ` (seed ${s.seed})`}, ${s.from} to ${s.to}`,
    "",
    table(lockHeader, r.locks.map(lockRow)),
    "",
    `Locks:                      ${t.locks} (${t.locksThatPaid} paid${t.locksForfeited === 0 ? "" : `, ${t.locksForfeited} forfeited`})`,
    `Premiums:                   ${t.premiums} ${c}`,
    `Payouts:                    ${t.payouts} ${c}`,
    ...(s.contractType === "forward" ? [`Deposits forfeited:         ${t.forfeits} ${c}`] : []),
    `Loss ratio:                 ${t.lossRatio === null ? "n/a (no premium)" : num(t.lossRatio, 4)} (payouts / premiums)`,
    `Customers' net:             ${t.customersNet} ${c}`,
    `Worst lock for the service: ${t.worst === null ? "none" : `${t.worst.start} (net ${t.worst.net} ${c})`}`
  ].join("\n")
}

const field = (cell: string) => (/[",\n]/u.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)

/** `simulate backtest --csv`: one row per lock, every decimal exact. */
export const backtestCsv = (r: BacktestJson): string =>
  [lockHeader, ...r.locks.map(lockRow)].map((row) => row.map(field).join(",")).join("\n")
