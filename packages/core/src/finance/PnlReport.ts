/**
 * The P&L over a span of days, as `ratelock finance pnl`, `GET /operator/v1/finance/pnl` and the console read it:
 * the periods between consecutive closes whose later close falls on a day of the span, summed line by line
 * (exact decimals: a month's figure is the sum of its days, nothing lost or counted twice at a boundary), and the
 * same per day (the periods ending that day), per market pair and per partner.
 */
import { DateTime, Schema } from "effect"
import { Datetime } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { Environment } from "../terms/Partner.ts"
import type { CloseSummary } from "./DailyClose.ts"
import {
  addLines,
  type NetworkFees,
  NetworkFees as NetworkFeesSchema,
  PairPnl,
  PartnerPnl,
  type PeriodPnl,
  PnlLines,
  type TokenFlows,
  TokenFlows as TokenFlowsSchema,
  zeroLines
} from "./PeriodPnl.ts"

/** A UTC calendar day, `YYYY-MM-DD`. */
export const Day = Schema.String.check(
  Schema.isPattern(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/u, { expected: "a date such as 2026-12-01" })
)

export const By = Schema.Literals(["day", "pair", "partner"])
export type By = typeof By.Type

export const DayRow = Schema.Struct({
  date: Day,
  /** The first period's start and the last period's end that day. */
  from: Datetime,
  to: Datetime,
  periods: Schema.Int,
  lines: PnlLines,
  /** The span's total up to and including this day. */
  cumulative_total: Money.DecimalString
}).annotate({ identifier: "PnlDay" })
export type DayRow = typeof DayRow.Type

export const PnlReport = Schema.Struct({
  environment: Environment,
  from: Day,
  to: Day,
  /** The rows the CLI's table and CSV show; every view is in the JSON. */
  by: By,
  currency: Schema.Literal("USD"),
  /** Periods between consecutive closes in the span. */
  periods: Schema.Int,
  totals: PnlLines,
  days: Schema.Array(DayRow),
  pairs: Schema.Array(PairPnl),
  partners: Schema.Array(PartnerPnl),
  tokens: Schema.Array(TokenFlowsSchema),
  network_fees: Schema.Array(NetworkFeesSchema)
}).annotate({ identifier: "PnlReport" })
export type PnlReport = typeof PnlReport.Type

export const dayOf = (at: DateTime.Utc): string => DateTime.formatIso(at).slice(0, 10)

/** The instants a span of days covers: from the start of `from` to the end of `to`, UTC. */
export const spanOf = (from: string, to: string) => ({
  start: DateTime.makeUnsafe(`${from}T00:00:00.000Z`),
  end: DateTime.makeUnsafe(`${to}T23:59:59.999Z`)
})

/** Adds `value` into `map` under `key`, with `add`, from `zero()` when absent. */
const into = <K, V>(map: Map<K, V>, key: K, value: V, add: (a: V, b: V) => V) =>
  map.set(key, map.has(key) ? add(map.get(key)!, value) : value)

const addPairs = (a: PairPnl, b: PairPnl): PairPnl => ({
  ...a,
  usd: addLines(a.usd, b.usd),
  in_quote: addLines(a.in_quote, b.in_quote),
  locks_sold: a.locks_sold + b.locks_sold,
  locks_settled: a.locks_settled + b.locks_settled
})

const addRealised = <
  R extends {
    locks_sold: number
    premiums: Money.Decimal
    forfeits: Money.Decimal
    payouts: Money.Decimal
    realised: Money.Decimal
  }
>(
  a: R,
  b: R
): R => ({
  ...a,
  locks_sold: a.locks_sold + b.locks_sold,
  premiums: Money.sum(a.premiums, b.premiums),
  forfeits: Money.sum(a.forfeits, b.forfeits),
  payouts: Money.sum(a.payouts, b.payouts),
  realised: Money.sum(a.realised, b.realised)
})

const addPartners = (a: PartnerPnl, b: PartnerPnl): PartnerPnl => {
  const pairs = new Map(a.pairs.map((p) => [p.pair, p]))
  for (const p of b.pairs) into(pairs, p.pair, p, addRealised)
  return { ...addRealised(a, b), pairs: [...pairs.values()].sort((x, y) => (x.pair < y.pair ? -1 : 1)) }
}

const addTokens = (a: TokenFlows, b: TokenFlows): TokenFlows => ({
  token: a.token,
  premiums: Money.sum(a.premiums, b.premiums),
  forfeits: Money.sum(a.forfeits, b.forfeits),
  payouts: Money.sum(a.payouts, b.payouts)
})

const addFees = (a: NetworkFees, b: NetworkFees): NetworkFees => ({ ...a, amount: Money.sum(a.amount, b.amount) })

/** The report of the periods the closes end (each close's `pnl`; an environment's first close has none). */
export const of = (input: {
  readonly environment: Environment
  readonly from: string
  readonly to: string
  readonly by: By
  readonly closes: ReadonlyArray<Pick<CloseSummary, "closed_at" | "pnl">>
}): PnlReport => {
  const periods = input.closes
    .map((c) => c.pnl)
    .filter((p): p is PeriodPnl => p !== null)
    .sort((a, b) => a.to.epochMilliseconds - b.to.epochMilliseconds)
  let totals = zeroLines()
  const days = new Map<string, { from: DateTime.Utc; to: DateTime.Utc; periods: number; lines: PnlLines }>()
  const pairs = new Map<string, PairPnl>()
  const partners = new Map<string, PartnerPnl>()
  const tokens = new Map<string, TokenFlows>()
  const fees = new Map<string, NetworkFees>()
  for (const period of periods) {
    totals = addLines(totals, period.usd)
    into(days, dayOf(period.to), { from: period.from, to: period.to, periods: 1, lines: period.usd }, (a, b) => ({
      from: a.from,
      to: b.to,
      periods: a.periods + b.periods,
      lines: addLines(a.lines, b.lines)
    }))
    for (const p of period.pairs) into(pairs, p.pair, p, addPairs)
    for (const p of period.partners) into(partners, p.partner_id, p, addPartners)
    for (const t of period.tokens) into(tokens, t.token, t, addTokens)
    for (const f of period.network_fees) into(fees, `${f.chain} ${f.currency}`, f, addFees)
  }
  let cumulative = Money.zero
  const sorted = <V>(map: Map<string, V>) => [...map.keys()].sort().map((k) => map.get(k)!)
  return {
    environment: input.environment,
    from: input.from,
    to: input.to,
    by: input.by,
    currency: "USD",
    periods: periods.length,
    totals,
    days: [...days].map(([date, d]) => {
      cumulative = Money.sum(cumulative, d.lines.total)
      return { date, ...d, cumulative_total: cumulative }
    }),
    pairs: sorted(pairs),
    partners: sorted(partners),
    tokens: sorted(tokens),
    network_fees: sorted(fees)
  }
}
