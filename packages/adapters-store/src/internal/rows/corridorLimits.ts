/**
 * `corridor_limits` rows and `CorridorLimit` records: the one place their columns are named. A row
 * holds an operator's limits (null: the default) and the open notional the corridor's locks hold.
 */
import { Corridor, CorridorLimit, Partner } from "@ratelock/core"
import { Schema } from "effect"
import { decimal, decimalOrNull, Numeric, rowSchema, Timestamp, utcOrNull } from "./columns.ts"

const CorridorLimitColumns = Schema.Struct({
  environment: Partner.Environment,
  direction: Corridor.Direction,
  max_lock_notional: Schema.NullOr(Numeric),
  max_open_notional: Schema.NullOr(Numeric),
  max_net_delta: Schema.NullOr(Numeric),
  open_notional: Numeric,
  updated_at: Schema.NullOr(Timestamp)
})

/** A `corridor_limits` row → `CorridorLimit`. */
export const CorridorLimitRow = rowSchema(
  "CorridorLimitRow",
  CorridorLimitColumns,
  CorridorLimit.CorridorLimit,
  (r) => ({
    environment: r.environment,
    direction: r.direction,
    maxLockNotional: decimalOrNull(r.max_lock_notional),
    maxOpenNotional: decimalOrNull(r.max_open_notional),
    maxNetDelta: decimalOrNull(r.max_net_delta),
    openNotional: decimal(r.open_notional),
    updatedAt: utcOrNull(r.updated_at)
  })
)
