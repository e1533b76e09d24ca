/**
 * One environment's report from its sums (risk.md, Figures): per pair, corridor, currency and partner, the
 * committed, not yet funded locks and the payouts due (read from the book itself: they are few and exact), and
 * the scenarios' `mtm` changes worst first. Each model figure crosses into a decimal here, once.
 */
import { BigDecimal, Option } from "effect"
import { type Currency, directions, pair as sidesOf } from "../../kernel/Corridor.ts"
import * as ExactSum from "./exactSum.ts"
import * as MarketSnapshot from "../../market/MarketSnapshot.ts"
import * as Money from "../../kernel/Money.ts"
import type { Environment } from "../../terms/Partner.ts"
import { fiatOf, type FundsCurrency } from "../../kernel/Rail.ts"
import { type Book, type BookContract, type BookPayout, lockTerms, pairNotional, standing } from "./RiskBook.ts"
import type { RiskPlan } from "./RiskPlan.ts"
import {
  type BookRisk,
  type BookStress,
  type Committed,
  type CorridorRisk,
  type CurrencyExposure,
  figure,
  type PairRisk,
  type PayoutDue,
  type StressResult
} from "../RiskReport.ts"
import * as RiskSums from "./RiskSums.ts"
import * as Settlement from "../../terms/Settlement.ts"

const usd = (plan: RiskPlan, currency: Currency): number => plan.usdPer.get(currency)!

const pairFigures = (plan: RiskPlan, pair: string, s: RiskSums.PairSums): PairRisk => {
  const p = plan.pairs.get(pair)!
  const toUsd = usd(plan, p.quote)
  const notional = ExactSum.value(s.notional)
  const mtm = ExactSum.value(s.mtm)
  const vega = ExactSum.value(s.vega)
  const theta = ExactSum.value(s.theta)
  return {
    pair,
    spot: Money.fromModel(p.spot),
    open_locks: s.locks,
    open_notional: figure(notional),
    open_notional_usd: figure(notional * usd(plan, p.base)),
    mtm: figure(mtm),
    mtm_usd: figure(mtm * toUsd),
    delta: figure(ExactSum.value(s.delta)),
    gamma: figure(ExactSum.value(s.gamma)),
    vega: figure(vega),
    vega_usd: figure(vega * toUsd),
    theta: figure(theta),
    theta_usd: figure(theta * toUsd)
  }
}

/** USD totals over some pairs' sums: open notional, mtm, vega, theta. */
const usdTotals = (plan: RiskPlan, pairs: ReadonlyMap<string, RiskSums.PairSums>) => {
  const totals = { notional: ExactSum.make(), mtm: ExactSum.make(), vega: ExactSum.make(), theta: ExactSum.make() }
  for (const [pair, s] of pairs) {
    const p = plan.pairs.get(pair)!
    const toUsd = usd(plan, p.quote)
    ExactSum.add(totals.notional, ExactSum.value(s.notional) * usd(plan, p.base))
    ExactSum.add(totals.mtm, ExactSum.value(s.mtm) * toUsd)
    ExactSum.add(totals.vega, ExactSum.value(s.vega) * toUsd)
    ExactSum.add(totals.theta, ExactSum.value(s.theta) * toUsd)
  }
  return {
    open_notional_usd: figure(ExactSum.value(totals.notional)),
    mtm_usd: figure(ExactSum.value(totals.mtm)),
    vega_usd: figure(ExactSum.value(totals.vega)),
    theta_usd: figure(ExactSum.value(totals.theta))
  }
}

/** Net exposure per currency: each pair's delta as `+delta` of its BASE and `−delta × spot` of its QUOTE. */
const currencyExposures = (plan: RiskPlan, env: RiskSums.EnvironmentSums): ReadonlyArray<CurrencyExposure> => {
  const exposure = new Map<Currency, ExactSum.ExactSum>([...plan.usdPer.keys()].map((c) => [c, ExactSum.make()]))
  for (const [pair, s] of env.pairs) {
    const p = plan.pairs.get(pair)!
    const delta = ExactSum.value(s.delta)
    ExactSum.add(exposure.get(p.base)!, delta)
    ExactSum.add(exposure.get(p.quote)!, -delta * p.spot)
  }
  return [...exposure].map(([currency, sum]) => {
    const units = ExactSum.value(sum)
    return { currency, net_exposure: figure(units), net_exposure_usd: figure(units * usd(plan, currency)) }
  })
}

/** The book's committed, not yet funded locks of one environment, per pair and per corridor. */
const committedLocks = (book: Book, environment: Environment) =>
  book.contracts.filter((c) => c.environment === environment && standing(c) === "committed").map(lockTerms)

const corridorFigures = (
  env: RiskSums.EnvironmentSums,
  committed: ReadonlyArray<ReturnType<typeof lockTerms>>
): ReadonlyArray<CorridorRisk> =>
  directions.map((corridor) => {
    const open = RiskSums.corridorOf(env, corridor)
    const mine = committed.filter((c) => c.direction === corridor)
    return {
      corridor,
      open_locks: open.locks,
      open_notional: figure(ExactSum.value(open.notional)),
      committed_locks: mine.length,
      committed_notional: figure(ExactSum.of(...mine.map((c) => c.notionalBase))),
      mtm: figure(ExactSum.value(open.mtm)),
      delta: figure(ExactSum.value(open.delta))
    }
  })

const committedFigures = (plan: RiskPlan, committed: ReadonlyArray<ReturnType<typeof lockTerms>>): Committed => {
  const pairs = [...plan.pairs.values()].map((p) => {
    const mine = committed.filter((c) => c.pair === p.pair)
    const notional = ExactSum.of(...mine.map(pairNotional))
    return { pair: p.pair, locks: mine.length, notional, notionalUsd: notional * usd(plan, p.base) }
  })
  return {
    locks: committed.length,
    notional_usd: figure(ExactSum.of(...pairs.map((p) => p.notionalUsd))),
    pairs: pairs.map((p) => ({
      pair: p.pair,
      locks: p.locks,
      notional: figure(p.notional),
      notional_usd: figure(p.notionalUsd)
    }))
  }
}

/** What an exercised contract is owed: its payout row's amount, or its exercise's payout as the payout pass computes it. */
export const payoutOf = (
  contract: BookContract,
  stored: BookPayout | undefined,
  snapshot: MarketSnapshot.MarketSnapshot
): Option.Option<{ readonly token: FundsCurrency; readonly amount: Money.Decimal }> => {
  if (stored !== undefined) return Option.some({ token: stored.currency, amount: stored.amount })
  const exercise = contract.exercise
  if (exercise === null) return Option.none()
  const fiat = fiatOf(exercise.payoutCurrency)
  const direct = Settlement.conversionFor(contract.direction, fiat, exercise.liveExecutionRate)
  // a cross at the snapshot's mid (the payout pass reads the rate at the exercise instant)
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

/** Payouts due per token and chain (exact sums), by token then chain. */
const payoutsDue = (
  book: Book,
  environment: Environment,
  snapshot: MarketSnapshot.MarketSnapshot
): ReadonlyArray<PayoutDue> => {
  const stored = new Map((book.payouts ?? []).map((p) => [p.contractId, p]))
  const groups = new Map<
    string,
    { token: FundsCurrency; chain: PayoutDue["chain"]; count: number; amount: Money.Decimal }
  >()
  for (const contract of book.contracts) {
    if (contract.environment !== environment || standing(contract) !== "payout_due") continue
    const due = payoutOf(contract, stored.get(contract.id), snapshot)
    if (Option.isNone(due)) continue
    const chain = stored.get(contract.id)?.chain ?? contract.chain
    const key = `${due.value.token} ${chain}`
    const group = groups.get(key) ?? { token: due.value.token, chain, count: 0, amount: Money.zero }
    groups.set(key, { ...group, count: group.count + 1, amount: Money.sum(group.amount, due.value.amount) })
  }
  return [...groups.keys()].sort().map((key) => {
    const g = groups.get(key)!
    const usdPerToken = MarketSnapshot.midRate(snapshot, fiatOf(g.token), "USD")
    return {
      token: g.token,
      chain: g.chain,
      payouts: g.count,
      amount: Money.roundDown(g.amount),
      amount_usd: Option.match(usdPerToken, {
        onNone: () => Money.zero,
        onSome: (rate) => BigDecimal.round(Money.multiply(g.amount, rate), { scale: 2, mode: "half-from-zero" })
      })
    }
  })
}

/** What opens each report: `BookStress` without its results. */
export type Header = Omit<BookStress, "stress">

/** One environment's figures (from a plan with the greeks). */
export const bookRisk = (input: {
  readonly plan: RiskPlan
  readonly env: RiskSums.EnvironmentSums
  readonly book: Book
  readonly header: Header
  readonly snapshot: MarketSnapshot.MarketSnapshot
}): BookRisk => {
  const { plan, env } = input
  const committed = committedLocks(input.book, input.header.environment)
  const pairIds = [...plan.pairs.keys()]
  const partnerIds = [...new Set([...env.partners.keys(), ...committed.map((c) => c.partnerId)])].sort()
  return {
    ...input.header,
    open_locks: pairIds.reduce((n, p) => n + RiskSums.pairOf(env, p).locks, 0),
    ...usdTotals(plan, env.pairs),
    pairs: pairIds.map((pair) => pairFigures(plan, pair, RiskSums.pairOf(env, pair))),
    corridors: corridorFigures(env, committed),
    currencies: currencyExposures(plan, env),
    partners: partnerIds.map((partnerId) => {
      const own = env.partners.get(partnerId) ?? new Map<string, RiskSums.PairSums>()
      const pairs = pairIds.filter((p) => own.has(p))
      return {
        partner_id: partnerId,
        open_locks: pairs.reduce((n, p) => n + own.get(p)!.locks, 0),
        ...usdTotals(plan, own),
        pairs: pairs.map((p) => pairFigures(plan, p, own.get(p)!))
      }
    }),
    committed: committedFigures(plan, committed),
    payouts_due: payoutsDue(input.book, input.header.environment, input.snapshot)
  }
}

/**
 * The scenarios' results, worst first: per pair the change of `mtm` in its QUOTE, and in USD (the scenario's
 * `mtm` at its shocked rates less today's at today's), and their total. Equal totals keep the scenarios' order.
 */
export const stressResults = (plan: RiskPlan, env: RiskSums.EnvironmentSums): ReadonlyArray<StressResult> =>
  plan.scenarios
    .map((scenario, s) => {
      const shockedUsd = plan.scenarioUsdPer[s]!
      const changes = [...plan.pairs.values()].map((p) => {
        const before = ExactSum.value(RiskSums.pairOf(env, p.pair).mtm)
        const after = ExactSum.value(env.scenarios[s]!.get(p.pair) ?? [])
        return {
          pair: p.pair,
          change: ExactSum.of(after, -before),
          changeUsd: ExactSum.of(after * shockedUsd.get(p.quote)!, -before * usd(plan, p.quote))
        }
      })
      const total = ExactSum.of(...changes.map((c) => c.changeUsd))
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
