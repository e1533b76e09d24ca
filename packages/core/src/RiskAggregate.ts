/**
 * Adds the revalued locks up into one report per environment (sandbox and production never mix): per market
 * pair, per corridor, per currency, per partner; the committed, not yet funded locks and the payouts due
 * beside them; the scenarios' `mtm` changes worst first.
 *
 * Sums are exactly rounded (`ExactSum`), so figures do not depend on the order of the book or of the slices a
 * host revalued in parallel; each figure then crosses into a decimal once (`RiskReport.figure`).
 */
import { BigDecimal, type DateTime, Option } from "effect"
import { type Currency, type Direction, directions, pair as sidesOf } from "./Corridor.ts"
import { ExactSum } from "./internal/exactSum.ts"
import type { LockRisk } from "./LockRisk.ts"
import * as MarketSnapshot from "./MarketSnapshot.ts"
import * as Money from "./Money.ts"
import type { Environment } from "./Partner.ts"
import { fiatOf, type FundsCurrency } from "./Rail.ts"
import { type Book, type BookContract, lockTerms, pairNotional, standing } from "./RiskBook.ts"
import type { RiskPlan } from "./RiskPlan.ts"
import {
  type BookRisk,
  type Committed,
  type CorridorRisk,
  type CurrencyExposure,
  figure,
  type PairRisk,
  type PartnerRisk,
  type PayoutDue,
  type StressResult
} from "./RiskReport.ts"
import * as Settlement from "./Settlement.ts"

const sumOf = (values: ReadonlyArray<number>): number => {
  const s = new ExactSum()
  for (const v of values) s.add(v)
  return s.value()
}

class PairSums {
  locks = 0
  readonly notional = new ExactSum()
  readonly mtm = new ExactSum()
  readonly delta = new ExactSum()
  readonly gamma = new ExactSum()
  readonly vega = new ExactSum()
  readonly theta = new ExactSum()

  add(risk: LockRisk): void {
    this.locks++
    this.notional.add(pairNotional(risk.lock))
    this.mtm.add(risk.mtm)
    if (risk.greeks !== null) {
      this.delta.add(risk.greeks.delta)
      this.gamma.add(risk.greeks.gamma)
      this.vega.add(risk.greeks.vega)
      this.theta.add(risk.greeks.theta)
    }
  }
}

class CorridorSums {
  openLocks = 0
  committedLocks = 0
  readonly openNotional = new ExactSum()
  readonly committedNotional = new ExactSum()
  readonly mtm = new ExactSum()
  readonly delta = new ExactSum()
}

class PartnerSums {
  readonly pairs = new Map<string, PairSums>()
}

class CommittedSums {
  locks = 0
  readonly notional = new ExactSum()
}

class EnvironmentSums {
  readonly pairs = new Map<string, PairSums>()
  readonly corridors = new Map<Direction, CorridorSums>(directions.map((d) => [d, new CorridorSums()]))
  readonly partners = new Map<string, PartnerSums>()
  readonly committed = new Map<string, CommittedSums>()
  readonly payouts = new Map<string, { token: FundsCurrency; chain: string; count: number; amount: Money.Decimal }>()
  /** Per scenario, per pair: Σ of the locks' `mtm` under the scenario. */
  readonly scenarios: Array<Map<string, ExactSum>>

  constructor(plan: RiskPlan) {
    for (const pair of plan.pairs.keys()) {
      this.pairs.set(pair, new PairSums())
      this.committed.set(pair, new CommittedSums())
    }
    this.scenarios = plan.scenarios.map(() => new Map([...plan.pairs.keys()].map((p) => [p, new ExactSum()])))
  }

  partner(id: string): PartnerSums {
    let sums = this.partners.get(id)
    if (sums === undefined) {
      sums = new PartnerSums()
      this.partners.set(id, sums)
    }
    return sums
  }
}

/** What a payout due amounts to: its payout row's amount, or the exercise's payout computed as the payout pass would. */
const payoutOf = (
  contract: BookContract,
  payouts: ReadonlyMap<string, NonNullable<Book["payouts"]>[number]>,
  snapshot: MarketSnapshot.MarketSnapshot
): Option.Option<{ readonly token: FundsCurrency; readonly amount: Money.Decimal }> => {
  const stored = payouts.get(contract.id)
  if (stored !== undefined) return Option.some({ token: stored.currency, amount: stored.amount })
  const exercise = contract.exercise
  if (exercise === null) return Option.none()
  const fiat = fiatOf(exercise.payoutCurrency)
  const direct = Settlement.conversionFor(contract.direction, fiat, exercise.liveExecutionRate)
  // a cross rate at the snapshot's mid (the payout pass reads it at the exercise instant)
  const conversion: Option.Option<Settlement.Conversion> =
    direct !== "needs_cross_rate"
      ? Option.some(direct)
      : Option.map(MarketSnapshot.midRate(snapshot, sidesOf(contract.direction).quote, fiat), (fiatPerQuote) => ({
          _tag: "Cross" as const,
          fiatPerQuote
        }))
  return Option.map(conversion, (c) => ({
    token: exercise.payoutCurrency,
    amount: Settlement.payout(contract, exercise.liveExecutionRate, c).amount
  }))
}

/** Adds the revalued open locks, the committed locks and the payouts due of `book` up, per environment. */
export const sums = (input: {
  readonly plan: RiskPlan
  readonly book: Book
  readonly locks: ReadonlyArray<LockRisk>
  readonly environments: ReadonlyArray<Environment>
  readonly snapshot: MarketSnapshot.MarketSnapshot
}): ReadonlyMap<Environment, EnvironmentSums> => {
  const { plan } = input
  const byEnvironment = new Map(input.environments.map((e) => [e, new EnvironmentSums(plan)]))
  for (const risk of input.locks) {
    const env = byEnvironment.get(risk.lock.environment)
    if (env === undefined) continue
    const { lock } = risk
    env.pairs.get(lock.pair)!.add(risk)
    const partner = env.partner(lock.partnerId)
    let partnerPair = partner.pairs.get(lock.pair)
    if (partnerPair === undefined) {
      partnerPair = new PairSums()
      partner.pairs.set(lock.pair, partnerPair)
    }
    partnerPair.add(risk)
    const corridor = env.corridors.get(lock.direction)!
    corridor.openLocks++
    corridor.openNotional.add(lock.notionalBase)
    corridor.mtm.add(risk.corridorMtm)
    if (risk.greeks !== null) corridor.delta.add(risk.greeks.corridorDelta)
    risk.scenarioMtm.forEach((mtm, s) => env.scenarios[s]!.get(lock.pair)!.add(mtm))
  }
  const payouts = new Map((input.book.payouts ?? []).map((p) => [p.contractId, p]))
  for (const contract of input.book.contracts) {
    const env = byEnvironment.get(contract.environment)
    if (env === undefined) continue
    const where = standing(contract)
    if (where === "committed") {
      const terms = lockTerms(contract)
      const committed = env.committed.get(terms.pair)!
      committed.locks++
      committed.notional.add(pairNotional(terms))
      const corridor = env.corridors.get(terms.direction)!
      corridor.committedLocks++
      corridor.committedNotional.add(terms.notionalBase)
      env.partner(terms.partnerId)
    } else if (where === "payout_due") {
      const due = payoutOf(contract, payouts, input.snapshot)
      if (Option.isNone(due)) continue
      const key = `${due.value.token}/${contract.chain}`
      const entry = env.payouts.get(key) ?? { token: due.value.token, chain: contract.chain, count: 0, amount: Money.zero }
      env.payouts.set(key, { ...entry, count: entry.count + 1, amount: Money.sum(entry.amount, due.value.amount) })
    }
  }
  return byEnvironment
}

export type { EnvironmentSums }

const usd = (plan: RiskPlan, currency: Currency): number => plan.usdPer.get(currency)!

const pairFigures = (plan: RiskPlan, pair: string, s: PairSums): PairRisk => {
  const p = plan.pairs.get(pair)!
  const toUsd = usd(plan, p.quote)
  const notional = s.notional.value()
  const mtm = s.mtm.value()
  const vega = s.vega.value()
  const theta = s.theta.value()
  return {
    pair,
    spot: Money.fromModel(p.spot),
    open_locks: s.locks,
    open_notional: figure(notional),
    open_notional_usd: figure(notional * usd(plan, p.base)),
    mtm: figure(mtm),
    mtm_usd: figure(mtm * toUsd),
    delta: figure(s.delta.value()),
    gamma: figure(s.gamma.value()),
    vega: figure(vega),
    vega_usd: figure(vega * toUsd),
    theta: figure(theta),
    theta_usd: figure(theta * toUsd)
  }
}

/** USD totals of some pairs' sums: notional, mtm, vega, theta. */
const usdTotals = (plan: RiskPlan, pairs: ReadonlyMap<string, PairSums>) => {
  const totals = { notional: new ExactSum(), mtm: new ExactSum(), vega: new ExactSum(), theta: new ExactSum() }
  for (const [pair, s] of pairs) {
    const p = plan.pairs.get(pair)!
    const toUsd = usd(plan, p.quote)
    totals.notional.add(s.notional.value() * usd(plan, p.base))
    totals.mtm.add(s.mtm.value() * toUsd)
    totals.vega.add(s.vega.value() * toUsd)
    totals.theta.add(s.theta.value() * toUsd)
  }
  return {
    open_notional_usd: figure(totals.notional.value()),
    mtm_usd: figure(totals.mtm.value()),
    vega_usd: figure(totals.vega.value()),
    theta_usd: figure(totals.theta.value())
  }
}

const currencyExposures = (plan: RiskPlan, env: EnvironmentSums): ReadonlyArray<CurrencyExposure> => {
  const exposure = new Map<Currency, ExactSum>([...plan.usdPer.keys()].map((c) => [c, new ExactSum()]))
  for (const [pair, s] of env.pairs) {
    const p = plan.pairs.get(pair)!
    const delta = s.delta.value()
    exposure.get(p.base)!.add(delta)
    exposure.get(p.quote)!.add(-delta * p.spot)
  }
  return [...exposure].map(([currency, sum]) => {
    const units = sum.value()
    return { currency, net_exposure: figure(units), net_exposure_usd: figure(units * usd(plan, currency)) }
  })
}

const corridorFigures = (env: EnvironmentSums): ReadonlyArray<CorridorRisk> =>
  [...env.corridors].map(([corridor, s]) => ({
    corridor,
    open_locks: s.openLocks,
    open_notional: figure(s.openNotional.value()),
    committed_locks: s.committedLocks,
    committed_notional: figure(s.committedNotional.value()),
    mtm: figure(s.mtm.value()),
    delta: figure(s.delta.value())
  }))

const committedFigures = (plan: RiskPlan, env: EnvironmentSums): Committed => {
  let locks = 0
  const usdNotional = new ExactSum()
  const pairs = [...env.committed].map(([pair, s]) => {
    const notional = s.notional.value()
    const notionalUsd = notional * usd(plan, plan.pairs.get(pair)!.base)
    locks += s.locks
    usdNotional.add(notionalUsd)
    return { pair, locks: s.locks, notional: figure(notional), notional_usd: figure(notionalUsd) }
  })
  return { locks, notional_usd: figure(usdNotional.value()), pairs }
}

const payoutFigures = (env: EnvironmentSums, snapshot: MarketSnapshot.MarketSnapshot): ReadonlyArray<PayoutDue> =>
  [...env.payouts.values()]
    .sort((a, b) => (a.token === b.token ? a.chain.localeCompare(b.chain) : a.token.localeCompare(b.token)))
    .map((p) => {
      const usdPerToken = MarketSnapshot.midRate(snapshot, fiatOf(p.token), "USD")
      return {
        token: p.token,
        chain: p.chain as PayoutDue["chain"],
        payouts: p.count,
        amount: Money.roundDown(p.amount),
        amount_usd: Option.match(usdPerToken, {
          onNone: () => Money.zero,
          onSome: (rate) =>
            BigDecimal.round(Money.multiply(p.amount, rate), { scale: 2, mode: "half-from-zero" })
        })
      }
    })

export interface Header {
  readonly environment: Environment
  readonly as_of: DateTime.Utc
  readonly snapshot_as_of: DateTime.Utc
  readonly snapshot_id: string | null
}

/** One environment's figures (the plan must have the greeks). */
export const bookRisk = (
  plan: RiskPlan,
  env: EnvironmentSums,
  header: Header,
  snapshot: MarketSnapshot.MarketSnapshot
): BookRisk => {
  let openLocks = 0
  for (const s of env.pairs.values()) openLocks += s.locks
  const partners: ReadonlyArray<PartnerRisk> = [...env.partners]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([partnerId, s]) => {
      const pairs = [...plan.pairs.keys()].filter((p) => s.pairs.has(p))
      return {
        partner_id: partnerId,
        open_locks: pairs.reduce((n, p) => n + s.pairs.get(p)!.locks, 0),
        ...usdTotals(plan, s.pairs),
        pairs: pairs.map((p) => pairFigures(plan, p, s.pairs.get(p)!))
      }
    })
  return {
    ...header,
    open_locks: openLocks,
    ...usdTotals(plan, env.pairs),
    pairs: [...env.pairs].map(([pair, s]) => pairFigures(plan, pair, s)),
    corridors: corridorFigures(env),
    currencies: currencyExposures(plan, env),
    partners,
    committed: committedFigures(plan, env),
    payouts_due: payoutFigures(env, snapshot)
  }
}

/**
 * The scenarios' results, worst first: per pair the change of `mtm` in its QUOTE and in USD (the scenario's
 * `mtm` at its shocked rates less today's at today's), and their total. Equal totals keep the scenarios' order.
 */
export const stressResults = (plan: RiskPlan, env: EnvironmentSums): ReadonlyArray<StressResult> =>
  plan.scenarios
    .map((scenario, s) => {
      const shockedUsd = plan.scenarioUsdPer[s]!
      const changes = [...env.pairs].map(([pair, sums]) => {
        const p = plan.pairs.get(pair)!
        const before = sums.mtm.value()
        const after = env.scenarios[s]!.get(pair)!.value()
        const changeUsd = sumOf([after * shockedUsd.get(p.quote)!, -before * usd(plan, p.quote)])
        return { pair, change: sumOf([after, -before]), changeUsd }
      })
      const total = sumOf(changes.map((c) => c.changeUsd))
      return {
        total,
        result: {
          name: scenario.name,
          description: scenario.description,
          mtm_change_usd: figure(total),
          pairs: changes.map((c) => ({
            pair: c.pair,
            mtm_change: figure(c.change),
            mtm_change_usd: figure(c.changeUsd)
          }))
        }
      }
    })
    .sort((a, b) => a.total - b.total)
    .map((r) => r.result)
