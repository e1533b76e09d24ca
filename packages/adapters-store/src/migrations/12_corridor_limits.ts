/**
 * Migration 12: corridor limits (issue 17; risk.md, Limits): per environment and corridor, the
 * operator's limits (null: the default) and `open_notional`, Σ N_b of the corridor's contracts in
 * `quote_created`, `funds_in_route` and `active`. The contract insert adds to it under the limits
 * and the commits that leave or enter those statuses move it, each in its own statement
 * (`PgContractRepo`), so it never drifts from the contracts. The contracts already stored are
 * counted here with the rule core counted them with when this migration was released
 * (`CorridorLimit.lockNotional`), so a transition later takes away exactly what was added.
 *
 * `ratelock_capacity_unless` is the insert's guard: a lock that did not fit fails its statement
 * with a check violation named `corridor_capacity`, which the repository answers as
 * `CorridorCapacityExceeded`.
 */
import { BigDecimal, Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { statements } from "./statements.ts"

// core's `CorridorLimit.holdingStatuses` when this migration was released, copied: a released
// migration must never change when core does
const holdingStatuses = ["quote_created", "funds_in_route", "active"]

/** A contract that holds capacity, as this migration reads it. */
const HeldRow = Schema.Struct({
  environment: Schema.String,
  direction: Schema.String,
  notional_currency: Schema.String,
  notional_amount: Schema.String,
  locked_rate: Schema.String
}).annotate({ identifier: "Migration12HeldRow" })

// core's `CorridorLimit.lockNotional` when this migration was released, copied for the same
// reason: N_b, the notional in the direction's BASE currency (a QUOTE notional divided by the
// locked rate), rounded up to 6 decimals
const lockNotional = (c: typeof HeldRow.Type): BigDecimal.BigDecimal => {
  const amount = BigDecimal.fromStringUnsafe(c.notional_amount)
  const [base] = c.direction.split("_TO_")
  const inBase =
    c.notional_currency === base ? amount : BigDecimal.divideUnsafe(amount, BigDecimal.fromStringUnsafe(c.locked_rate))
  return BigDecimal.normalize(BigDecimal.scale(BigDecimal.ceil(inBase, 6), 6))
}

// a sum (never negative) as `numeric` text with its own scale, as core's `Money.format` wrote it then
const numericText = (d: BigDecimal.BigDecimal): string => {
  const digits = (d.value * 10n ** BigInt(Math.max(0, -d.scale))).toString().padStart(Math.max(0, d.scale) + 1, "0")
  return d.scale <= 0 ? digits : `${digits.slice(0, -d.scale)}.${digits.slice(-d.scale)}`
}

export const corridorLimits = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* statements([
    `CREATE TABLE corridor_limits (
      environment ratelock_environment NOT NULL,
      direction text NOT NULL,
      max_lock_notional ratelock_nonnegative_numeric,
      max_open_notional ratelock_nonnegative_numeric,
      max_net_delta ratelock_nonnegative_numeric,
      open_notional ratelock_nonnegative_numeric NOT NULL DEFAULT 0,
      updated_at timestamptz(3),
      PRIMARY KEY (environment, direction)
    )`,
    `CREATE FUNCTION ratelock_capacity_unless(ok boolean) RETURNS boolean LANGUAGE plpgsql AS $$
    BEGIN
      IF ok IS NOT TRUE THEN
        RAISE EXCEPTION 'the lock does not fit its corridor''s limits'
          USING ERRCODE = 'check_violation', CONSTRAINT = 'corridor_capacity';
      END IF;
      RETURN true;
    END $$`
  ])
  const held = yield* SqlSchema.findAll({
    Request: Schema.Void,
    Result: HeldRow,
    execute:
      () => sql`SELECT environment, direction, notional_currency, notional_amount::text, locked_rate::text FROM contracts
    WHERE status = ANY(${holdingStatuses}::text[])`
  })()
  const open = new Map<string, { environment: string; direction: string; sum: BigDecimal.BigDecimal }>()
  for (const c of held) {
    const key = `${c.environment}|${c.direction}`
    const before = open.get(key)?.sum ?? BigDecimal.make(0n, 0)
    open.set(key, { environment: c.environment, direction: c.direction, sum: BigDecimal.sum(before, lockNotional(c)) })
  }
  for (const corridor of open.values()) {
    yield* sql`INSERT INTO corridor_limits (environment, direction, open_notional)
      VALUES (${corridor.environment}, ${corridor.direction}, ${numericText(corridor.sum)}::numeric)`
  }
})
