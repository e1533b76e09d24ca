/**
 * `hedge_policies`, `hedge_orders` and `hedge_ledger_entries` rows and core's hedging records
 * (lease columns are the store's own): the one place their columns are named, in the schema a
 * read decodes and the mapping a write binds.
 */
import { Corridor, HedgeLedger, HedgeOrder, HedgePolicy, Partner } from "@ratelock/core"
import { Schema } from "effect"
import {
  decimal,
  decimalOrNull,
  Numeric,
  numeric,
  numericOrNull,
  rowSchema,
  Timestamp,
  timestamp,
  timestampOrNull,
  utc,
  utcOrNull
} from "./columns.ts"
import { entryColumns, entryOf, entryRow } from "./ledger.ts"

const PolicyColumns = Schema.Struct({
  environment: Partner.Environment,
  pair: Schema.String,
  target_ratio: Numeric,
  band: Numeric,
  instrument: HedgePolicy.Instrument,
  value_days: Schema.NullOr(Schema.Int),
  updated_at: Timestamp
})

/** The row a policy is written as. */
export const policyRow = (p: HedgePolicy.HedgePolicy): typeof PolicyColumns.Type => ({
  environment: p.environment,
  pair: p.pair,
  target_ratio: numeric(p.targetRatio),
  band: numeric(p.band),
  instrument: p.instrument,
  value_days: p.valueDays,
  updated_at: timestamp(p.updatedAt)
})

/** A `hedge_policies` row → `HedgePolicy`. */
export const PolicyRow = rowSchema("HedgePolicyRow", PolicyColumns, HedgePolicy.HedgePolicy, (r) => ({
  environment: r.environment,
  pair: r.pair,
  targetRatio: decimal(r.target_ratio),
  band: decimal(r.band),
  instrument: r.instrument,
  valueDays: r.value_days,
  updatedAt: utc(r.updated_at)
}))

const OrderColumns = Schema.Struct({
  id: Schema.String,
  environment: Partner.Environment,
  pair: Schema.String,
  side: HedgePolicy.Side,
  amount: Numeric,
  instrument: HedgePolicy.Instrument,
  value_date: Schema.String,
  status: HedgeOrder.HedgeOrderStatus,
  delta: Numeric,
  position: Numeric,
  target: Numeric,
  target_ratio: Numeric,
  band: Numeric,
  delta_snapshot_id: Schema.NullOr(Schema.String),
  delta_as_of: Timestamp,
  venue: Schema.String,
  fill_rate: Schema.NullOr(Numeric),
  fill_amount: Schema.NullOr(Numeric),
  filled_at: Schema.NullOr(Timestamp),
  rejection_reason: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
})

/** The row an order is written as. */
export const orderRow = (o: HedgeOrder.HedgeOrder): typeof OrderColumns.Type => ({
  id: o.id,
  environment: o.environment,
  pair: o.pair,
  side: o.side,
  amount: numeric(o.amount),
  instrument: o.instrument,
  value_date: o.valueDate,
  status: o.status,
  delta: numeric(o.delta),
  position: numeric(o.position),
  target: numeric(o.target),
  target_ratio: numeric(o.targetRatio),
  band: numeric(o.band),
  delta_snapshot_id: o.deltaSnapshotId,
  delta_as_of: timestamp(o.deltaAsOf),
  venue: o.venue,
  fill_rate: numericOrNull(o.fillRate),
  fill_amount: numericOrNull(o.fillAmount),
  filled_at: timestampOrNull(o.filledAt),
  rejection_reason: o.rejectionReason,
  created_at: timestamp(o.createdAt),
  updated_at: timestamp(o.updatedAt)
})

/** A `hedge_orders` row → `HedgeOrder`. */
export const OrderRow = rowSchema("HedgeOrderRow", OrderColumns, HedgeOrder.HedgeOrder, (r) => ({
  id: r.id,
  environment: r.environment,
  pair: r.pair,
  side: r.side,
  amount: decimal(r.amount),
  instrument: r.instrument,
  valueDate: r.value_date,
  status: r.status,
  delta: decimal(r.delta),
  position: decimal(r.position),
  target: decimal(r.target),
  targetRatio: decimal(r.target_ratio),
  band: decimal(r.band),
  deltaSnapshotId: r.delta_snapshot_id,
  deltaAsOf: utc(r.delta_as_of),
  venue: r.venue,
  fillRate: decimalOrNull(r.fill_rate),
  fillAmount: decimalOrNull(r.fill_amount),
  filledAt: utcOrNull(r.filled_at),
  rejectionReason: r.rejection_reason,
  createdAt: utc(r.created_at),
  updatedAt: utc(r.updated_at)
}))

/** A pair's position, as `PgHedgeOrderRepo.position` sums it: the signed filled amounts. */
export const PositionRow = Schema.Struct({ position: Numeric }).annotate({ identifier: "HedgePositionRow" })

const LedgerColumns = Schema.Struct({
  order_id: Schema.String,
  environment: Partner.Environment,
  pair: Schema.String,
  ...entryColumns(HedgeLedger.HedgeEntryKind, HedgeLedger.HedgeAccount, Corridor.Currency)
})

/** The row a hedge ledger entry is written as. */
export const ledgerRow = (e: HedgeLedger.HedgeLedgerEntry): typeof LedgerColumns.Type => ({
  order_id: e.orderId,
  environment: e.environment,
  pair: e.pair,
  ...entryRow(e)
})

/** A `hedge_ledger_entries` row → `HedgeLedgerEntry`. */
export const LedgerRow = rowSchema("HedgeLedgerRow", LedgerColumns, HedgeLedger.HedgeLedgerEntry, (r) => ({
  orderId: r.order_id,
  environment: r.environment,
  pair: r.pair,
  ...entryOf(r)
}))
