/**
 * `sim_hedge_fills` rows and what the simulated venue recorded of an order: the one place the
 * columns of its books are named.
 */
import { Schema } from "effect"
import { decimal, decimalOrNull, Numeric, rowSchema, Timestamp, utc } from "./columns.ts"

/** What the venue recorded of an order. */
export const Received = Schema.Struct({
  orderId: Schema.String,
  outcome: Schema.Literals(["filled", "rejected"]),
  /** Filled: at `rate` (QUOTE per BASE), `amount` BASE units, `at`. */
  fill: Schema.NullOr(Schema.Struct({ rate: Schema.BigDecimal, amount: Schema.BigDecimal, at: Schema.DateTimeUtc })),
  /** The mid it filled around. */
  mid: Schema.NullOr(Schema.BigDecimal),
  reason: Schema.NullOr(Schema.String),
  /** Filled, but the first answer was `timeout`. */
  timedOut: Schema.Boolean,
  /** How many times the order was executed: the first time and every repeat. */
  executions: Schema.Int
}).annotate({ identifier: "SimulatedHedgeVenue.Received" })
export type Received = typeof Received.Type

/** The two things the venue can be told to do to the next new order. */
export const Action = Schema.Literals(["reject", "timeout"])

/** An action a new order took from `sim_hedge_venue_control`. */
export const ActionRow = Schema.Struct({ action: Action }).annotate({ identifier: "SimHedgeActionRow" })

const Columns = Schema.Struct({
  order_id: Schema.String,
  amount: Numeric,
  outcome: Schema.Literals(["filled", "rejected"]),
  rate: Schema.NullOr(Numeric),
  mid: Schema.NullOr(Numeric),
  reason: Schema.NullOr(Schema.String),
  timed_out: Schema.Boolean,
  executions: Schema.Int,
  received_at: Timestamp
})

/** A `sim_hedge_fills` row → what the venue recorded. */
export const SimFillRow = rowSchema("SimHedgeFillRow", Columns, Received, (r) => ({
  orderId: r.order_id,
  outcome: r.outcome,
  fill: r.rate === null ? null : { rate: decimal(r.rate), amount: decimal(r.amount), at: utc(r.received_at) },
  mid: decimalOrNull(r.mid),
  reason: r.reason,
  timedOut: r.timed_out,
  executions: r.executions
}))
