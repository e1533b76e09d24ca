/**
 * `CorridorLimitRepo` on Postgres: `corridor_limits`, one row per environment and corridor, made by
 * the first limit set or the first lock counted. `set` writes only the limits it is given and never
 * the open notional, which the contract statements keep (`PgContractRepo`).
 */
import { CorridorLimit, CorridorLimitRepo, type Corridor, type Money, type Partner } from "@ratelock/core"
import { type DateTime, Effect, Layer, Option } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { numericOrNull, timestamp } from "./internal/rows/columns.ts"
import { CorridorLimitRow } from "./internal/rows/corridorLimits.ts"
import { orStoreError, Parameters } from "./internal/sql.ts"

interface Key {
  readonly environment: Partner.Environment
  readonly direction: Corridor.Direction
}

/** A limit in a `set`: whether it is given, and its value (null: back to the default). */
const given = (value: Money.Decimal | null | undefined) => ({
  set: value !== undefined,
  value: numericOrNull(value ?? null)
})

export const layer: Layer.Layer<CorridorLimitRepo.CorridorLimitRepo, never, SqlClient.SqlClient> = Layer.effect(
  CorridorLimitRepo.CorridorLimitRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const one = SqlSchema.findOneOption({
      Request: Parameters<Key>(),
      Result: CorridorLimitRow,
      execute: (r) =>
        sql`SELECT * FROM corridor_limits WHERE environment = ${r.environment} AND direction = ${r.direction}`
    })

    const find = Effect.fn("PgCorridorLimitRepo.find")(function* (
      environment: Partner.Environment,
      direction: Corridor.Direction
    ) {
      const found = yield* one({ environment, direction })
      return Option.getOrElse(found, () => CorridorLimit.unset(environment, direction))
    }, orStoreError("PgCorridorLimitRepo.find"))

    const all = SqlSchema.findAll({
      Request: Parameters<void>(),
      Result: CorridorLimitRow,
      execute: () => sql`SELECT * FROM corridor_limits ORDER BY environment, direction`
    })

    const list = Effect.fn("PgCorridorLimitRepo.list")(function* () {
      return yield* all(undefined)
    }, orStoreError("PgCorridorLimitRepo.list"))

    const upsert = SqlSchema.findOne({
      Request: Parameters<Key & { readonly change: CorridorLimit.LimitChange; readonly at: Date }>(),
      Result: CorridorLimitRow,
      execute: (r) => {
        const lock = given(r.change.maxLockNotional)
        const open = given(r.change.maxOpenNotional)
        const delta = given(r.change.maxNetDelta)
        // each limit given is written, each one absent is kept; the open notional is never touched
        const keep = (column: string, limit: { set: boolean }) =>
          limit.set ? sql`EXCLUDED.${sql(column)}` : sql`l.${sql(column)}`
        return sql`INSERT INTO corridor_limits AS l
            (environment, direction, max_lock_notional, max_open_notional, max_net_delta, updated_at)
          VALUES (${r.environment}, ${r.direction}, ${lock.value}::numeric, ${open.value}::numeric,
            ${delta.value}::numeric, ${r.at})
          ON CONFLICT (environment, direction) DO UPDATE SET
            max_lock_notional = ${keep("max_lock_notional", lock)},
            max_open_notional = ${keep("max_open_notional", open)},
            max_net_delta = ${keep("max_net_delta", delta)},
            updated_at = EXCLUDED.updated_at
          RETURNING *`
      }
    })

    const set = Effect.fn("PgCorridorLimitRepo.set")(function* (
      environment: Partner.Environment,
      direction: Corridor.Direction,
      change: CorridorLimit.LimitChange,
      at: DateTime.Utc
    ) {
      return yield* upsert({ environment, direction, change, at: timestamp(at) })
    }, orStoreError("PgCorridorLimitRepo.set"))

    return CorridorLimitRepo.CorridorLimitRepo.of({ find, list, set })
  })
)
