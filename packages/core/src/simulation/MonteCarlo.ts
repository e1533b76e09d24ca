/**
 * What one lock is likely to pay: paths of spot along the snapshot's forward curve and smile, each settled by the
 * service's own rules (`Settlement.payout`, exact, rounded down to the token unit), summed into the result.
 */
import * as ExerciseBoundary from "./internal/exerciseBoundary.ts"
import * as Rules from "./internal/rules.ts"
import { Exercise, exerciseMeaning, riskNeutralDrift, type SimulationRefused } from "./Simulated.ts"
import { BigDecimal, type DateTime, type Duration, Option, Result, Schema } from "effect"
import * as Money from "../kernel/Money.ts"
import type { SettlementCurrency } from "../kernel/Rail.ts"
import * as CorridorMarket from "../market/CorridorMarket.ts"
import * as DiscountCurve from "../market/DiscountCurve.ts"
import * as MarketFreshness from "../market/MarketFreshness.ts"
import type * as MarketSnapshot from "../market/MarketSnapshot.ts"
import * as Pricing from "../pricing/Pricing.ts"
import * as QuotePolicy from "../pricing/QuotePolicy.ts"
import * as QuotePricer from "../pricing/QuotePricer.ts"
import type { PricingInputs } from "../terms/PricingInputs.ts"
import type { QuoteRecord } from "../terms/Quote.ts"
import type { ContractType, QuoteRequest } from "../terms/QuoteRequest.ts"
import * as Settlement from "../terms/Settlement.ts"
import * as Paths from "./internal/paths.ts"
import * as Random from "./internal/random.ts"

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
   * The window engine's value per 1 BASE (QUOTE Rules.units, what the premium is priced from) beside the value of a
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

const lockOf = (
  input: MonteCarloInput,
  market: CorridorMarket.CorridorMarket,
  policy: QuotePolicy.QuotePolicyShape
): Result.Result<PricedLock, SimulationRefused> => {
  if ("request" in input) {
    const { request } = input
    const pricedRequest = Rules.priceAsTheApi(request, input.snapshot, input.now, policy)
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
  if (quote.status !== "created") return Rules.refused("quote_failed", "the quote failed: it locks nothing to simulate")
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
    inputs: Rules.pricingInputsOf(quote.marketRate, w)
  })
}

/** Per path, for tests and charts: the rates (QUOTE per BASE) and the payouts in token Rules.units. */
export interface PathOutcomes {
  readonly endRates: Float64Array
  readonly bestRates: Float64Array
  readonly rates: Float64Array
  /** The exercise's payout per path, token Rules.units (10⁻⁶) of the settlement fiat. */
  readonly payoutUnits: Float64Array
  /** The payout had the customer transacted at `window_end`, token Rules.units. */
  readonly endPayoutUnits: Float64Array
}

export interface MonteCarloRun {
  readonly result: MonteCarloResult
  readonly paths: PathOutcomes
}

/** The grid's instants: now, every day, the window's start, an `at` instant, the window's end. */
const gridTimes = (now: number, start: number, end: number, at: number | null): Array<number> => {
  const times = new Set<number>([now, start, end])
  for (let t = now + Rules.millisPerDay; t < end; t += Rules.millisPerDay) times.add(t)
  if (at !== null) times.add(at)
  return [...times].filter((t) => t >= now && t <= end).sort((a, b) => a - b)
}

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
    return Rules.refused("bad_paths", `paths must be a positive integer, got ${input.paths}`)
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
  if (Option.isNone(found)) return Rules.refused("no_market_parameters", `no market parameters for ${direction}`)
  const market = found.value
  const pricedLock = lockOf(input, market, policy)
  if (Result.isFailure(pricedLock)) return Result.fail(pricedLock.failure)
  const { lock, inputs, settlementCurrency } = pricedLock.success
  const nowMs = now.epochMilliseconds
  const endMs = Math.max(pricedLock.success.windowEnd.epochMilliseconds, nowMs)
  const startMs = Math.min(Math.max(pricedLock.success.windowStart.epochMilliseconds, nowMs), endMs)
  const atMs = exercise._tag === "at" ? exercise.at.epochMilliseconds : null
  if (atMs !== null && (atMs < startMs || atMs > endMs)) {
    return Rules.refused("exercise_outside_window", "the `at` instant is outside the lock's window")
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
    const dt = (times[k + 1]! - times[k]!) / Rules.millisPerYear
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
    boundary: Float64Array.from(times, (t) =>
      ExerciseBoundary.exerciseBoundary(inputs, strike, (endMs - t) / Rules.millisPerYear)
    ),
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
      const conversion = Rules.conversionAt(lock.direction, settlementCurrency, live, cross)
      if (Option.isNone(conversion)) continue
      const u = Rules.units(Settlement.payout(lock, live, conversion.value).amount)
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
  const meanPayout = Money.roundDown(Money.divide(Rules.fromUnits(total), BigDecimal.make(BigInt(count), 0)))
  const { premium, deposit } = pricedLock.success

  let forfeiture: MonteCarloResult["forfeiture"] = null
  if (pricedLock.success.contractType === "forward" && deposit !== null) {
    const depositModel = Money.toModel(deposit)
    const toFiat = Rules.conversionModel(
      lock.direction,
      settlementCurrency,
      Option.match(cross, { onNone: () => 0, onSome: Money.toModel })
    )
    const notionalBase = Settlement.notionalBaseModel(lock)
    let walked = 0
    for (let i = 0; i < count; i++) {
      const rate = simulated.chosen[i]!
      if (Rules.walksAway(rate, strike, notionalBase, toFiat(rate), depositModel)) walked++
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
    p50: Rules.fromUnits(BigInt(percentile(sorted, 0.5))),
    p90: Rules.fromUnits(BigInt(percentile(sorted, 0.9))),
    p99: Rules.fromUnits(BigInt(percentile(sorted, 0.99))),
    payoutOverPremium: Money.isZero(premium) ? null : Money.toModel(meanPayout) / Money.toModel(premium),
    probabilityPayoutAbovePremium: countAbove(payoutUnits, Number(Rules.units(premium))) / count,
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
