/**
 * The book's figures as reported (risk.md, Figures), one report per environment: schemas whose encoded form is
 * the JSON of `ratelock risk report --json` and of the operator route (numbers as decimal strings).
 *
 * Precision. Every model figure crosses into a decimal once (`Money.fromModel`) and is rounded half away from
 * zero to 2 decimals of its unit (cents of a currency; hundredths of a BASE unit for delta and gamma). Payouts
 * due are exact sums of token amounts, 6 decimals. Signs are the service's: `mtm ≤ 0` is what it owes.
 */
import { Schema } from "effect"
import { Currency, Direction } from "../kernel/Corridor.ts"
import { Datetime } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { Environment } from "../terms/Partner.ts"
import { Chain, FundsCurrency } from "../kernel/Rail.ts"

// the rounding of a reported figure is Money's (hedge P&L uses it too); named here as the report has always named it
export { figure, figureScale } from "../kernel/Money.ts"

const Figure = Money.DecimalString
const Count = Schema.Int

/** One market pair, in its usual order; both directions of it together. */
export const PairRisk = Schema.Struct({
  pair: Schema.String,
  /** The snapshot's mid the book was valued at. */
  spot: Figure,
  open_locks: Count,
  /** Σ `N_b` of the open locks, in the pair's BASE (an inverted lock's at its locked rate). */
  open_notional: Figure,
  open_notional_usd: Figure,
  /** The open locks' value to the service, `−Σ N_b·V`, in the pair's QUOTE (≤ 0). */
  mtm: Figure,
  mtm_usd: Figure,
  /** Change of `mtm` per unit of the pair's rate, in BASE units (±1 % central bump). */
  delta: Figure,
  /** Change of `delta` for a +1 % move of the rate, in BASE units. */
  gamma: Figure,
  /** Change of `mtm` for +1 vol point on every pillar, in QUOTE. */
  vega: Figure,
  vega_usd: Figure,
  /** Change of `mtm` over one calendar day, all else equal, in QUOTE. */
  theta: Figure,
  theta_usd: Figure
}).annotate({ identifier: "RiskPair" })
export type PairRisk = typeof PairRisk.Type

/** One corridor (direction) in its own terms: what its limits are set in. */
export const CorridorRisk = Schema.Struct({
  corridor: Direction,
  open_locks: Count,
  /** Σ `N_b` of the open locks, in the direction's BASE. */
  open_notional: Figure,
  committed_locks: Count,
  /** Σ `N_b` of the committed, not yet funded locks, in the direction's BASE. */
  committed_notional: Figure,
  /** `−Σ N_b·V` in the direction's QUOTE. */
  mtm: Figure,
  /** Change of `mtm` per unit of the direction's rate, in its BASE units: positive for short puts. */
  delta: Figure
}).annotate({ identifier: "RiskCorridor" })
export type CorridorRisk = typeof CorridorRisk.Type

/**
 * A currency's net exposure: Σ over pairs of `+delta` (BASE) and `−delta × spot` (QUOTE). The operator's
 * report adds the hedge positions (`NetExposure`); here, the book alone.
 */
export const CurrencyExposure = Schema.Struct({
  currency: Currency,
  net_exposure: Figure,
  net_exposure_usd: Figure
}).annotate({ identifier: "RiskCurrency" })
export type CurrencyExposure = typeof CurrencyExposure.Type

/** The totals of some open locks (a partner's, the book's): how many, and their figures in USD. */
const openTotalFields = {
  open_locks: Count,
  open_notional_usd: Figure,
  mtm_usd: Figure,
  vega_usd: Figure,
  theta_usd: Figure
}

export const PartnerRisk = Schema.Struct({
  partner_id: Schema.String,
  ...openTotalFields,
  /** The partner's open locks per pair (pairs where it has some). */
  pairs: Schema.Array(PairRisk)
}).annotate({ identifier: "RiskPartner" })
export type PartnerRisk = typeof PartnerRisk.Type

export const CommittedPair = Schema.Struct({
  pair: Schema.String,
  locks: Count,
  /** Σ `N_b` in the pair's BASE. */
  notional: Figure,
  notional_usd: Figure
}).annotate({ identifier: "RiskCommittedPair" })
export type CommittedPair = typeof CommittedPair.Type

/** Locks sold but not yet funded (`quote_created`, `funds_in_route`): not open risk yet. */
export const Committed = Schema.Struct({
  locks: Count,
  notional_usd: Figure,
  pairs: Schema.Array(CommittedPair)
}).annotate({ identifier: "RiskCommitted" })
export type Committed = typeof Committed.Type

/** Exercised, not yet settled: a fixed liability in a token on a chain. */
export const PayoutDue = Schema.Struct({
  token: FundsCurrency,
  chain: Chain,
  payouts: Count,
  /** Exact sum of the payouts, in token units (6 decimals). */
  amount: Money.DecimalString,
  amount_usd: Figure
}).annotate({ identifier: "RiskPayoutDue" })
export type PayoutDue = typeof PayoutDue.Type

export const StressPair = Schema.Struct({
  pair: Schema.String,
  /** Change of the pair's `mtm` under the scenario, in its QUOTE. */
  mtm_change: Figure,
  mtm_change_usd: Figure
}).annotate({ identifier: "RiskStressPair" })
export type StressPair = typeof StressPair.Type

export const StressResult = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  /**
   * The book's `mtm` in USD under the scenario (converted at its shocked rates) less the book's `mtm` in USD
   * now: negative is a loss.
   */
  mtm_change_usd: Figure,
  pairs: Schema.Array(StressPair)
}).annotate({ identifier: "RiskStressResult" })
export type StressResult = typeof StressResult.Type

/** What every report of one environment's book opens with: when and on which snapshot it was revalued. */
const headerFields = {
  environment: Environment,
  /** The instant the book was revalued at. */
  as_of: Datetime,
  /** The snapshot's `as_of` (its spot, curves and vols). */
  snapshot_as_of: Datetime,
  /** The stored snapshot's id, when the caller names it. */
  snapshot_id: Schema.NullOr(Schema.String)
}

const bookFields = {
  ...headerFields,
  ...openTotalFields,
  /** Every pair served, in `MarketSnapshot.servedPairs` order. */
  pairs: Schema.Array(PairRisk),
  /** Every corridor served, in `Corridor.directions` order. */
  corridors: Schema.Array(CorridorRisk),
  /** Every currency served. */
  currencies: Schema.Array(CurrencyExposure),
  /** Partners with open or committed locks, by id. */
  partners: Schema.Array(PartnerRisk),
  committed: Committed,
  /** Per token and chain, by token then chain. */
  payouts_due: Schema.Array(PayoutDue)
}

/** `Risk.revalue`'s figures for one environment. */
export const BookRisk = Schema.Struct(bookFields).annotate({ identifier: "RiskBook" })
export type BookRisk = typeof BookRisk.Type

/** `Risk.stress`'s results for one environment, worst first. */
export const BookStress = Schema.Struct({
  ...headerFields,
  stress: Schema.Array(StressResult)
}).annotate({ identifier: "RiskStress" })
export type BookStress = typeof BookStress.Type

/** `Risk.report`: the figures and the stress results of one environment. */
export const BookReport = Schema.Struct({ ...bookFields, stress: Schema.Array(StressResult) }).annotate({
  identifier: "RiskReport"
})
export type BookReport = typeof BookReport.Type
