/**
 * The risk report an operator reads (`ratelock risk report`, `GET /operator/v1/risk`): the book's
 * stored revaluation of one environment (`RiskReport.BookReport`), each pair with its hedge as it
 * stands now, the net currency exposure with those hedges, and the corridors' limits with their
 * usage. The revaluation is as of its `as_of`; hedges and limits are read when the report is asked for.
 */
import { Schema } from "effect"
import { CorridorListing } from "../limits/CorridorLimits.ts"
import { Datetime } from "../kernel/Fields.ts"
import { PairHedge } from "../hedging/HedgeDesk.ts"
import * as RiskReport from "./RiskReport.ts"

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
