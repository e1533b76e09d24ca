/**
 * What locks bought along a history would have paid: a template priced as the API would sell it on the snapshot,
 * bought each day of the series and settled at the series' rates.
 */
import * as Rules from "./internal/rules.ts"
import { SeriesError, SimulationRefused } from "./Simulated.ts"
import type { SpotSeries } from "./SpotSeries.ts"
import { DateTime, Option, Result, Schema } from "effect"
import { type Direction, includes, pair } from "../kernel/Corridor.ts"
import * as Money from "../kernel/Money.ts"
import { fiatOf, type SettlementCurrency } from "../kernel/Rail.ts"
import * as CorridorMarket from "../market/CorridorMarket.ts"
import type * as MarketSnapshot from "../market/MarketSnapshot.ts"
import * as QuotePolicy from "../pricing/QuotePolicy.ts"
import * as QuotePricer from "../pricing/QuotePricer.ts"
import type { ContractType, QuoteRequest } from "../terms/QuoteRequest.ts"
import * as Settlement from "../terms/Settlement.ts"
import * as Random from "./internal/random.ts"

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
  const tenorMs = template.tenorDays * Rules.millisPerDay
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
      `a ${template.tenorDays}-day lock from the series' first date (${Rules.isoDay(dates[0]!)}) ends after its last (${Rules.isoDay(dates.at(-1)!)})`
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
  const sellable = Rules.priceAsTheApi(
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
  const toFiat = Rules.conversionModel(
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
    nextStart = start + input.everyDays * Rules.millisPerDay
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
    const inputs = Rules.pricingInputsOf(spot, w)
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
    const conversion = Option.getOrThrow(
      Rules.conversionAt(template.direction, template.settlementCurrency, rate, cross)
    )
    const payout = Settlement.payout(lock, rate, conversion).amount
    const premium = charged.success.premiumAmount
    const deposit = charged.success.depositAmount
    const forfeited =
      template.contractType === "forward" &&
      deposit !== null &&
      Rules.walksAway(
        Money.toModel(rate),
        Money.toModel(lockedRate),
        Settlement.notionalBaseModel(lock),
        toFiat(Money.toModel(rate)),
        Money.toModel(deposit)
      )
    const row: BacktestLock = {
      start: Rules.isoDay(start),
      windowEnd: Rules.isoDay(end),
      spot,
      lockedRate,
      premium,
      deposit,
      exercisedOn: Rules.isoDay(dates[at]!),
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
      from: Rules.isoDay(dates[0]!),
      to: Rules.isoDay(dates.at(-1)!)
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
