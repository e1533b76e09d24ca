/**
 * A hedge order as the service keeps it: what was decided (and from what), where it was sent, and
 * how it ended. Its id is the venue's idempotency key: the order is stored `intended` before it is
 * sent, and after a crash it is looked up, or sent again under the same id, never as a new order.
 *
 * `intended`: stored, maybe not yet sent. `sent`: handed to the venue, outcome not yet known (a
 * manual venue's order waits here for a trader; a timeout leaves it here for a lookup). `filled`:
 * the venue filled `fillAmount` at `fillRate` (a trader may fill less than asked). `rejected`: the
 * venue refused it; the next pass decides anew, under a new id.
 */
import { Schema } from "effect"
import { MarketPairKey } from "../kernel/Corridor.ts"
import { Uuid } from "../kernel/Fields.ts"
import { Instrument, Side } from "./HedgePolicy.ts"
import * as Money from "../kernel/Money.ts"
import { Environment } from "../terms/Partner.ts"

export const HedgeOrderStatus = Schema.Literals(["intended", "sent", "filled", "rejected"])
export type HedgeOrderStatus = typeof HedgeOrderStatus.Type

/** Statuses whose order still waits for an outcome: while one is there, no new decision for the pair. */
export const outstandingStatuses: ReadonlyArray<HedgeOrderStatus> = ["intended", "sent"]

export const HedgeOrder = Schema.Struct({
  id: Uuid,
  environment: Environment,
  pair: MarketPairKey,
  side: Side,
  /** BASE units asked for, positive. */
  amount: Schema.BigDecimal,
  instrument: Instrument,
  /** `YYYY-MM-DD`. */
  valueDate: Schema.String,
  status: HedgeOrderStatus,
  // the decision's inputs, kept for audit
  /** The book's delta the order hedged, BASE units. */
  delta: Schema.BigDecimal,
  /** The hedge position when it was decided. */
  position: Schema.BigDecimal,
  /** The position it moves to. */
  target: Schema.BigDecimal,
  targetRatio: Schema.BigDecimal,
  band: Schema.BigDecimal,
  /** The snapshot the delta was revalued on (null: one not stored), and its instant. */
  deltaSnapshotId: Schema.NullOr(Schema.String),
  deltaAsOf: Schema.DateTimeUtc,
  /** The venue it was sent to (`simulated`, `manual`). */
  venue: Schema.String,
  /** QUOTE per 1 BASE. */
  fillRate: Schema.NullOr(Schema.BigDecimal),
  /** BASE units filled. */
  fillAmount: Schema.NullOr(Schema.BigDecimal),
  filledAt: Schema.NullOr(Schema.DateTimeUtc),
  rejectionReason: Schema.NullOr(Schema.String),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}).annotate({ identifier: "HedgeOrder" })
export type HedgeOrder = typeof HedgeOrder.Type

export const isOutstanding = (order: Pick<HedgeOrder, "status">): boolean => outstandingStatuses.includes(order.status)

/** What an order adds to the position: its fill, positive bought, negative sold; nothing unless filled. */
export const signedFill = (order: Pick<HedgeOrder, "status" | "side" | "fillAmount">): Money.Decimal => {
  if (order.status !== "filled" || order.fillAmount === null) return Money.zero
  return order.side === "buy" ? order.fillAmount : Money.subtract(Money.zero, order.fillAmount)
}

/** The hedge position of some orders (those of one pair): the signed sum of their fills. */
export const position = (orders: Iterable<Pick<HedgeOrder, "status" | "side" | "fillAmount">>): Money.Decimal => {
  let total = Money.zero
  for (const order of orders) total = Money.sum(total, signedFill(order))
  return total
}

/** The fields an operator sees (CLI `--json`, the operator API): snake_case, decimals as strings. */
export const HedgeOrderView = Schema.Struct({
  id: Schema.String,
  environment: Environment,
  pair: Schema.String,
  side: Side,
  amount: Money.DecimalString,
  instrument: Instrument,
  value_date: Schema.String,
  status: HedgeOrderStatus,
  venue: Schema.String,
  delta: Money.DecimalString,
  position: Money.DecimalString,
  target: Money.DecimalString,
  target_ratio: Money.DecimalString,
  band: Money.DecimalString,
  delta_snapshot_id: Schema.NullOr(Schema.String),
  delta_as_of: Schema.DateTimeUtcFromString,
  fill_rate: Schema.NullOr(Money.DecimalString),
  fill_amount: Schema.NullOr(Money.DecimalString),
  filled_at: Schema.NullOr(Schema.DateTimeUtcFromString),
  rejection_reason: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtcFromString,
  updated_at: Schema.DateTimeUtcFromString
}).annotate({ identifier: "HedgeOrderView" })

/** The order as an operator sees it, encoded (JSON-ready). */
export const view = (o: HedgeOrder): typeof HedgeOrderView.Encoded =>
  Schema.encodeSync(HedgeOrderView)({
    id: o.id,
    environment: o.environment,
    pair: o.pair,
    side: o.side,
    amount: o.amount,
    instrument: o.instrument,
    value_date: o.valueDate,
    status: o.status,
    venue: o.venue,
    delta: o.delta,
    position: o.position,
    target: o.target,
    target_ratio: o.targetRatio,
    band: o.band,
    delta_snapshot_id: o.deltaSnapshotId,
    delta_as_of: o.deltaAsOf,
    fill_rate: o.fillRate,
    fill_amount: o.fillAmount,
    filled_at: o.filledAt,
    rejection_reason: o.rejectionReason,
    created_at: o.createdAt,
    updated_at: o.updatedAt
  })
