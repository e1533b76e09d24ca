/**
 * What a close records of one environment, from the book, the snapshot in force, the hedge fills and the
 * ledgers' balances: pure, so a test or a bench builds the same close the workers do. The book is revalued once
 * (`Risk.revalueInSlices`: each open lock's figures and each pair's), and each lock's vol read on the same market.
 */
import { BigDecimal, type DateTime, Effect } from "effect"
import { type Currency, marketPairCurrencies, marketPairKey } from "../../kernel/Corridor.ts"
import * as Money from "../../kernel/Money.ts"
import { fiatOf, type FundsCurrency } from "../../kernel/Rail.ts"
import type { MarketSnapshot } from "../../market/MarketSnapshot.ts"
import * as HedgeMarks from "../../hedging/HedgeMarks.ts"
import * as HedgeOrder from "../../hedging/HedgeOrder.ts"
import * as HedgeRealised from "../../hedging/HedgeRealised.ts"
import * as Risk from "../../risk/Risk.ts"
import type { Environment } from "../../terms/Partner.ts"
import type { CloseLock, ClosePair, ClosePayoutDue, DailyClose, LedgerBalance } from "../DailyClose.ts"

/** A token amount in USD at a close's rates: a USD token's exactly, another's rounded to the token unit. */
export const tokenUsd = (usdPer: DailyClose["usd_per"], token: FundsCurrency, amount: Money.Decimal): Money.Decimal => {
  const fiat = fiatOf(token)
  if (fiat === "USD") return amount
  return BigDecimal.round(Money.multiply(amount, usdPer[fiat]), { scale: Money.tokenScale, mode: "half-from-zero" })
}

export const build = (input: {
  readonly id: string
  readonly environment: Environment
  readonly now: DateTime.Utc
  readonly scheduledFor: DateTime.Utc | null
  readonly snapshotId: string | null
  readonly snapshot: MarketSnapshot
  readonly book: Risk.Book
  /** The environment's hedge orders (those filled count). */
  readonly hedges: ReadonlyArray<HedgeOrder.HedgeOrder>
  readonly balances: ReadonlyArray<LedgerBalance>
  readonly previousCloseId: string | null
}): Effect.Effect<Omit<DailyClose, "pnl">> =>
  Effect.map(
    // in slices: the workers may share the thread with the API (`pnpm start`), which keeps answering meanwhile
    Risk.revalueInSlices(input.book, input.snapshot, input.now, {
      environments: [input.environment],
      snapshotId: input.snapshotId,
      crossGreeks: true
    }),
    (revaluation) => fromRevaluation(input, revaluation)
  )

const fromRevaluation = (
  input: Parameters<typeof build>[0],
  { books, locks: risks }: Risk.Revaluation
): Omit<DailyClose, "pnl"> => {
  const { environment, now, snapshot, book } = input
  const report = books[0]!
  // the same plan as the revaluation's: the locks' vols are read on the market they were valued on
  const plan = Risk.plan({ snapshot, now, greeks: false, scenarios: [] })
  const vols = Risk.lockVolatilities(
    plan,
    risks.map((r) => r.lock)
  )
  const usdPer = Object.fromEntries(
    [...plan.usdPer].map(([currency, rate]) => [currency, Money.fromModel(rate)])
  ) as Record<Currency, Money.Decimal>
  const locks: Array<CloseLock> = risks.map((risk, i) => ({
    contract_id: risk.lock.id,
    partner_id: risk.lock.partnerId,
    direction: risk.lock.direction,
    notional_base: risk.lock.notionalBase,
    strike: risk.lock.strike,
    window_start: risk.lock.windowStart,
    window_end: risk.lock.windowEnd,
    mtm: risk.mtm,
    // revalue's plan has the greeks and, asked, the cross greeks
    delta: risk.greeks!.delta,
    gamma: risk.greeks!.gamma,
    vega: risk.greeks!.vega,
    theta: risk.greeks!.theta,
    vanna: risk.cross!.vanna,
    volga: risk.cross!.volga,
    vol: vols[i]!
  }))
  const stored = new Map((book.payouts ?? []).map((p) => [p.contractId, p]))
  const payoutsDue: Array<ClosePayoutDue> = []
  for (const contract of book.contracts) {
    if (contract.environment !== environment || Risk.standing(contract) !== "payout_due") continue
    const due = Risk.payoutDue(contract, stored.get(contract.id), snapshot)
    if (due._tag === "None") continue
    payoutsDue.push({
      contract_id: contract.id,
      partner_id: contract.partnerId,
      pair: marketPairKey(contract.direction),
      token: due.value.token,
      amount: due.value.amount,
      amount_usd: tokenUsd(usdPer, due.value.token, due.value.amount)
    })
  }
  payoutsDue.sort((a, b) => (a.contract_id < b.contract_id ? -1 : 1))
  const filled = input.hedges.filter((o) => o.environment === environment && o.status === "filled")
  const pairs: Array<ClosePair> = report.pairs.map((p) => {
    const { quote } = marketPairCurrencies(p.pair)
    const orders = filled.filter((o) => o.pair === p.pair)
    const mark = HedgeMarks.pnl(snapshot, orders)
    return {
      pair: p.pair,
      quote,
      spot: p.spot,
      usd_per_quote: usdPer[quote],
      open_locks: p.open_locks,
      mtm: p.mtm,
      delta: p.delta,
      gamma: p.gamma,
      vega: p.vega,
      theta: p.theta,
      mtm_usd: p.mtm_usd,
      payouts_due_usd: payoutsDue
        .filter((d) => d.pair === p.pair)
        .reduce((sum, d) => Money.sum(sum, d.amount_usd), Money.zero),
      hedge_position: HedgeOrder.position(orders),
      hedge_mark: Money.figure(mark),
      hedge_mark_usd: Money.figure(mark * plan.usdPer.get(quote)!),
      hedge_realised: HedgeRealised.realised(orders)
    }
  })
  return {
    id: input.id,
    environment,
    closed_at: now,
    scheduled_for: input.scheduledFor,
    snapshot_id: input.snapshotId,
    snapshot_as_of: snapshot.as_of,
    previous_close_id: input.previousCloseId,
    usd_per: usdPer,
    pairs,
    payouts_due: payoutsDue,
    balances: input.balances,
    snapshot,
    locks
  }
}
