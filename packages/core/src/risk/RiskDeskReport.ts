/**
 * The risk report an operator reads (`ratelock risk report`, `GET /operator/v1/risk`): the book's
 * stored revaluation of one environment (`RiskReport.BookReport`), each pair with its hedge as it
 * stands now, the net currency exposure with those hedges, and the corridors' limits with their
 * usage. The revaluation is as of its `as_of`; hedges and limits are read when the report is asked for.
 */
import { Schema } from "effect"
import { CorridorListing } from "../limits/CorridorLimits.ts"
import { Datetime } from "../kernel/Fields.ts"
import { Instrument, Side } from "../hedging/HedgePolicy.ts"
import * as Money from "../kernel/Money.ts"
import * as RiskReport from "./RiskReport.ts"

const Figure = Money.DecimalString

/** A pair's hedge (risk.md, Hedging): BASE units, buys positive; the residual is `delta + position`. */
export const PairHedge = Schema.Struct({
  /** Null: the pair has no policy (nothing is hedged). */
  policy: Schema.NullOr(
    Schema.Struct({
      target_ratio: Figure,
      band: Figure,
      instrument: Instrument,
      value_days: Schema.NullOr(Schema.Int)
    })
  ),
  /** Σ of the filled hedge orders. */
  position: Figure,
  /** The position the policy aims at, `−target_ratio × delta`; null without a policy. */
  target: Schema.NullOr(Figure),
  /** What the book's delta leaves once hedged: `delta + position`. */
  residual_delta: Figure,
  /** The order the policy would place now (also when hedging is off); null inside the band. */
  order_needed: Schema.NullOr(Schema.Struct({ side: Side, amount: Figure })),
  /** The fills marked at the snapshot's forward to each value date, in the pair's QUOTE and in USD. */
  pnl: Figure,
  pnl_usd: Figure,
  /** Orders created since midnight UTC. */
  orders_today: Schema.Int,
  /** The order waiting for an outcome (intended or sent), if any. */
  pending_order: Schema.NullOr(Schema.String)
}).annotate({ identifier: "RiskPairHedge" })
export type PairHedge = typeof PairHedge.Type

export const DeskPair = Schema.Struct({ ...RiskReport.PairRisk.fields, hedge: PairHedge }).annotate({
  identifier: "RiskDeskPair"
})
export type DeskPair = typeof DeskPair.Type

export const DeskReport = Schema.Struct({
  ...RiskReport.BookReport.fields,
  /** When the revaluation was computed (the workers', or this request's with `--fresh`). */
  computed_at: Datetime,
  pairs: Schema.Array(DeskPair),
  /**
   * Every currency served: the revaluation's net exposure plus the hedge positions (`NetExposure`),
   * each pair's `+position` in its BASE and `−position × spot` in its QUOTE.
   */
  currencies: Schema.Array(RiskReport.CurrencyExposure),
  /** Every corridor of the environment: its limits, defaults and usage. */
  limits: Schema.Array(CorridorListing)
}).annotate({ identifier: "RiskDeskReport" })
export type DeskReport = typeof DeskReport.Type

export const encode = Schema.encodeSync(DeskReport)
