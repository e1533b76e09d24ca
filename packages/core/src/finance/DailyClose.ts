/**
 * A daily close: what the book, the hedges and the ledgers stood at, per environment, at one instant, on the
 * market data in force then. Written once and never changed (the stores refuse an update); the P&L between it and
 * the close before it is computed when it is written and kept in it (`pnl`), so a report reads, never recomputes.
 *
 * Model figures (each lock's mtm and greeks, its vol) are kept as the engine computed them, floats, so the next
 * close explains from exactly them; the pair figures are reported decimals (`RiskReport`'s rounding); the ledger
 * balances and payouts due are exact.
 */
import { DateTime, Schema, Struct } from "effect"
import { Currency, Direction } from "../kernel/Corridor.ts"
import { Datetime } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { FundsCurrency } from "../kernel/Rail.ts"
import { MarketSnapshot } from "../market/MarketSnapshot.ts"
import { PairRisk } from "../risk/RiskReport.ts"
import { Environment } from "../terms/Partner.ts"
import { PeriodPnl } from "./PeriodPnl.ts"

const Figure = Money.DecimalString

/** One open lock at the close: its terms as the model reads them, and its figures (model floats). */
export const CloseLock = Schema.Struct({
  contract_id: Schema.String,
  partner_id: Schema.String,
  direction: Direction,
  /** `N_b`, the direction's BASE. */
  notional_base: Schema.Number,
  /** The locked rate, the direction's QUOTE per 1 BASE. */
  strike: Schema.Number,
  /** Epoch milliseconds. */
  window_start: Schema.Number,
  window_end: Schema.Number,
  /** In the pair's QUOTE (`mtm`, `vega`, `theta`) and BASE (`delta`, `gamma`), as `RiskReport` defines them. */
  mtm: Schema.Number,
  delta: Schema.Number,
  gamma: Schema.Number,
  vega: Schema.Number,
  theta: Schema.Number,
  /** The change of delta for +1 vol point (BASE) and the vol convexity (QUOTE), `Risk`'s cross greeks. */
  vanna: Schema.Number,
  volga: Schema.Number,
  /** The smile's vol at the lock's strike and window end. */
  vol: Schema.Number
}).annotate({ identifier: "CloseLock" })
export type CloseLock = typeof CloseLock.Type

/** One market pair at the close: the book's figures, its payouts due and its hedge. */
export const ClosePair = Schema.Struct({
  pair: Schema.String,
  quote: Currency,
  spot: Figure,
  /** USD per 1 of the pair's QUOTE at the close (what its figures are translated at). */
  usd_per_quote: Figure,
  open_locks: Schema.Int,
  /** The book's figures, as the risk report defines them (QUOTE: `mtm`, `vega`, `theta`; BASE: `delta`, `gamma`). */
  ...Struct.pick(PairRisk.fields, ["mtm", "delta", "gamma", "vega", "theta"]),
  /** The open locks' mtm in USD, to the cent: the book's value, from which the unrealised P&L is measured. */
  mtm_usd: Figure,
  /** What exercised contracts of the pair are owed and not yet paid, USD. */
  payouts_due_usd: Figure,
  /** The hedges' net position, BASE units (buys positive). */
  hedge_position: Figure,
  /** Every filled hedge order marked at the snapshot's forwards, QUOTE and USD. */
  hedge_mark: Figure,
  hedge_mark_usd: Figure,
  /** What the pair's fills have realised since the first, at average cost, QUOTE (`HedgeRealised`). */
  hedge_realised: Figure
}).annotate({ identifier: "ClosePair" })
export type ClosePair = typeof ClosePair.Type

/** A payout owed at the close: an exercised contract's, not yet paid. */
export const ClosePayoutDue = Schema.Struct({
  contract_id: Schema.String,
  partner_id: Schema.String,
  pair: Schema.String,
  token: FundsCurrency,
  amount: Figure,
  amount_usd: Figure
}).annotate({ identifier: "ClosePayoutDue" })
export type ClosePayoutDue = typeof ClosePayoutDue.Type

/** One account's balance in one currency, in one of the service's ledgers (debits positive). */
export const LedgerBalance = Schema.Struct({
  ledger: Schema.Literals(["contracts", "treasury", "hedges"]),
  account: Schema.String,
  currency: Schema.String,
  balance: Figure
}).annotate({ identifier: "LedgerBalance" })
export type LedgerBalance = typeof LedgerBalance.Type

/** What a close is, without its locks and snapshot: what lists and reports read. */
export const CloseSummary = Schema.Struct({
  id: Schema.String,
  environment: Environment,
  /** The instant the book was valued at and the ledgers read to. */
  closed_at: Datetime,
  /** The daily cut it stands for (`RATELOCK_DAILY_CLOSE`); null for a close an operator asked for. */
  scheduled_for: Schema.NullOr(Datetime),
  /** The stored snapshot in force; null for the built-in illustrative one (the sandbox without market data). */
  snapshot_id: Schema.NullOr(Schema.String),
  snapshot_as_of: Datetime,
  previous_close_id: Schema.NullOr(Schema.String),
  /** USD per 1 of each currency served, at the snapshot's mids. */
  usd_per: Schema.Record(Currency, Figure),
  pairs: Schema.Array(ClosePair),
  payouts_due: Schema.Array(ClosePayoutDue),
  balances: Schema.Array(LedgerBalance),
  /** The P&L since `previous_close_id`; null for an environment's first close. */
  pnl: Schema.NullOr(PeriodPnl)
}).annotate({ identifier: "CloseSummary" })
export type CloseSummary = typeof CloseSummary.Type

export const DailyClose = Schema.Struct({
  ...CloseSummary.fields,
  /** The snapshot document itself: the close explains from it whatever happens to the stored ones. */
  snapshot: MarketSnapshot,
  locks: Schema.Array(CloseLock)
}).annotate({ identifier: "DailyClose" })
export type DailyClose = typeof DailyClose.Type

/** `HH:MM`, a UTC time of day. */
export const CutTime = Schema.String.check(
  Schema.isPattern(/^([01]\d|2[0-3]):[0-5]\d$/u, { expected: "a UTC time of day such as 21:00" })
)

/** The New York 5 p.m. FX cut in winter. */
export const defaultCut = "21:00"

/** The latest daily cut at or before `now`: today's at `cut` (UTC), else yesterday's. */
export const latestCut = (now: DateTime.Utc, cut: string): DateTime.Utc => {
  const [hours, minutes] = cut.split(":").map(Number) as [number, number]
  const day = new Date(now.epochMilliseconds)
  const today = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hours, minutes)
  return DateTime.makeUnsafe(today <= now.epochMilliseconds ? today : today - 86_400_000)
}
