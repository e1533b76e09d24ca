/**
 * What the business earned between two closes, explained (the P&L explain), as the close that ends the period
 * stores it and `ratelock finance pnl` reports it. Decimal strings on the wire; USD unless a field says otherwise.
 *
 * Every line, per market pair:
 * - realised, from the ledgers, exact: `premiums` (premiums and forward fees of locks activated), `forfeits`
 *   (deposits kept), `payouts` (paid to customers, negative), `hedge_realised` (fills that reduced a hedge, at
 *   average cost), and their sum `realised`;
 * - `unrealised`: the change of the book's value (open locks' mtm, less payouts due, plus the hedges' marks),
 *   less what of the hedges was realised; `total` = realised + unrealised;
 * - explained: `new_business`, `theta`, `roll`, `delta`, `gamma`, `vega`, `vanna`, `volga`, `rates`, `settled`, `hedges`, `fx_translation`,
 *   and `unexplained` = total − every explained line, to the cent: never hidden, never rounded away.
 */
import { Schema } from "effect"
import { Currency } from "../kernel/Corridor.ts"
import { Datetime } from "../kernel/Fields.ts"
import * as Money from "../kernel/Money.ts"
import { Chain, FundsCurrency } from "../kernel/Rail.ts"

const Figure = Money.DecimalString

/** The explained lines, whose sum with `unexplained` is `total`. */
export const explainedLines = [
  "new_business",
  "theta",
  "roll",
  "delta",
  "gamma",
  "vega",
  "vanna",
  "volga",
  "rates",
  "settled",
  "hedges",
  "fx_translation"
] as const satisfies ReadonlyArray<keyof PnlLines>

export const PnlLines = Schema.Struct({
  premiums: Figure.annotate({ description: "Premiums and forward fees of the locks activated in the period" }),
  forfeits: Figure.annotate({ description: "Forward deposits kept: windows that ended with no exercise" }),
  payouts: Figure.annotate({ description: "Payouts paid to customers (negative)" }),
  hedge_realised: Figure.annotate({
    description: "What hedge fills that reduced a position realised, at average cost"
  }),
  realised: Figure.annotate({ description: "premiums + forfeits + payouts + hedge_realised" }),
  unrealised: Figure.annotate({
    description: "Change of the open locks' mtm, less payouts due, plus the hedges' marks, less hedge_realised"
  }),
  total: Figure.annotate({ description: "realised + unrealised" }),
  new_business: Figure.annotate({
    description: "Locks sold in the period: premium received plus their mtm at the close"
  }),
  theta: Figure.annotate({ description: "The earlier close's theta times the days elapsed" }),
  roll: Figure.annotate({
    description:
      "The rest of the time elapsed on an unchanged market: the curves and smiles, quoted by tenor, rolling down"
  }),
  delta: Figure.annotate({ description: "The earlier close's delta times the spot's change" }),
  gamma: Figure.annotate({ description: "Half the earlier close's gamma times the spot's change squared" }),
  vega: Figure.annotate({ description: "Each lock's vega times the change of its own vol" }),
  vanna: Figure.annotate({ description: "The earlier close's vanna times the spot's and the vol's changes" }),
  volga: Figure.annotate({ description: "The vol's convexity beyond vega, from the earlier close's volga" }),
  rates: Figure.annotate({ description: "Revaluing at the new curves with the old spots and vols" }),
  settled: Figure.annotate({
    description: "Locks that left the book: what they paid out or forfeited against the mtm they were held at"
  }),
  hedges: Figure.annotate({ description: "The hedges' change of mark" }),
  fx_translation: Figure.annotate({
    description: "The open book's earlier value translated again at the later close's USD rates"
  }),
  unexplained: Figure.annotate({ description: "total − every explained line" })
}).annotate({ identifier: "PnlLines" })
export type PnlLines = typeof PnlLines.Type
export type LineName = keyof PnlLines

/** The lines in the order a reader meets them: realised, unrealised, total, then the explain. */
export const lineNames = Object.keys(PnlLines.fields) as ReadonlyArray<LineName>

export const PairPnl = Schema.Struct({
  pair: Schema.String,
  quote: Currency,
  usd: PnlLines,
  /** The same lines in the pair's QUOTE: each USD line at the later close's rate, rounded to the cent. */
  in_quote: PnlLines,
  locks_sold: Schema.Int,
  locks_settled: Schema.Int
}).annotate({ identifier: "PairPnl" })
export type PairPnl = typeof PairPnl.Type

/** The commercial side: a partner's (or one of its pairs') realised lines, USD. */
export const RealisedFigures = {
  locks_sold: Schema.Int,
  premiums: Figure,
  forfeits: Figure,
  payouts: Figure,
  realised: Figure
}

export const PartnerPnl = Schema.Struct({
  partner_id: Schema.String,
  ...RealisedFigures,
  pairs: Schema.Array(Schema.Struct({ pair: Schema.String, ...RealisedFigures }))
}).annotate({ identifier: "PartnerPnl" })
export type PartnerPnl = typeof PartnerPnl.Type

/** The realised flows in the tokens they moved in, exact to the token unit. */
export const TokenFlows = Schema.Struct({
  token: FundsCurrency,
  premiums: Figure,
  forfeits: Figure,
  payouts: Figure
}).annotate({ identifier: "PnlTokenFlows" })
export type TokenFlows = typeof TokenFlows.Type

/**
 * Network fees paid in the period, in the chain's own currency: outside the USD lines, since no snapshot prices
 * ETH, POL or SOL.
 */
export const NetworkFees = Schema.Struct({
  chain: Chain,
  currency: Schema.String,
  amount: Figure
}).annotate({ identifier: "PnlNetworkFees" })
export type NetworkFees = typeof NetworkFees.Type

export const PeriodPnl = Schema.Struct({
  from_close_id: Schema.String,
  to_close_id: Schema.String,
  /** The earlier close's instant (excluded) and the later's (included): every ledger entry falls in one period. */
  from: Datetime,
  to: Datetime,
  days: Schema.Number,
  usd: PnlLines,
  pairs: Schema.Array(PairPnl),
  partners: Schema.Array(PartnerPnl),
  tokens: Schema.Array(TokenFlows),
  network_fees: Schema.Array(NetworkFees)
}).annotate({ identifier: "PeriodPnl" })
export type PeriodPnl = typeof PeriodPnl.Type

/** Every line at zero. */
export const zeroLines = (): PnlLines =>
  Object.fromEntries(lineNames.map((name) => [name, Money.zero])) as unknown as PnlLines

/** Line by line sum, exact. */
export const addLines = (a: PnlLines, b: PnlLines): PnlLines =>
  Object.fromEntries(lineNames.map((name) => [name, Money.sum(a[name], b[name])])) as unknown as PnlLines
