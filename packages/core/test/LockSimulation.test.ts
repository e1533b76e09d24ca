/**
 * The lock simulation engine (issue 30): Monte Carlo against the closed form and the window engine, its
 * determinism and convergence, the backtest against `Settlement.payout`, and every bad input's error.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Option, Result } from "effect"
import {
  CorridorMarket,
  DiscountCurve,
  type Corridor,
  LockSimulation,
  MarketData,
  MarketFreshness,
  type MarketSnapshot,
  Money,
  Pricing,
  QuotePolicy,
  QuotePricer,
  type Quote,
  type QuoteRequest,
  Settlement
} from "@ratelock/core"
import { quoteRequest } from "./fixtures/quoteRequest.ts"

const now = DateTime.makeUnsafe("2026-11-23T12:00:00Z")
const later = (days: number) => DateTime.makeUnsafe(now.epochMilliseconds + days * 86_400_000)
const snapshot = MarketFreshness.illustrative(now)
const illustrative = (snapshot as Extract<MarketFreshness.InForce, { _tag: "InForce" }>).snapshot

/** A request on `direction` at the snapshot's own reference rate, notional in BASE (or USD when BASE is NGN). */
const requestFor = (
  direction: Corridor.Direction,
  overrides: Partial<QuoteRequest.QuoteRequest> = {}
): QuoteRequest.QuoteRequest => {
  const market = Option.getOrThrow(CorridorMarket.make(illustrative, direction))
  const rate = Money.roundDown(market.referenceRate, 8)
  const [base, quote] = direction.split("_TO_") as [string, string]
  const notional = (base === "NGN" ? quote : base) as QuoteRequest.QuoteRequest["notional_currency"]
  return quoteRequest(now, {
    direction,
    notional_currency: notional,
    notional_amount: Money.unsafe("10000"),
    market_rate: rate,
    provider_rate: rate,
    settlement_currency: "USDC",
    ...overrides
  })
}

const run = (
  request: QuoteRequest.QuoteRequest,
  exercise: LockSimulation.Exercise,
  paths: number,
  seed = 7,
  market: MarketSnapshot.MarketSnapshot = illustrative
) => {
  const r = LockSimulation.monteCarlo({ request, snapshot: market, now, paths, seed, exercise })
  if (Result.isFailure(r)) throw new Error(r.failure.message)
  return r.success
}

const priced = (request: QuoteRequest.QuoteRequest) =>
  QuotePricer.price({
    request,
    market: snapshot,
    notionalLimits: MarketData.defaultNotionalLimits,
    now,
    policy: QuotePolicy.defaults,
    railSupported: true
  })

/** Mean and standard error over antithetic pairs. */
const pairStats = (values: Float64Array) => {
  const pairs = values.length / 2
  let sum = 0
  let squares = 0
  for (let i = 0; i < values.length; i += 2) {
    const m = (values[i]! + values[i + 1]!) / 2
    sum += m
    squares += m * m
  }
  const mean = sum / pairs
  return { mean, se: Math.sqrt((squares / pairs - mean * mean) / (pairs - 1)) }
}

describe("LockSimulation.monteCarlo", () => {
  // puts on BASE; on an inverted direction (BRL_TO_USD, USD_TO_EUR, MXN_TO_USD, NGN_TO_USD) a call on the market pair
  const corridors: ReadonlyArray<Corridor.Direction> = [
    "USD_TO_BRL",
    "BRL_TO_USD",
    "EUR_TO_USD",
    "USD_TO_EUR",
    "USD_TO_MXN",
    "MXN_TO_USD",
    "NGN_TO_USD",
    "BRL_TO_MXN" // settled in USDC at the snapshot's USD per MXN: a cross
  ]

  for (const direction of corridors) {
    it(`end: the discounted mean payout is the closed-form European at window_end within 3 SE (${direction})`, () => {
      const request = requestFor(direction, { strike_mode: "live_spot", window_end: later(45) })
      const quote = priced(request)
      assert.strictEqual(quote.status, "created")
      const inputs = quote.inputs!
      const { paths, result } = run(request, { _tag: "end" }, 20_000)
      // the numeraire: each payout back into QUOTE at its own live rate (a USD payout on USD_TO_BRL is BRL / S(T)),
      // then discounted on the QUOTE curve, as the pricer values the option in QUOTE before converting it
      const fiatIsBase = direction.startsWith("USD_TO")
      const cross = Option.match(QuotePricer.fiatPerQuote(illustrative, direction, "USDC"), {
        onNone: () => 1,
        onSome: Money.toModel
      })
      const toQuote = (rate: number) => (fiatIsBase ? rate : direction.includes("USD") ? 1 : 1 / cross)
      const inQuote = paths.payoutUnits.map((u, i) => (u / 1e6) * toQuote(paths.rates[i]!))
      const stats = pairStats(inQuote)
      const market = Option.getOrThrow(CorridorMarket.make(illustrative, direction))
      const df = DiscountCurve.discountFactorBetween(market.domestic, now, request.window_end)
      const lock = {
        direction,
        notionalCurrency: request.notional_currency,
        notionalAmount: request.notional_amount,
        maxTransactionAmount: request.notional_amount,
        lockedRate: quote.lockedRate
      }
      const closedForm =
        Pricing.garmanKohlhagen({
          spot: Money.toModel(request.market_rate),
          strike: Money.toModel(quote.lockedRate),
          domesticRate: inputs.rate_domestic,
          foreignRate: inputs.rate_foreign,
          volatility: inputs.sigma,
          years: inputs.t2,
          kind: "put"
        }) * Settlement.notionalBaseModel(lock)
      const simulated = df * stats.mean
      assert.isTrue(
        Math.abs(simulated - closedForm) <= 3 * df * stats.se,
        `${direction}: ${simulated} vs ${closedForm} (SE ${df * stats.se})`
      )
      assert.isTrue(result.probabilityOfPayout > 0.2 && result.probabilityOfPayout < 0.8)
      assert.strictEqual(result.drift, LockSimulation.riskNeutralDrift)
    })
  }

  it("best pays at least end on every path; a stopping rule without foresight is within 3 SE of or below the engine", () => {
    for (const direction of ["USD_TO_BRL", "BRL_TO_USD", "EUR_TO_USD"] as const) {
      const request = requestFor(direction, { window_start: later(10), window_end: later(60) })
      const { paths, result } = run(request, { _tag: "best" }, 10_000)
      for (let i = 0; i < paths.payoutUnits.length; i++) {
        assert.isTrue(paths.payoutUnits[i]! >= paths.endPayoutUnits[i]!, `${direction} path ${i}`)
        assert.isTrue(paths.bestRates[i]! <= paths.endRates[i]!)
      }
      const { engineValue, stoppingRuleValue, stoppingRuleStandardError } = result.model
      assert.isTrue(
        stoppingRuleValue <= engineValue + 3 * stoppingRuleStandardError,
        `${direction}: stopping ${stoppingRuleValue} ± ${stoppingRuleStandardError} vs engine ${engineValue}`
      )
      assert.match(result.exerciseMeaning, /hindsight/u)
      // and not far below it: the rule is close to the optimal one
      assert.isTrue(stoppingRuleValue >= 0.9 * engineValue - 3 * stoppingRuleStandardError)
    }
  })

  it("the same seed gives the same figures bit for bit; the standard error shrinks as 1/√N", () => {
    const request = requestFor("USD_TO_BRL", { contract_type: "forward" })
    const a = run(request, { _tag: "uniform" }, 4_000, 42)
    const b = run(request, { _tag: "uniform" }, 4_000, 42)
    assert.deepStrictEqual(a.result, b.result)
    assert.deepStrictEqual(a.paths.payoutUnits, b.paths.payoutUnits)
    assert.deepStrictEqual(a.paths.rates, b.paths.rates)
    const other = run(request, { _tag: "uniform" }, 4_000, 43)
    assert.notDeepEqual(other.paths.rates, a.paths.rates)
    const large = run(request, { _tag: "uniform" }, 64_000, 42)
    const ratio = a.result.standardError / large.result.standardError
    assert.isTrue(ratio > 3.4 && ratio < 4.6, `SE ratio ${ratio} for 16× the paths`)
    assert.isNotNull(a.result.forfeiture)
    assert.isNotNull(a.result.deposit)
  })

  it("reports the quote's premium, percentiles in order, and at(instant) on its own grid point", () => {
    const request = requestFor("USD_TO_BRL")
    const quote = priced(request)
    const { result, paths } = run(request, { _tag: "at", at: later(12.5) }, 2_000)
    assert.isTrue(Money.equals(result.premium, quote.premiumAmount))
    assert.isTrue(Money.equals(result.lockedRate, quote.lockedRate))
    assert.isNull(result.deposit)
    assert.isNull(result.forfeiture)
    assert.isTrue(!Money.greaterThan(result.p50, result.p90) && !Money.greaterThan(result.p90, result.p99))
    assert.notDeepEqual(paths.rates, paths.endRates)
    // the paths the service loses on: those paying more than the premium, fewer than those paying at all
    const premiumUnits = Number(Money.toBaseUnits(result.premium))
    assert.strictEqual(
      result.probabilityPayoutAbovePremium,
      paths.payoutUnits.filter((u) => u > premiumUnits).length / paths.payoutUnits.length
    )
    assert.isTrue(
      result.probabilityPayoutAbovePremium > 0 && result.probabilityPayoutAbovePremium < result.probabilityOfPayout
    )
    assert.isNull(result.marketWarning)
  })

  it("a stored quote simulates as its request does: its own locked rate, premium and deposit", () => {
    const request = requestFor("BRL_TO_USD", { contract_type: "forward", window_end: later(20) })
    const q = priced(request)
    const quote: Quote.QuoteRecord = {
      id: "quote-1",
      partnerId: "partner-1",
      environment: "sandbox",
      customerReferenceId: request.customer_reference_id,
      customerName: request.customer_name,
      contractType: request.contract_type,
      direction: request.direction,
      notionalCurrency: request.notional_currency,
      notionalAmount: request.notional_amount,
      providerRate: request.provider_rate,
      marketRate: request.market_rate,
      marketRateTimestamp: now,
      strikeMode: "cip_fair",
      targetStrike: null,
      providerExtraSpread: Money.zero,
      status: "created",
      failureReason: null,
      lockedRate: q.lockedRate,
      strikeAdvantageBps: q.strikeAdvantageBps,
      premiumAmount: q.premiumAmount,
      depositAmount: q.depositAmount,
      totalAmount: q.totalAmount,
      maxTransactionAmount: q.maxTransactionAmount,
      windowStart: request.window_start,
      windowEnd: request.window_end,
      chain: request.chain,
      settlementCurrency: request.settlement_currency,
      expiresAt: later(1),
      createdAt: now,
      acceptedAt: null,
      snapshotId: null,
      pricingInputs: q.inputs
    }
    const fromRequest = run(request, { _tag: "end" }, 2_000, 9)
    const fromQuote = LockSimulation.monteCarlo({
      quote,
      snapshot: illustrative,
      now,
      paths: 2_000,
      seed: 9,
      exercise: { _tag: "end" }
    })
    assert.deepStrictEqual(Result.getOrThrow(fromQuote).result, fromRequest.result)
  })

  it("warns about a snapshot older than the freshness rule, and refuses an instant outside the window", () => {
    const old = { ...illustrative, as_of: DateTime.makeUnsafe(now.epochMilliseconds - 86_400_000) }
    const { result } = run(requestFor("USD_TO_BRL"), { _tag: "end" }, 200, 1, old)
    assert.match(result.marketWarning ?? "", /old, more than the 900 s allowed/u)
    const r = LockSimulation.monteCarlo({
      request: requestFor("USD_TO_BRL"),
      snapshot: illustrative,
      now,
      paths: 10,
      seed: 1,
      exercise: { _tag: "at", at: later(40) }
    })
    assert.isTrue(Result.isFailure(r))
  })
})

/** A hand-made daily series from 2025-01-01. */
const day = (i: number) => new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10)
const handMade = [
  "5.40",
  "5.38",
  "5.45",
  "5.31",
  "5.29",
  "5.50",
  "5.52",
  "5.20",
  "5.36",
  "5.41",
  "5.44",
  "5.27",
  "5.33",
  "5.48",
  "5.39",
  "5.30"
]
const csv = `date,rate\n${handMade.map((r, i) => `${day(i)},${r}`).join("\n")}\n`

const template: LockSimulation.LockTemplate = {
  direction: "USD_TO_BRL",
  notionalCurrency: "USD",
  notionalAmount: Money.unsafe("10000"),
  contractType: "option",
  tenorDays: 5,
  strikeMode: "live_spot",
  settlementCurrency: "USDC"
}

const backtest = (exercise: LockSimulation.BacktestExercise, overrides: Partial<LockSimulation.LockTemplate> = {}) => {
  const series = Result.getOrThrow(LockSimulation.parseSeries(csv))
  return LockSimulation.backtest({
    series,
    snapshot: illustrative,
    template: { ...template, ...overrides },
    everyDays: 3,
    exercise,
    seed: 3
  })
}

describe("LockSimulation.backtest", () => {
  it("every lock pays Settlement.payout at the series' rate on its exercise date, to the token unit", () => {
    for (const exercise of ["end", "best", "uniform"] as const) {
      for (const strikeMode of ["live_spot", "cip_fair"] as const) {
        const result = Result.getOrThrow(backtest(exercise, { strikeMode }))
        assert.strictEqual(result.locks.length, 4) // starts on days 0, 3, 6, 9; day 12's window passes the end
        let payouts = Money.zero
        for (const lock of result.locks) {
          const rate = Money.unsafe(handMade[handMade.findIndex((_, i) => day(i) === lock.exercisedOn)]!)
          assert.isTrue(Money.equals(rate, lock.exerciseRate))
          const expected = Settlement.payout(
            { ...template, maxTransactionAmount: template.notionalAmount, lockedRate: lock.lockedRate },
            rate,
            { _tag: "FromBase", liveExecutionRate: rate }
          ).amount
          assert.strictEqual(Money.formatFixed(lock.payout, 6), Money.formatFixed(expected, 6))
          if (exercise === "end") assert.strictEqual(lock.exercisedOn, lock.windowEnd)
          if (strikeMode === "live_spot") assert.isTrue(Money.equals(lock.lockedRate, lock.spot))
          // cip_fair as the pricer takes it: the forward at the worse window end, never above the spot here
          else assert.isFalse(Money.greaterThan(lock.lockedRate, lock.spot))
          assert.isTrue(Money.isPositive(lock.premium))
          payouts = Money.sum(payouts, lock.payout)
        }
        assert.isTrue(Money.equals(payouts, result.totals.payouts))
        assert.isTrue(
          Money.equals(result.totals.customersNet, Money.subtract(result.totals.payouts, result.totals.premiums))
        )
      }
    }
    // best: the window's lowest rate, so at least what end pays
    const best = Result.getOrThrow(backtest("best"))
    const end = Result.getOrThrow(backtest("end"))
    best.locks.forEach((lock, i) => {
      assert.isFalse(Money.lessThan(lock.payout, end.locks[i]!.payout))
    })
  })

  it("prices a forward's fee and deposit as the quote pricer does", () => {
    const result = Result.getOrThrow(backtest("end", { contractType: "forward" }))
    for (const lock of result.locks) assert.isNotNull(lock.deposit)
  })

  it("a forward's customer walks away when the market beats the locked rate by more than the deposit", () => {
    // a rally past the deposit's worth (10 % of 10,000 USD is about 5,400 BRL at 5.4: a rate 11 % up walks away)
    const rally = ["5.40", "5.41", "5.43", "6.10", "6.20", "6.25", "5.42", "5.41", "5.40"]
    const series = Result.getOrThrow(LockSimulation.parseSeries(rally.map((r, i) => `${day(i)},${r}`).join("\n")))
    const result = Result.getOrThrow(
      LockSimulation.backtest({
        series,
        snapshot: illustrative,
        template: { ...template, contractType: "forward", tenorDays: 3 },
        everyDays: 3,
        exercise: "end"
      })
    )
    assert.deepStrictEqual(
      result.locks.map((l) => [l.start, l.exercisedOn, l.forfeited]),
      [
        [day(0), day(3), true], // locked near 5.40, the market at 6.10 at the end: the deposit is worth less
        [day(3), day(6), false] // 6.10 to 5.42: a payout, the deposit released
      ]
    )
    const [walked, paid] = result.locks as [LockSimulation.BacktestLock, LockSimulation.BacktestLock]
    assert.isTrue(Money.isZero(walked.payout))
    assert.isTrue(Money.equals(walked.net, Money.subtract(Money.subtract(Money.zero, walked.premium), walked.deposit!)))
    assert.isTrue(Money.isPositive(paid.payout))
    assert.isTrue(Money.equals(paid.net, Money.subtract(paid.payout, paid.premium)))
    assert.strictEqual(result.totals.locksForfeited, 1)
    assert.isTrue(Money.equals(result.totals.forfeits, walked.deposit!))
    assert.isTrue(
      Money.equals(
        result.totals.customersNet,
        Money.subtract(Money.subtract(result.totals.payouts, result.totals.premiums), result.totals.forfeits)
      )
    )
    assert.strictEqual(
      result.totals.lossRatio,
      Money.toModel(result.totals.payouts) / Money.toModel(result.totals.premiums)
    )
    // what was run travels with the result
    assert.deepInclude(result.settings, { contractType: "forward", tenorDays: 3, everyDays: 3, exercise: "end" })
    assert.deepInclude(result.settings, { seed: null, from: day(0), to: day(8) })
  })

  it("refuses a lock the service would not sell: past the horizon, above the largest single lock", () => {
    const year = Array.from({ length: 400 }, (_, i) => `${day(i)},5.40`).join("\n")
    const series = Result.getOrThrow(LockSimulation.parseSeries(year))
    const run = (overrides: Partial<LockSimulation.LockTemplate>) =>
      LockSimulation.backtest({
        series,
        snapshot: illustrative,
        template: { ...template, ...overrides },
        everyDays: 30,
        exercise: "end"
      })
    const tooLong = run({ tenorDays: 365 })
    assert.isTrue(Result.isFailure(tooLong))
    if (Result.isFailure(tooLong)) {
      assert.deepInclude(tooLong.failure, { _tag: "SimulationRefused", code: "validation_error" })
      assert.match(tooLong.failure.message, /^the service would not sell this lock: window_end: .*within 180 days/u)
    }
    const tooLarge = run({ notionalAmount: Money.unsafe("100000000000") })
    assert.isTrue(Result.isFailure(tooLarge))
    if (Result.isFailure(tooLarge)) {
      assert.deepInclude(tooLarge.failure, { _tag: "SimulationRefused", code: "corridor_capacity_exceeded" })
    }
    assert.isTrue(Result.isSuccess(run({ tenorDays: 180 })))
  })

  it("refuses a series quoted the other way round, naming the snapshot's rate and its convention", () => {
    // USD per BRL where the direction is quoted BRL per USD
    const inverted = handMade.map(
      (r, i) => `${day(i)},${Money.format(Money.roundDown(Money.divide(Money.one, Money.unsafe(r)), 6))}`
    )
    const series = Result.getOrThrow(LockSimulation.parseSeries(inverted.join("\n")))
    const refusedSeries = LockSimulation.backtest({
      series,
      snapshot: illustrative,
      template,
      everyDays: 3,
      exercise: "end"
    })
    assert.isTrue(Result.isFailure(refusedSeries))
    if (Result.isFailure(refusedSeries)) {
      assert.deepInclude(refusedSeries.failure, { _tag: "SeriesError", reason: "off_snapshot" })
      assert.match(
        refusedSeries.failure.message,
        /the series' last rate 0\.18\d+ is more than 3 times away from the snapshot's USD_TO_BRL rate 5\.\d+ \(BRL per USD\)/u
      )
    }
  })

  const parseError = (text: string) => {
    const r = LockSimulation.parseSeries(text)
    assert.isTrue(Result.isFailure(r))
    return (r as Result.Failure<LockSimulation.SpotSeries, LockSimulation.SeriesError>).failure
  }

  it("refuses a series with gaps, unsorted dates or non-numeric rates, naming the line", () => {
    const gap = parseError("2025-01-01,5.40\n2025-01-02,5.41\n2025-01-10,5.42\n")
    assert.strictEqual(gap.reason, "gap")
    assert.strictEqual(gap.line, 3)
    assert.match(gap.message, /8 days between 2025-01-02 and 2025-01-10/u)
    const unsorted = parseError("date,rate\n2025-01-02,5.40\n2025-01-01,5.41\n")
    assert.strictEqual(unsorted.reason, "unsorted")
    assert.match(unsorted.message, /line 3: 2025-01-01 does not come after 2025-01-02/u)
    const repeated = parseError("2025-01-02,5.40\n2025-01-02,5.41\n")
    assert.strictEqual(repeated.reason, "unsorted")
    const text = parseError("2025-01-01,5.40\n2025-01-02,abc\n")
    assert.strictEqual(text.reason, "non_numeric")
    assert.match(text.message, /line 2: the rate "abc" is not a positive decimal number/u)
    assert.strictEqual(parseError("2025-01-01,5.40\n2025-13-45,5.41\n").reason, "bad_line")
    // a malformed first date is an error, not a header skipped
    const firstLine = parseError("2025-1-01,5.40\n2025-01-02,5.41\n2025-01-03,5.42\n")
    assert.deepInclude(firstLine, { reason: "bad_line", line: 1 })
    assert.strictEqual(parseError("date,rate\n").reason, "empty")
    // a weekend is not a gap; the header is optional
    assert.isTrue(Result.isSuccess(LockSimulation.parseSeries("2025-01-03,5.40\n2025-01-06,5.41\n")))
  })

  it("refuses a tenor past the series' end and a direction the snapshot does not price", () => {
    const tooLong = backtest("end", { tenorDays: 30 })
    assert.isTrue(Result.isFailure(tooLong))
    if (Result.isFailure(tooLong)) {
      assert.strictEqual(tooLong.failure._tag, "SeriesError")
      assert.match(
        tooLong.failure.message,
        /a 30-day lock from the series' first date \(2025-01-01\) ends after its last/u
      )
    }
    const zeroCadence = backtest("end", { tenorDays: 0 })
    assert.isTrue(Result.isFailure(zeroCadence) && zeroCadence.failure._tag === "SeriesError")
    const otherCurrency = backtest("end", { notionalCurrency: "EUR" })
    assert.isTrue(
      Result.isFailure(otherCurrency) && /EUR is neither side of USD_TO_BRL/u.test(otherCurrency.failure.message)
    )
    const { "USD/BRL": _, ...spot } = illustrative.spot
    const noBrl = LockSimulation.backtest({
      series: Result.getOrThrow(LockSimulation.parseSeries(csv)),
      snapshot: { ...illustrative, spot },
      template,
      everyDays: 3,
      exercise: "end"
    })
    assert.isTrue(Result.isFailure(noBrl))
    if (Result.isFailure(noBrl)) {
      assert.strictEqual(noBrl.failure._tag, "SimulationRefused")
      assert.match(noBrl.failure.message, /does not price USD_TO_BRL/u)
    }
  })
})
