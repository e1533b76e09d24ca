/**
 * The P&L between two closes of one environment, and why (`PeriodPnl` names the lines). Pure: from the two
 * closes, the contracts' ledger entries booked between them and the treasury's, so a close computes it when it is
 * written and a test can compute it between any two closes (a month's first and last).
 *
 * Per market pair, in USD:
 * - realised: the ledger's flows, each token's amount in USD (a USD token's exactly; another at the later close's
 *   rate), and the hedges' realised P&L in the period at the later close's rate;
 * - unrealised: the book's value at the later close less at the earlier (each close's to the cent, in USD at its
 *   own rates: the open locks' mtm, less payouts due, plus the hedges' marks), less the hedges' realised P&L;
 * - the explain. A lock open at both closes moves by its earlier figures: theta × days, delta × Δspot,
 *   ½ gamma × Δspot², vega × the change of its own vol, rates (revalued at the earlier instant on the later curves,
 *   the earlier spots and vols), each in the pair's QUOTE at the later close's rate, plus the translation of its
 *   earlier value to the later rate. A lock sold in the period is new business: its premium and its mtm at the
 *   later close (or nothing, gone by then). A lock that left the book is settled: what it paid out or forfeited,
 *   and the change of what is owed on it, against the mtm it was held at. The hedges' line is their change of mark.
 * - unexplained = total − every line: what second order leaves over (cross terms, third order, new locks' moves
 *   between their sale and the close), kept, never rounded away.
 */
import { BigDecimal, type DateTime, Effect } from "effect"
import { type Currency, marketPair, marketPairCurrencies, marketPairKey } from "../kernel/Corridor.ts"
import * as Money from "../kernel/Money.ts"
import type { Chain, FundsCurrency } from "../kernel/Rail.ts"
import type { TreasuryEntry } from "../lifecycle/TreasuryLedger.ts"
import * as MarketSnapshot from "../market/MarketSnapshot.ts"
import * as Risk from "../risk/Risk.ts"
import type { CloseLock, ClosePair, DailyClose } from "./DailyClose.ts"
import type { ContractFlow } from "./DailyCloseRepo.ts"
import { tokenUsd } from "./internal/closeBook.ts"
import {
  addLines,
  explainedLines,
  type LineName,
  type NetworkFees,
  type PairPnl,
  type PartnerPnl,
  type PeriodPnl,
  type PnlLines,
  type TokenFlows,
  zeroLines
} from "./PeriodPnl.ts"
import { getOrInsert } from "../kernel/Maps.ts"

const millisPerDay = 86_400_000

type Explained = (typeof explainedLines)[number]

/** The model lines of one pair, floats, before they cross into decimals: QUOTE for the greeks', USD for the rest. */
interface Model {
  theta: number
  roll: number
  delta: number
  gamma: number
  vega: number
  vanna: number
  volga: number
  rates: number
  /** USD. */
  translation: number
  /** Σ mtm of the locks sold in the period and open at the later close, QUOTE. */
  soldMtm: number
  /** Σ mtm × the earlier rate of the locks that left the book, USD. */
  heldAtUsd: number
  settledLocks: number
}

const emptyModel = (): Model => ({
  theta: 0,
  roll: 0,
  delta: 0,
  gamma: 0,
  vega: 0,
  vanna: 0,
  volga: 0,
  rates: 0,
  translation: 0,
  soldMtm: 0,
  heldAtUsd: 0,
  settledLocks: 0
})

interface Realised {
  premiums: Money.Decimal
  forfeits: Money.Decimal
  payouts: Money.Decimal
  sold: Set<string>
}

const emptyRealised = (): Realised => ({
  premiums: Money.zero,
  forfeits: Money.zero,
  payouts: Money.zero,
  sold: new Set()
})

/** A contract ledger entry's effect on the P&L, in its token: premiums and forfeits earned, payouts paid. */
const addFlow = (into: Realised, flow: ContractFlow, usd: Money.Decimal) => {
  const earned = Money.subtract(Money.zero, usd)
  if (flow.account === "premium_income") {
    into.premiums = Money.sum(into.premiums, earned)
    into.sold.add(flow.contractId)
  } else if (flow.account === "forfeited_deposits") into.forfeits = Money.sum(into.forfeits, earned)
  else if (flow.account === "payout_expense") into.payouts = Money.sum(into.payouts, earned)
}

/** A snapshot with the later one's curves (rates and the holidays they count with). */
const withCurvesOf = (snapshot: MarketSnapshot.MarketSnapshot, later: MarketSnapshot.MarketSnapshot) => ({
  ...snapshot,
  rates: later.rates,
  holidays: later.holidays
})

const curvesMoved = (earlier: MarketSnapshot.MarketSnapshot, later: MarketSnapshot.MarketSnapshot): boolean =>
  MarketSnapshot.canonicalJson(withCurvesOf(earlier, later)) !== MarketSnapshot.canonicalJson(earlier)

const pairOf = (close: DailyClose, pair: string): ClosePair | undefined => close.pairs.find((p) => p.pair === pair)

const spotOf = (close: DailyClose, pair: string): number => Money.toModel(pairOf(close, pair)?.spot ?? Money.zero)

/** A plan without greeks: what a lock is worth, or what its vol is, on `snapshot` at `at`. */
const planOn = (snapshot: MarketSnapshot.MarketSnapshot, at: DateTime.Utc) =>
  Risk.plan({ snapshot, now: at, greeks: false, scenarios: [] })

/** A close's lock as the model reads it. */
const termsOf = (close: DailyClose, lock: CloseLock): Risk.LockTerms => {
  const pair = marketPairKey(lock.direction)
  return {
    id: lock.contract_id,
    partnerId: lock.partner_id,
    environment: close.environment,
    direction: lock.direction,
    pair,
    inverted: marketPair(lock.direction).inverted,
    notionalBase: lock.notional_base,
    strike: lock.strike,
    windowStart: lock.window_start,
    windowEnd: lock.window_end
  }
}

/** The book's value of a pair at a close, USD: open locks' mtm, less payouts due, plus the hedges' marks. */
const bookValue = (p: ClosePair | undefined): Money.Decimal =>
  p === undefined ? Money.zero : Money.sum(Money.subtract(p.mtm_usd, p.payouts_due_usd), p.hedge_mark_usd)

const toQuote = (usd: Money.Decimal, usdPerQuote: number): Money.Decimal =>
  Money.figure(Money.toModel(usd) / usdPerQuote)

/** Fills `unexplained` as total − every explained line. */
const withUnexplained = (lines: Omit<PnlLines, "unexplained">): PnlLines => ({
  ...lines,
  unexplained: explainedLines.reduce((rest, name: Explained) => Money.subtract(rest, lines[name]), lines.total)
})

export const between = (input: {
  readonly earlier: DailyClose
  readonly later: DailyClose
  /** The environment's contract ledger entries booked after the earlier close, up to the later. */
  readonly flows: ReadonlyArray<ContractFlow>
  /** The environment's treasury entries booked in the same period. */
  readonly treasury: ReadonlyArray<Pick<TreasuryEntry, "account" | "chain" | "currency" | "amount">>
}): Effect.Effect<PeriodPnl> =>
  Effect.gen(function* () {
    const { earlier, later } = input
    const days = (later.closed_at.epochMilliseconds - earlier.closed_at.epochMilliseconds) / millisPerDay
    const u1 = (c: Currency) => Money.toModel(earlier.usd_per[c] ?? later.usd_per[c])
    const u2 = (c: Currency) => Money.toModel(later.usd_per[c])

    // realised: per pair, per partner and pair, per token
    const byPair = new Map<string, Realised>()
    const byPartner = new Map<string, Map<string, Realised>>()
    const byToken = new Map<FundsCurrency, Realised>()
    for (const flow of input.flows) {
      const pair = marketPairKey(flow.direction)
      const usd = tokenUsd(later.usd_per, flow.currency, flow.amount)
      addFlow(getOrInsert(byPair, pair, emptyRealised), flow, usd)
      addFlow(
        getOrInsert(
          getOrInsert(byPartner, flow.partnerId, () => new Map()),
          pair,
          emptyRealised
        ),
        flow,
        usd
      )
      addFlow(getOrInsert(byToken, flow.currency, emptyRealised), flow, flow.amount)
    }

    // the model lines: each lock of the later close against the earlier
    const models = new Map<string, Model>()
    const before = new Map(earlier.locks.map((l) => [l.contract_id, l]))
    // first pass: which locks stayed (and their figures at both closes), which were sold, which left
    const stayed: Array<{ readonly terms: Risk.LockTerms; readonly was: CloseLock; readonly now: CloseLock }> = []
    for (const lock of later.locks) {
      const pair = marketPairKey(lock.direction)
      const model = getOrInsert(models, pair, emptyModel)
      const was = before.get(lock.contract_id)
      if (was === undefined) {
        model.soldMtm += lock.mtm
        continue
      }
      before.delete(lock.contract_id)
      stayed.push({ terms: termsOf(earlier, was), was, now: lock })
    }
    for (const gone of before.values()) {
      const pair = marketPairKey(gone.direction)
      const model = getOrInsert(models, pair, emptyModel)
      model.heldAtUsd += gone.mtm * u1(marketPairCurrencies(pair).quote)
      model.settledLocks++
    }
    const terms = stayed.map((s) => s.terms)
    if (terms.length > 0) {
      // the earlier market, quoted as it was, observed at the later close: a day's roll-down of the curves and smiles
      const rolled = { ...earlier.snapshot, as_of: later.snapshot.as_of }
      const onRolled = yield* Risk.valueLocksInSlices(planOn(rolled, later.closed_at), terms)
      // the vol each lock would have had on the earlier smile's quotes at the later spots and curves: the smile
      // moves with the spot and the forward (sticky delta), which delta, gamma and rates count already
      const earlierSmile = Risk.lockVolatilities(
        planOn({ ...later.snapshot, vols: earlier.snapshot.vols }, later.closed_at),
        terms
      )
      const onNewCurves = curvesMoved(earlier.snapshot, later.snapshot)
        ? yield* Risk.valueLocksInSlices(planOn(withCurvesOf(rolled, later.snapshot), later.closed_at), terms)
        : onRolled
      stayed.forEach(({ terms: lock, was, now }, i) => {
        const model = models.get(lock.pair)!
        const { quote } = marketPairCurrencies(lock.pair)
        const s1 = spotOf(earlier, lock.pair)
        const ds = spotOf(later, lock.pair) - s1
        const theta = was.theta * days
        model.theta += theta
        model.roll += onRolled[i]!.mtm - was.mtm - theta
        model.delta += was.delta * ds
        // gamma is the change of delta for +1 % of spot: d²mtm/dS² is gamma / (1 % of spot)
        model.gamma += (0.5 * was.gamma * ds * ds) / (Risk.spotBump * s1)
        // the vol's change in bumps: vega is a forward difference (+1 point), so its own convexity is half a volga
        const x = (now.vol - earlierSmile[i]!) / Risk.volBump
        model.vega += was.vega * x
        model.vanna += was.vanna * ds * x
        model.volga += 0.5 * was.volga * (x * x - x)
        model.rates += onNewCurves[i]!.mtm - onRolled[i]!.mtm
        model.translation += was.mtm * (u2(quote) - u1(quote))
      })
    }

    const pairs: Array<PairPnl> = later.pairs.map((p) => {
      const was = pairOf(earlier, p.pair)
      const model = models.get(p.pair) ?? emptyModel()
      const realised = byPair.get(p.pair) ?? emptyRealised()
      const rate = u2(p.quote)
      const usdOf = (quote: number) => Money.figure(quote * rate)
      const hedgeRealised = BigDecimal.round(
        Money.multiply(Money.subtract(p.hedge_realised, was?.hedge_realised ?? Money.zero), p.usd_per_quote),
        { scale: Money.tokenScale, mode: "half-from-zero" }
      )
      const realisedTotal = [realised.forfeits, realised.payouts, hedgeRealised].reduce(Money.sum, realised.premiums)
      const unrealised = Money.subtract(Money.subtract(bookValue(p), bookValue(was)), hedgeRealised)
      const dueChange = Money.subtract(p.payouts_due_usd, was?.payouts_due_usd ?? Money.zero)
      const usd = withUnexplained({
        premiums: realised.premiums,
        forfeits: realised.forfeits,
        payouts: realised.payouts,
        hedge_realised: hedgeRealised,
        realised: realisedTotal,
        unrealised,
        total: Money.sum(realisedTotal, unrealised),
        new_business: Money.sum(realised.premiums, usdOf(model.soldMtm)),
        theta: usdOf(model.theta),
        roll: usdOf(model.roll),
        delta: usdOf(model.delta),
        gamma: usdOf(model.gamma),
        vega: usdOf(model.vega),
        vanna: usdOf(model.vanna),
        volga: usdOf(model.volga),
        rates: usdOf(model.rates),
        settled: Money.subtract(
          Money.subtract(Money.sum(realised.forfeits, realised.payouts), dueChange),
          Money.figure(model.heldAtUsd)
        ),
        hedges: Money.subtract(p.hedge_mark_usd, was?.hedge_mark_usd ?? Money.zero),
        fx_translation: Money.figure(model.translation)
      })
      // each line at the later close's rate, and the sums from their parts: the identities hold in QUOTE too
      const q = (name: LineName) => toQuote(usd[name], rate)
      const realisedQuote = [q("forfeits"), q("payouts"), q("hedge_realised")].reduce(Money.sum, q("premiums"))
      const inQuote = withUnexplained({
        ...(Object.fromEntries(explainedLines.map((name) => [name, q(name)])) as Record<Explained, Money.Decimal>),
        premiums: q("premiums"),
        forfeits: q("forfeits"),
        payouts: q("payouts"),
        hedge_realised: q("hedge_realised"),
        realised: realisedQuote,
        unrealised: q("unrealised"),
        total: Money.sum(realisedQuote, q("unrealised"))
      })
      return {
        pair: p.pair,
        quote: p.quote,
        usd,
        in_quote: inQuote,
        locks_sold: realised.sold.size,
        locks_settled: model.settledLocks
      }
    })

    const realisedFigures = (r: Realised) => ({
      locks_sold: r.sold.size,
      premiums: r.premiums,
      forfeits: r.forfeits,
      payouts: r.payouts,
      realised: Money.sum(Money.sum(r.premiums, r.forfeits), r.payouts)
    })
    const partners: Array<PartnerPnl> = [...byPartner.keys()].sort().map((partnerId) => {
      const own = byPartner.get(partnerId)!
      const all = emptyRealised()
      for (const r of own.values()) {
        all.premiums = Money.sum(all.premiums, r.premiums)
        all.forfeits = Money.sum(all.forfeits, r.forfeits)
        all.payouts = Money.sum(all.payouts, r.payouts)
        for (const id of r.sold) all.sold.add(id)
      }
      return {
        partner_id: partnerId,
        ...realisedFigures(all),
        pairs: [...own.keys()].sort().map((pair) => ({ pair, ...realisedFigures(own.get(pair)!) }))
      }
    })
    const tokens: Array<TokenFlows> = [...byToken.keys()].sort().map((token) => {
      const r = byToken.get(token)!
      return { token, premiums: r.premiums, forfeits: r.forfeits, payouts: r.payouts }
    })
    const fees = new Map<string, NetworkFees>()
    for (const entry of input.treasury) {
      if (entry.account !== "network_fees") continue
      const key = `${entry.chain} ${entry.currency}`
      const paid = Money.subtract(fees.get(key)?.amount ?? Money.zero, entry.amount)
      fees.set(key, { chain: entry.chain as Chain, currency: entry.currency, amount: paid })
    }

    return {
      from_close_id: earlier.id,
      to_close_id: later.id,
      from: earlier.closed_at,
      to: later.closed_at,
      days,
      usd: pairs.reduce((sum, p) => addLines(sum, p.usd), zeroLines()),
      pairs,
      partners,
      tokens,
      network_fees: [...fees.keys()].sort().map((k) => fees.get(k)!)
    } satisfies PeriodPnl
  })
