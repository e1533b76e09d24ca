/**
 * Simulating locks (issue 30): what one lock is likely to pay (`monteCarlo`), and what locks bought along a
 * history would have paid (`backtest`), from the same market data and the same rules the service prices and
 * settles with: the premium and deposit from `QuotePricer`, every payout from `Settlement.payout` (exact, rounded
 * down to the token unit as a real payout is), the snapshot's age judged by `MarketFreshness`.
 *
 * The model is risk-neutral: spot drifts along the snapshot's forward curve (the two currencies' discount
 * curves). Real-world drift is not ours to guess; every result says so in `drift`. Paths are float64 (the
 * model), money is exact (`BigDecimal`).
 */
import { BigDecimal, Data, DateTime, type Duration, Option, Result, Schema } from "effect"
import { type Direction, includes, pair } from "../kernel/Corridor.ts"
import * as Money from "../kernel/Money.ts"
import { fiatOf, type SettlementCurrency } from "../kernel/Rail.ts"
import * as CorridorMarket from "../market/CorridorMarket.ts"
import * as DiscountCurve from "../market/DiscountCurve.ts"
import * as MarketData from "../market/MarketData.ts"
import * as MarketFreshness from "../market/MarketFreshness.ts"
import type * as MarketSnapshot from "../market/MarketSnapshot.ts"
import * as Pricing from "../pricing/Pricing.ts"
import * as QuotePolicy from "../pricing/QuotePolicy.ts"
import * as QuotePricer from "../pricing/QuotePricer.ts"
import * as QuoteRules from "../pricing/QuoteRules.ts"
import type { PricingInputs } from "../terms/PricingInputs.ts"
import type { QuoteRecord } from "../terms/Quote.ts"
import type { ContractType, QuoteRequest } from "../terms/QuoteRequest.ts"
import * as Settlement from "../terms/Settlement.ts"
import * as Paths from "./internal/paths.ts"
import * as Random from "./internal/random.ts"

const millisPerDay = 86_400_000
const millisPerYear = 365 * millisPerDay

/** What every result says of its drift. */
export const riskNeutralDrift =
  "risk-neutral: spot drifts along the snapshot's forward curve (its two discount curves); no view of real-world drift is taken"

// ---------------------------------------------------------------------------------------------------------------
// Behaviours and errors

/**
 * When the customer transacts: `best` (the moment of the window that pays the most, with hindsight: the service's
 * worst case), `end` (at `window_end`), `uniform` (a uniformly random moment of the window: a need-driven customer),
 * `at` a given instant of the window.
 */
export const Exercise = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("best") }),
  Schema.Struct({ _tag: Schema.Literal("end") }),
  Schema.Struct({ _tag: Schema.Literal("uniform") }),
  Schema.Struct({ _tag: Schema.Literal("at"), at: Schema.DateTimeUtc })
])
export type Exercise = typeof Exercise.Type

/** What each behaviour reports, said in every result (`best` above all: hindsight, not a stopping rule). */
export const exerciseMeaning: { readonly [T in Exercise["_tag"]]: string } = {
  best: "the moment of the window that pays the most, with hindsight: the service's worst case. It over-counts foresight against the window engine's optimal stopping; model.stoppingRuleValue is a rule without foresight, at most the engine's value",
  end: "at window_end",
  uniform:
    "at a uniformly random point of the window's daily grid (one draw per antithetic pair): a need-driven customer",
  at: "at the given instant"
}

/** A lock the snapshot or the pricer will not price: the pricer's failure code and message. */
export class SimulationRefused extends Data.TaggedError("SimulationRefused")<{
  readonly code: string
  readonly message: string
}> {}

/** What is wrong with a spot series or a backtest's template. */
export class SeriesError extends Data.TaggedError("SeriesError")<{
  readonly reason:
    | "empty"
    | "bad_line"
    | "non_numeric"
    | "unsorted"
    | "gap"
    | "tenor_past_end"
    | "off_snapshot"
    | "bad_template"
  /** The CSV line (1-based), when one line is at fault. */
  readonly line: number | null
  readonly message: string
}> {}

// ---------------------------------------------------------------------------------------------------------------
// Shared rules

/** The payout's conversion at a live rate: the settlement fiat's side, or the snapshot's cross mid. */
const conversionAt = (
  direction: Direction,
  settlementCurrency: SettlementCurrency,
  rate: Money.Decimal,
  cross: Option.Option<Money.Decimal>
): Option.Option<Settlement.Conversion> => {
  const c = Settlement.conversionFor(direction, fiatOf(settlementCurrency), rate)
  if (c !== "needs_cross_rate") return Option.some(c)
  return Option.map(cross, (fiatPerQuote) => ({ _tag: "Cross", fiatPerQuote }) as const)
}

/** The settlement fiat per 1 QUOTE as a model float at a live rate (1, 1/rate, or the cross mid). */
const conversionModel = (direction: Direction, settlementCurrency: SettlementCurrency, cross: number) => {
  const fiat = fiatOf(settlementCurrency)
  const { base, quote } = pair(direction)
  if (fiat === quote) return (_rate: number) => 1
  if (fiat === base) return (rate: number) => 1 / rate
  return (_rate: number) => cross
}

/**
 * A forward's customer walks away, forfeiting the deposit, when the live rate beats the locked rate by more than the
 * deposit is worth: transacting at the locked rate would cost them more than the deposit does (model floats: the
 * gain in the settlement fiat against the deposit).
 */
const walksAway = (rate: number, strike: number, notionalBase: number, fiatPerQuote: number, deposit: number) =>
  (rate - strike) * notionalBase * fiatPerQuote > deposit

const units = (d: Money.Decimal): bigint => Money.toBaseUnits(Money.roundDown(d))

const fromUnits = (u: bigint): Money.Decimal => BigDecimal.normalize(Money.fromBaseUnits(u))

// ---------------------------------------------------------------------------------------------------------------
// Monte Carlo of one lock

export const MonteCarloResult = Schema.Struct({
  drift: Schema.String,
  exercise: Exercise,
  /** What the behaviour means (`exerciseMeaning`). */
  exerciseMeaning: Schema.String,
  paths: Schema.Number,
  seed: Schema.Number,
  /** The snapshot's age against `MarketFreshness`'s rule: null when fresh, else the pricer's stale message. */
  marketWarning: Schema.NullOr(Schema.String),
  lockedRate: Schema.BigDecimal,
  premium: Schema.BigDecimal,
  deposit: Schema.NullOr(Schema.BigDecimal),
  settlementCurrency: Schema.String,
  volatility: Schema.Number,
  probabilityOfPayout: Schema.Number,
  /** The mean payout in the settlement fiat (exact mean of the exact payouts, rounded down to the token unit). */
  meanPayout: Schema.BigDecimal,
  /** Its standard error (over antithetic pairs), in the settlement fiat. */
  standardError: Schema.Number,
  p50: Schema.BigDecimal,
  p90: Schema.BigDecimal,
  p99: Schema.BigDecimal,
  /** Mean payout over the premium (null when the premium is 0). */
  payoutOverPremium: Schema.NullOr(Schema.Number),
  /** The share of paths whose payout exceeds the premium: locks the service loses on, before hedging. */
  probabilityPayoutAbovePremium: Schema.Number,
  /**
   * A forward's deposit forfeited: a customer walks away when the rate moved in their favour by more than the
   * deposit (keeping the deposit would cost them more than the lock's rate gives); null for an option.
   */
  forfeiture: Schema.NullOr(Schema.Struct({ probability: Schema.Number, expected: Schema.BigDecimal })),
  /**
   * The window engine's value per 1 BASE (QUOTE units, what the premium is priced from) beside the value of a
   * stopping rule that needs no foresight, with its standard error: `best` reports the hindsight best moment (the
   * service's worst case), which over-counts foresight; the stopping rule is at most the engine's optimum.
   */
  model: Schema.Struct({
    engineValue: Schema.Number,
    stoppingRuleValue: Schema.Number,
    stoppingRuleStandardError: Schema.Number
  })
})
export type MonteCarloResult = typeof MonteCarloResult.Type

interface MonteCarloCommon {
  readonly snapshot: MarketSnapshot.MarketSnapshot
  readonly now: DateTime.Utc
  /** Paths, a positive integer rounded up to an even number (antithetic pairs). */
  readonly paths: number
  readonly seed: number
  readonly exercise: Exercise
  readonly policy?: QuotePolicy.QuotePolicyShape | undefined
  /** The freshness rule's largest age (default `MarketFreshness.defaultMaxAge`). */
  readonly maxAge?: Duration.Duration | undefined
}

/** What a simulation reads of a stored quote (a `QuoteRecord` is one; so is the operator's view, mapped). */
export type StoredLock = Pick<
  QuoteRecord,
  | "status"
  | "contractType"
  | "direction"
  | "notionalCurrency"
  | "notionalAmount"
  | "marketRate"
  | "lockedRate"
  | "premiumAmount"
  | "depositAmount"
  | "maxTransactionAmount"
  | "windowStart"
  | "windowEnd"
  | "settlementCurrency"
>

/**
 * The lock: a quote request's terms (priced here by `QuotePricer.price`; its `market_rate` is the paths' spot), or
 * a stored quote (its own locked rate, premium and deposit; its `marketRate` the paths' spot, the snapshot's
 * curves and smile from `now` on).
 */
export type MonteCarloInput = MonteCarloCommon & ({ readonly request: QuoteRequest } | { readonly quote: StoredLock })

/** What the paths and the figures need of a lock, however it came. */
interface PricedLock {
  readonly lock: Settlement.Lock
  readonly contractType: ContractType
  readonly settlementCurrency: SettlementCurrency
  readonly marketRate: Money.Decimal
  readonly windowStart: DateTime.Utc
  readonly windowEnd: DateTime.Utc
  readonly premium: Money.Decimal
  readonly deposit: Money.Decimal | null
  readonly inputs: PricingInputs
}

/**
 * A request priced as the API prices it: first the rules it checks a request by (the window's order and horizon,
 * the notional's side ...), then the pricer (the rail, the reference rate, the largest single lock).
 */
const priceAsTheApi = (
  request: QuoteRequest,
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  policy: QuotePolicy.QuotePolicyShape
): Result.Result<QuotePricer.PricedQuote & { readonly inputs: PricingInputs }, SimulationRefused> => {
  const broken = QuoteRules.violations(request, now, policy)
  if (broken.length > 0) {
    return refused("validation_error", broken.map((i) => `${i.loc.at(-1)}: ${i.msg}`).join("; "))
  }
  const priced = QuotePricer.price({
    request,
    market: { _tag: "InForce", snapshotId: null, snapshot },
    notionalLimits: MarketData.defaultNotionalLimits,
    now,
    policy,
    railSupported: true
  })
  if (priced.status === "failed" || priced.inputs === null) {
    const reason = priced.failureReason ?? { code: "no_market_parameters", message: "no market parameters" }
    return refused(reason.code, reason.message)
  }
  return Result.succeed({ ...priced, inputs: priced.inputs })
}

const lockOf = (
  input: MonteCarloInput,
  market: CorridorMarket.CorridorMarket,
  policy: QuotePolicy.QuotePolicyShape
): Result.Result<PricedLock, SimulationRefused> => {
  if ("request" in input) {
    const { request } = input
    const pricedRequest = priceAsTheApi(request, input.snapshot, input.now, policy)
    if (Result.isFailure(pricedRequest)) return Result.fail(pricedRequest.failure)
    const priced = pricedRequest.success
    return Result.succeed({
      lock: {
        direction: request.direction,
        notionalCurrency: request.notional_currency,
        notionalAmount: request.notional_amount,
        maxTransactionAmount: priced.maxTransactionAmount,
        lockedRate: priced.lockedRate
      },
      contractType: request.contract_type,
      settlementCurrency: request.settlement_currency,
      marketRate: request.market_rate,
      windowStart: request.window_start,
      windowEnd: request.window_end,
      premium: priced.premiumAmount,
      deposit: priced.depositAmount,
      inputs: priced.inputs
    })
  }
  const { quote } = input
  if (quote.status !== "created") return refused("quote_failed", "the quote failed: it locks nothing to simulate")
  const w = CorridorMarket.windowInputs(market, {
    spot: Money.toModel(quote.marketRate),
    strike: Money.toModel(quote.lockedRate),
    now: input.now,
    windowStart: quote.windowStart,
    windowEnd: quote.windowEnd
  })
  return Result.succeed({
    lock: {
      direction: quote.direction,
      notionalCurrency: quote.notionalCurrency,
      notionalAmount: quote.notionalAmount,
      maxTransactionAmount: quote.maxTransactionAmount,
      lockedRate: quote.lockedRate
    },
    contractType: quote.contractType,
    settlementCurrency: quote.settlementCurrency,
    marketRate: quote.marketRate,
    windowStart: quote.windowStart,
    windowEnd: quote.windowEnd,
    premium: quote.premiumAmount,
    deposit: quote.depositAmount,
    inputs: pricingInputsOf(quote.marketRate, w)
  })
}

/** What a quote records of the engine's inputs (the engine, its version, its steps). */
const pricingInputsOf = (spot: Money.Decimal, w: CorridorMarket.WindowInputs): PricingInputs => ({
  spot,
  forward_t1: w.forwardStart,
  forward_t2: w.forwardEnd,
  rate_domestic: w.domesticRate,
  rate_foreign: w.foreignRate,
  sigma: w.volatility,
  t1: w.windowStartYears,
  t2: w.windowEndYears,
  engine: QuotePricer.engine,
  engine_version: QuotePricer.engineVersion,
  steps: Pricing.windowOptionSteps(w.windowStartYears, w.windowEndYears)
})

/** Per path, for tests and charts: the rates (QUOTE per BASE) and the payouts in token units. */
export interface PathOutcomes {
  readonly endRates: Float64Array
  readonly bestRates: Float64Array
  readonly rates: Float64Array
  /** The exercise's payout per path, token units (10⁻⁶) of the settlement fiat. */
  readonly payoutUnits: Float64Array
  /** The payout had the customer transacted at `window_end`, token units. */
  readonly endPayoutUnits: Float64Array
}

export interface MonteCarloRun {
  readonly result: MonteCarloResult
  readonly paths: PathOutcomes
}

/** The grid's instants: now, every day, the window's start, an `at` instant, the window's end. */
const gridTimes = (now: number, start: number, end: number, at: number | null): Array<number> => {
  const times = new Set<number>([now, start, end])
  for (let t = now + millisPerDay; t < end; t += millisPerDay) times.add(t)
  if (at !== null) times.add(at)
  return [...times].filter((t) => t >= now && t <= end).sort((a, b) => a - b)
}

/** The spot below which a put struck at `strike` is worth more exercised than held as a European to `years`. */
const exerciseBoundary = (inputs: PricingInputs, strike: number, years: number): number => {
  const held = (s: number) =>
    Pricing.garmanKohlhagen({
      spot: s,
      strike,
      domesticRate: inputs.rate_domestic,
      foreignRate: inputs.rate_foreign,
      volatility: inputs.sigma,
      years,
      kind: "put"
    })
  const gain = (s: number) => strike - s - held(s)
  let lo = strike * 1e-6
  let hi = strike
  if (!(gain(lo) >= 0)) return 0
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2
    if (gain(mid) >= 0) lo = mid
    else hi = mid
  }
  return lo
}

const refused = (code: string, message: string) => Result.fail(new SimulationRefused({ code, message }))

/** How many of `values` exceed `threshold`. */
const countAbove = (values: Float64Array, threshold: number): number => {
  let n = 0
  for (let i = 0; i < values.length; i++) if (values[i]! > threshold) n++
  return n
}

/** The nearest-rank percentile of sorted values. */
const percentile = (sorted: Float64Array, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!

export const monteCarlo = (input: MonteCarloInput): Result.Result<MonteCarloRun, SimulationRefused> => {
  const { snapshot, now, exercise } = input
  const policy = input.policy ?? QuotePolicy.defaults
  if (!Number.isInteger(input.paths) || input.paths < 1) {
    return refused("bad_paths", `paths must be a positive integer, got ${input.paths}`)
  }
  const freshness = MarketFreshness.inForce({
    latest: Option.some({ id: "simulation", snapshot }),
    environment: "production",
    now,
    maxAge: input.maxAge
  })
  const marketWarning = freshness._tag === "Stale" ? freshness.message : null
  const direction = "request" in input ? input.request.direction : input.quote.direction
  const found = CorridorMarket.make(snapshot, direction)
  if (Option.isNone(found)) return refused("no_market_parameters", `no market parameters for ${direction}`)
  const market = found.value
  const pricedLock = lockOf(input, market, policy)
  if (Result.isFailure(pricedLock)) return Result.fail(pricedLock.failure)
  const { lock, inputs, settlementCurrency } = pricedLock.success
  const nowMs = now.epochMilliseconds
  const endMs = Math.max(pricedLock.success.windowEnd.epochMilliseconds, nowMs)
  const startMs = Math.min(Math.max(pricedLock.success.windowStart.epochMilliseconds, nowMs), endMs)
  const atMs = exercise._tag === "at" ? exercise.at.epochMilliseconds : null
  if (atMs !== null && (atMs < startMs || atMs > endMs)) {
    return refused("exercise_outside_window", "the `at` instant is outside the lock's window")
  }
  const times = gridTimes(nowMs, startMs, endMs, atMs)
  const n = times.length - 1
  const spot = Money.toModel(pricedLock.success.marketRate)
  const strike = Money.toModel(lock.lockedRate)
  const sigma = inputs.sigma
  const forwards = times.map((t) => CorridorMarket.forward(market, spot, nowMs, t))
  const logDrift = new Float64Array(n)
  const volSqrtDt = new Float64Array(n)
  for (let k = 0; k < n; k++) {
    const dt = (times[k + 1]! - times[k]!) / millisPerYear
    logDrift[k] = Math.log(forwards[k + 1]! / forwards[k]!) - 0.5 * sigma * sigma * dt
    volSqrtDt[k] = sigma * Math.sqrt(dt)
  }
  const grid: Paths.Grid = {
    spot,
    logDrift,
    volSqrtDt,
    windowFrom: times.indexOf(startMs),
    atIndex: atMs === null ? -1 : times.indexOf(atMs)
  }
  const stop: Paths.StopRule = {
    strike,
    boundary: Float64Array.from(times, (t) => exerciseBoundary(inputs, strike, (endMs - t) / millisPerYear)),
    discount: Float64Array.from(times, (t) => DiscountCurve.discountFactorBetween(market.domestic, nowMs, t))
  }
  const moment: Paths.Moment = exercise._tag
  const simulated = Paths.simulate(grid, moment, Math.max(2, input.paths), Random.make(input.seed), stop)
  const count = simulated.chosen.length

  // every path settled by the service's rule, at the rate crossed once into an exact decimal
  const cross = QuotePricer.fiatPerQuote(snapshot, lock.direction, settlementCurrency)
  const settle = (rates: Float64Array, out: Float64Array): bigint => {
    let total = 0n
    for (let i = 0; i < count; i++) {
      const rate = rates[i]!
      if (!(rate < strike)) continue
      const live = Money.fromModel(rate)
      const conversion = conversionAt(lock.direction, settlementCurrency, live, cross)
      if (Option.isNone(conversion)) continue
      const u = units(Settlement.payout(lock, live, conversion.value).amount)
      out[i] = Number(u)
      total += u
    }
    return total
  }
  const payoutUnits = new Float64Array(count)
  const endPayoutUnits = new Float64Array(count)
  const total = settle(simulated.chosen, payoutUnits)
  if (moment === "end") endPayoutUnits.set(payoutUnits)
  else settle(simulated.end, endPayoutUnits)

  let paid = 0
  let pairSquares = 0
  let pairSum = 0
  for (let i = 0; i < count; i += 2) {
    if (payoutUnits[i]! > 0) paid++
    if (payoutUnits[i + 1]! > 0) paid++
    const m = (payoutUnits[i]! + payoutUnits[i + 1]!) / 2
    pairSum += m
    pairSquares += m * m
  }
  const pairs = count / 2
  const standardError = (xs: { sum: number; squares: number }) => {
    const mean = xs.sum / pairs
    return pairs > 1 ? Math.sqrt(Math.max(0, xs.squares / pairs - mean * mean) / (pairs - 1)) : 0
  }
  let stopSum = 0
  let stopSquares = 0
  for (let i = 0; i < count; i += 2) {
    const m = (simulated.stopped[i]! + simulated.stopped[i + 1]!) / 2
    stopSum += m
    stopSquares += m * m
  }
  const sorted = Float64Array.from(payoutUnits).sort()
  const meanPayout = Money.roundDown(Money.divide(fromUnits(total), BigDecimal.make(BigInt(count), 0)))
  const { premium, deposit } = pricedLock.success

  let forfeiture: MonteCarloResult["forfeiture"] = null
  if (pricedLock.success.contractType === "forward" && deposit !== null) {
    const depositModel = Money.toModel(deposit)
    const toFiat = conversionModel(
      lock.direction,
      settlementCurrency,
      Option.match(cross, { onNone: () => 0, onSome: Money.toModel })
    )
    const notionalBase = Settlement.notionalBaseModel(lock)
    let walked = 0
    for (let i = 0; i < count; i++) {
      const rate = simulated.chosen[i]!
      if (walksAway(rate, strike, notionalBase, toFiat(rate), depositModel)) walked++
    }
    const probability = walked / count
    forfeiture = {
      probability,
      expected: Money.roundDown(Money.multiply(deposit, Money.fromModel(probability)))
    }
  }

  const result: MonteCarloResult = {
    drift: riskNeutralDrift,
    exercise,
    exerciseMeaning: exerciseMeaning[exercise._tag],
    paths: count,
    seed: input.seed,
    marketWarning,
    lockedRate: lock.lockedRate,
    premium,
    deposit,
    settlementCurrency,
    volatility: sigma,
    probabilityOfPayout: paid / count,
    meanPayout,
    standardError: standardError({ sum: pairSum, squares: pairSquares }) / 1e6,
    p50: fromUnits(BigInt(percentile(sorted, 0.5))),
    p90: fromUnits(BigInt(percentile(sorted, 0.9))),
    p99: fromUnits(BigInt(percentile(sorted, 0.99))),
    payoutOverPremium: Money.isZero(premium) ? null : Money.toModel(meanPayout) / Money.toModel(premium),
    probabilityPayoutAbovePremium: countAbove(payoutUnits, Number(units(premium))) / count,
    forfeiture,
    model: {
      engineValue: Pricing.windowOptionOn(
        {
          spot,
          strike,
          domesticRate: inputs.rate_domestic,
          foreignRate: inputs.rate_foreign,
          volatility: sigma,
          windowStartYears: inputs.t1,
          windowEndYears: inputs.t2,
          kind: "put"
        },
        inputs.steps
      ),
      stoppingRuleValue: stopSum / pairs,
      stoppingRuleStandardError: standardError({ sum: stopSum, squares: stopSquares })
    }
  }
  return Result.succeed({
    result,
    paths: {
      endRates: simulated.end,
      bestRates: simulated.best,
      rates: simulated.chosen,
      payoutUnits,
      endPayoutUnits
    }
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Backtest over a history

/** A daily spot series: dates (UTC midnight, epoch ms) strictly increasing, rates exact (QUOTE per BASE). */
export interface SpotSeries {
  readonly dates: ReadonlyArray<number>
  readonly rates: ReadonlyArray<Money.Decimal>
}

/**
 * The longest step between two dates of a daily series before it is a gap: a weekend and a holiday (Friday to a
 * Tuesday) is 4 days.
 */
export const maxStepDays = 4

const datePattern = /^\d{4}-\d{2}-\d{2}$/u

/**
 * Parses a `date,rate` CSV (an optional header, `YYYY-MM-DD` dates, decimal rates; blank lines ignored): refuses
 * non-numeric rates, bad dates, dates out of order or repeated, and gaps of more than `maxStepDays`.
 */
export const parseSeries = (csv: string): Result.Result<SpotSeries, SeriesError> => {
  const dates: Array<number> = []
  const rates: Array<Money.Decimal> = []
  const lines = csv.split(/\r?\n/u)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    const lineNo = i + 1
    if (line === "") continue
    const cells = line.split(",").map((c) => c.trim())
    // a header: the first line, naming its columns (a malformed first date is an error, not a header)
    if (i === 0 && !/^\d/u.test(cells[0] ?? "")) continue
    const fail = (reason: SeriesError["reason"], message: string) =>
      Result.fail(new SeriesError({ reason, line: lineNo, message: `line ${lineNo}: ${message}` }))
    if (cells.length !== 2) return fail("bad_line", `expected "date,rate", got "${line}"`)
    const [day, rateText] = cells as [string, string]
    const date = Date.parse(`${day}T00:00:00Z`)
    if (!datePattern.test(day) || Number.isNaN(date)) return fail("bad_line", `"${day}" is not a YYYY-MM-DD date`)
    const rate = Money.parse(rateText)
    if (Option.isNone(rate) || !Money.isPositive(rate.value)) {
      return fail("non_numeric", `the rate "${rateText}" is not a positive decimal number`)
    }
    const previous = dates.at(-1)
    if (previous !== undefined) {
      if (date <= previous)
        return fail("unsorted", `${day} does not come after ${isoDay(previous)}: dates must increase`)
      const step = (date - previous) / millisPerDay
      if (step > maxStepDays) {
        return fail(
          "gap",
          `${step} days between ${isoDay(previous)} and ${day} (at most ${maxStepDays} in a daily series)`
        )
      }
    }
    dates.push(date)
    rates.push(rate.value)
  }
  if (dates.length < 2) {
    return Result.fail(
      new SeriesError({ reason: "empty", line: null, message: "the series has fewer than two dated rates" })
    )
  }
  return Result.succeed({ dates, rates })
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

export const BacktestStrikeMode = Schema.Literals(["live_spot", "cip_fair"])
export type BacktestStrikeMode = typeof BacktestStrikeMode.Type

export interface LockTemplate {
  readonly direction: Direction
  readonly notionalCurrency: QuoteRequest["notional_currency"]
  readonly notionalAmount: Money.Decimal
  readonly contractType: ContractType
  readonly tenorDays: number
  readonly strikeMode: BacktestStrikeMode
  readonly settlementCurrency: SettlementCurrency
}

export type BacktestExercise = "end" | "best" | "uniform"

export interface BacktestInput {
  readonly series: SpotSeries
  /** Its curves and smile price every lock, observed on the lock's start date. */
  readonly snapshot: MarketSnapshot.MarketSnapshot
  readonly template: LockTemplate
  /** A new lock every N days (on the first series date at least N days after the previous start). */
  readonly everyDays: number
  readonly exercise: BacktestExercise
  /** For `uniform`. */
  readonly seed?: number | undefined
  readonly policy?: QuotePolicy.QuotePolicyShape | undefined
}

export const BacktestLock = Schema.Struct({
  start: Schema.String,
  windowEnd: Schema.String,
  spot: Schema.BigDecimal,
  lockedRate: Schema.BigDecimal,
  premium: Schema.BigDecimal,
  deposit: Schema.NullOr(Schema.BigDecimal),
  exercisedOn: Schema.String,
  exerciseRate: Schema.BigDecimal,
  payout: Schema.BigDecimal,
  /** A forward whose customer walked away (the market beat the locked rate by more than the deposit): no payout. */
  forfeited: Schema.Boolean,
  /** payout − premium, less the deposit when forfeited: what the customer came out with. */
  net: Schema.BigDecimal
})
export type BacktestLock = typeof BacktestLock.Type

/** What a backtest's figures come from. */
export const backtestBasis =
  "history: each payout at the series' own rates; each premium priced on the snapshot's curves and smile (risk-neutral), observed on the lock's start date"

export const BacktestResult = Schema.Struct({
  basis: Schema.String,
  /** What was run, so that a saved result says how to run it again. */
  settings: Schema.Struct({
    direction: Schema.String,
    notionalCurrency: Schema.String,
    notionalAmount: Schema.BigDecimal,
    contractType: Schema.String,
    tenorDays: Schema.Number,
    strikeMode: BacktestStrikeMode,
    everyDays: Schema.Number,
    exercise: Schema.String,
    /** The seed `uniform` drew with; null for the other behaviours. */
    seed: Schema.NullOr(Schema.Number),
    from: Schema.String,
    to: Schema.String
  }),
  settlementCurrency: Schema.String,
  locks: Schema.Array(BacktestLock),
  totals: Schema.Struct({
    locks: Schema.Number,
    locksThatPaid: Schema.Number,
    /** Forwards whose customers walked away, and the deposits they forfeited. */
    locksForfeited: Schema.Number,
    forfeits: Schema.BigDecimal,
    premiums: Schema.BigDecimal,
    payouts: Schema.BigDecimal,
    /** payouts ÷ premiums (null without a premium): above 1, the locks cost the service more than they earned. */
    lossRatio: Schema.NullOr(Schema.Number),
    /** payouts − premiums − forfeits: the customers' net (the service's is its opposite, before hedging). */
    customersNet: Schema.BigDecimal,
    /** The lock that cost the service the most (largest payout − premium), or null when none. */
    worst: Schema.NullOr(BacktestLock)
  })
})
export type BacktestResult = typeof BacktestResult.Type

/**
 * How far (a factor either way) a backtest's series may end from the snapshot's rate for its direction: a history
 * moves, but one quoted the other way round, or of another pair, is off by more.
 */
export const maxSeriesToSnapshotFactor = 3

const seriesFail = (reason: SeriesError["reason"], message: string) =>
  Result.fail(new SeriesError({ reason, line: null, message }))

/** The last index whose date is at most `t` (the series' rate in force then). */
const lastAtOrBefore = (dates: ReadonlyArray<number>, t: number, from: number): number => {
  let i = from
  while (i + 1 < dates.length && dates[i + 1]! <= t) i++
  return i
}

export const backtest = (input: BacktestInput): Result.Result<BacktestResult, SeriesError | SimulationRefused> => {
  const { series, snapshot, template, exercise } = input
  const policy = input.policy ?? QuotePolicy.defaults
  const { dates, rates } = series
  const tenorMs = template.tenorDays * millisPerDay
  if (
    !(
      Number.isInteger(template.tenorDays) &&
      template.tenorDays > 0 &&
      Number.isInteger(input.everyDays) &&
      input.everyDays > 0
    )
  ) {
    return seriesFail("bad_template", "the tenor and the cadence must be positive whole numbers of days")
  }
  if (!includes(template.direction, template.notionalCurrency)) {
    return seriesFail("bad_template", `${template.notionalCurrency} is neither side of ${template.direction}`)
  }
  if (dates[0]! + tenorMs > dates.at(-1)!) {
    return seriesFail(
      "tenor_past_end",
      `a ${template.tenorDays}-day lock from the series' first date (${isoDay(dates[0]!)}) ends after its last (${isoDay(dates.at(-1)!)})`
    )
  }
  const today = CorridorMarket.make(snapshot, template.direction)
  if (Option.isNone(today)) {
    return Result.fail(
      new SimulationRefused({
        code: "no_market_parameters",
        message: `the snapshot does not price ${template.direction} (no spot, curve or vols for its pair)`
      })
    )
  }
  // the lock the template describes must be one the API would sell: asked today, on the snapshot
  const asOf = snapshot.as_of
  const reference = today.value.referenceRate
  const sellable = priceAsTheApi(
    {
      customer_reference_id: "backtest",
      customer_name: "backtest",
      contract_type: template.contractType,
      direction: template.direction,
      notional_currency: template.notionalCurrency,
      notional_amount: template.notionalAmount,
      provider_rate: reference,
      market_rate: reference,
      market_rate_timestamp: asOf,
      strike_mode: template.strikeMode,
      window_start: asOf,
      window_end: DateTime.add(asOf, { days: template.tenorDays }),
      chain: "ethereum", // every settlement token is issued there
      settlement_currency: template.settlementCurrency
    },
    snapshot,
    asOf,
    policy
  )
  if (Result.isFailure(sellable)) {
    const { code, message } = sellable.failure
    return Result.fail(new SimulationRefused({ code, message: `the service would not sell this lock: ${message}` }))
  }
  // a history quoted the other way round (BASE per QUOTE), or of another pair, is far from the snapshot's rate
  const lastRate = rates.at(-1)!
  const off = Math.abs(Math.log(Money.toModel(lastRate) / Money.toModel(reference)))
  if (off > Math.log(maxSeriesToSnapshotFactor)) {
    return seriesFail(
      "off_snapshot",
      `the series' last rate ${Money.format(lastRate)} is more than ${maxSeriesToSnapshotFactor} times away from the snapshot's ${template.direction} rate ${Money.format(QuotePricer.roundLockedRate(template.direction, reference))} (${pair(template.direction).quote} per ${pair(template.direction).base}): is the series quoted the other way round, or of another pair?`
    )
  }
  const cross = QuotePricer.fiatPerQuote(snapshot, template.direction, template.settlementCurrency)
  if (fiatOf(template.settlementCurrency) !== pair(template.direction).base) {
    if (fiatOf(template.settlementCurrency) !== pair(template.direction).quote && Option.isNone(cross)) {
      return Result.fail(
        new SimulationRefused({
          code: "no_market_parameters",
          message: `no rate to convert ${template.direction} into ${template.settlementCurrency}`
        })
      )
    }
  }
  const random = Random.make(input.seed ?? 0)
  const locks: Array<BacktestLock> = []
  let premiums = Money.zero
  let payouts = Money.zero
  let forfeits = Money.zero
  let paid = 0
  let forfeitedLocks = 0
  let worst: BacktestLock | null = null
  const toFiat = conversionModel(
    template.direction,
    template.settlementCurrency,
    Option.match(cross, { onNone: () => 0, onSome: Money.toModel })
  )
  let nextStart = dates[0]!
  for (let i = 0; i < dates.length; i++) {
    const start = dates[i]!
    if (start < nextStart) continue
    const end = start + tenorMs
    if (end > dates.at(-1)!) break
    nextStart = start + input.everyDays * millisPerDay
    const spot = rates[i]!
    // the snapshot's curves and smile, observed on the start date
    const observed = { ...snapshot, as_of: DateTime.makeUnsafe(start) }
    const market = Option.getOrThrow(CorridorMarket.make(observed, template.direction))
    const strikeRaw =
      template.strikeMode === "live_spot"
        ? spot
        : // the pricer's cip_fair: the forward at the worse window end (the window opens at the start: its spot)
          Money.fromModel(
            Math.min(Money.toModel(spot), CorridorMarket.forward(market, Money.toModel(spot), start, end))
          )
    const lockedRate = QuotePricer.roundLockedRate(template.direction, strikeRaw)
    const w = CorridorMarket.windowInputs(market, {
      spot: Money.toModel(spot),
      strike: Money.toModel(lockedRate),
      now: start,
      windowStart: start,
      windowEnd: end
    })
    const inputs = pricingInputsOf(spot, w)
    const charged = QuotePricer.reprice({
      inputs,
      quote: {
        contractType: template.contractType,
        direction: template.direction,
        notionalCurrency: template.notionalCurrency,
        notionalAmount: template.notionalAmount,
        lockedRate,
        settlementCurrency: template.settlementCurrency
      },
      fiatPerQuote: cross,
      policy
    })
    if (Result.isFailure(charged)) {
      return Result.fail(new SimulationRefused({ code: charged.failure._tag, message: charged.failure.message }))
    }
    // the exercise date: the window's last series date, its lowest rate, or a random one of its dates
    const last = lastAtOrBefore(dates, end, i)
    let at = last
    if (exercise === "best") {
      for (let j = i; j <= last; j++) if (Money.lessThan(rates[j]!, rates[at]!)) at = j
    } else if (exercise === "uniform") {
      at = i + Random.below(random, last - i + 1)
    }
    const rate = rates[at]!
    const lock: Settlement.Lock = {
      direction: template.direction,
      notionalCurrency: template.notionalCurrency,
      notionalAmount: template.notionalAmount,
      maxTransactionAmount: template.notionalAmount,
      lockedRate
    }
    const conversion = Option.getOrThrow(conversionAt(template.direction, template.settlementCurrency, rate, cross))
    const payout = Settlement.payout(lock, rate, conversion).amount
    const premium = charged.success.premiumAmount
    const deposit = charged.success.depositAmount
    const forfeited =
      template.contractType === "forward" &&
      deposit !== null &&
      walksAway(
        Money.toModel(rate),
        Money.toModel(lockedRate),
        Settlement.notionalBaseModel(lock),
        toFiat(Money.toModel(rate)),
        Money.toModel(deposit)
      )
    const row: BacktestLock = {
      start: isoDay(start),
      windowEnd: isoDay(end),
      spot,
      lockedRate,
      premium,
      deposit,
      exercisedOn: isoDay(dates[at]!),
      exerciseRate: rate,
      payout,
      forfeited,
      net: Money.subtract(Money.subtract(payout, premium), forfeited && deposit !== null ? deposit : Money.zero)
    }
    locks.push(row)
    premiums = Money.sum(premiums, premium)
    payouts = Money.sum(payouts, payout)
    if (Money.isPositive(payout)) paid++
    if (forfeited && deposit !== null) {
      forfeitedLocks++
      forfeits = Money.sum(forfeits, deposit)
    }
    if (worst === null || Money.greaterThan(row.net, worst.net)) worst = row
  }
  return Result.succeed({
    basis: backtestBasis,
    settings: {
      direction: template.direction,
      notionalCurrency: template.notionalCurrency,
      notionalAmount: template.notionalAmount,
      contractType: template.contractType,
      tenorDays: template.tenorDays,
      strikeMode: template.strikeMode,
      everyDays: input.everyDays,
      exercise,
      seed: exercise === "uniform" ? (input.seed ?? 0) : null,
      from: isoDay(dates[0]!),
      to: isoDay(dates.at(-1)!)
    },
    settlementCurrency: template.settlementCurrency,
    locks,
    totals: {
      locks: locks.length,
      locksThatPaid: paid,
      locksForfeited: forfeitedLocks,
      forfeits,
      premiums,
      payouts,
      lossRatio: Money.isZero(premiums) ? null : Money.toModel(payouts) / Money.toModel(premiums),
      customersNet: Money.subtract(Money.subtract(payouts, premiums), forfeits),
      worst
    }
  })
}
