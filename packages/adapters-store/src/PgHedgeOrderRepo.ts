/**
 * `HedgeOrderRepo` on Postgres: `hedge_orders` and `hedge_ledger_entries`.
 *
 * An intended order is inserted in one statement with a share lock on its pair's policy row,
 * still leased to the caller's claim, and a guard (`ratelock_conflict_unless`) that rolls the
 * insert back when it is not; a second outstanding order of the pair breaks the unique index
 * `hedge_orders_outstanding`. A fill is the compare-and-set update with its ledger entries, one
 * statement too.
 */
import { type HedgeLedger, type HedgeOrder, HedgeOrderRepo, type HedgePolicyRepo, type Partner } from "@ratelock/core"
import { Array, Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError, SqlSchema } from "effect/sql"
import { decimal, timestamp } from "./internal/rows/columns.ts"
import { LedgerRow, ledgerRow, OrderRow, orderRow, PositionRow } from "./internal/rows/hedging.ts"
import { requireBalanced } from "./internal/rules.ts"
import { isConflict, isUuid, orStoreError, Parameters, storeError } from "./internal/sql.ts"

/** Lost to a guard, a unique index or a concurrent writer: not written. */
const notWritten = (operation: string) => (e: SqlError.SqlError) =>
  isConflict(e) ? Effect.succeed(false) : Effect.fail(storeError(operation, e))

interface PairKey {
  readonly environment: Partner.Environment
  readonly pair: string
}

export const layer: Layer.Layer<HedgeOrderRepo.HedgeOrderRepo, never, SqlClient.SqlClient> = Layer.effect(
  HedgeOrderRepo.HedgeOrderRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insertIntended = Effect.fn("PgHedgeOrderRepo.insertIntended")(function* (
      order: HedgeOrder.HedgeOrder,
      lease: HedgePolicyRepo.PairLease
    ) {
      return yield* sql`WITH held AS (
          SELECT 1 FROM hedge_policies
          WHERE environment = ${order.environment} AND pair = ${order.pair}
            AND lease_owner = ${lease.owner} AND lease_expires_at = ${timestamp(lease.until)}
          FOR SHARE
        ), inserted AS (INSERT INTO hedge_orders ${sql.insert(orderRow(order))} RETURNING id)
        SELECT ratelock_conflict_unless(EXISTS (SELECT 1 FROM held) AND EXISTS (SELECT 1 FROM inserted))`.pipe(
        Effect.as(true),
        Effect.catch(notWritten("PgHedgeOrderRepo.insertIntended"))
      )
    })

    // compare-and-set: only over the row the caller read (same status, same updated_at)
    const update = Effect.fn("PgHedgeOrderRepo.update")(function* (
      order: HedgeOrder.HedgeOrder,
      expected: HedgeOrderRepo.Expected,
      ledger: ReadonlyArray<HedgeLedger.HedgeLedgerEntry> = []
    ) {
      yield* requireBalanced(ledger, `hedge order ${order.id}`)
      const moved = sql`UPDATE hedge_orders SET ${sql.update(orderRow(order), ["id"])}
        WHERE id = ${order.id} AND status = ${expected.status} AND updated_at = ${timestamp(expected.updatedAt)}
        RETURNING id`
      if (Array.isReadonlyArrayNonEmpty(ledger)) {
        const rows = Array.map(ledger, ledgerRow)
        // one statement: the entries are rolled back with it when the compare-and-set matched nothing
        return yield* sql`WITH moved AS (${moved}),
            entries AS (INSERT INTO hedge_ledger_entries ${sql.insert(rows)})
          SELECT ratelock_conflict_unless(EXISTS (SELECT 1 FROM moved))`.pipe(
          Effect.as(true),
          Effect.catch(notWritten("PgHedgeOrderRepo.update"))
        )
      }
      return yield* Effect.map(moved, (rows) => rows.length === 1).pipe(
        Effect.mapError((e) => storeError("PgHedgeOrderRepo.update", e))
      )
    })

    const byId = SqlSchema.findOneOption({
      Request: Parameters<string>(),
      Result: OrderRow,
      execute: (id) => sql`SELECT * FROM hedge_orders WHERE id = ${id}`
    })

    const find = Effect.fn("PgHedgeOrderRepo.find")(function* (id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* byId(id)
    }, orStoreError("PgHedgeOrderRepo.find"))

    const outstandingOf = SqlSchema.findAll({
      Request: Parameters<PairKey>(),
      Result: OrderRow,
      execute: (k) => sql`SELECT * FROM hedge_orders
        WHERE environment = ${k.environment} AND pair = ${k.pair} AND status IN ('intended', 'sent')`
    })

    const outstanding = Effect.fn("PgHedgeOrderRepo.outstanding")(function* (
      environment: Partner.Environment,
      pair: string
    ) {
      return yield* outstandingOf({ environment, pair })
    }, orStoreError("PgHedgeOrderRepo.outstanding"))

    const filled = SqlSchema.findOne({
      Request: Parameters<PairKey>(),
      Result: PositionRow,
      execute: (k) => sql`SELECT
          coalesce(sum(CASE side WHEN 'buy' THEN fill_amount ELSE -fill_amount END), 0)::text AS position
        FROM hedge_orders WHERE environment = ${k.environment} AND pair = ${k.pair} AND status = 'filled'`
    })

    const position = Effect.fn("PgHedgeOrderRepo.position")(function* (environment: Partner.Environment, pair: string) {
      return decimal((yield* filled({ environment, pair })).position)
    }, orStoreError("PgHedgeOrderRepo.position"))

    const listed = SqlSchema.findAll({
      Request: Parameters<HedgeOrderRepo.ListFilter>(),
      Result: OrderRow,
      execute: (f) => sql`SELECT * FROM hedge_orders
        WHERE ${sql.and([
          ...(f.environment === undefined ? [] : [sql`environment = ${f.environment}`]),
          ...(f.pair === undefined ? [] : [sql`pair = ${f.pair}`]),
          ...(f.statuses === undefined ? [] : [sql`status = ANY(${f.statuses}::text[])`]),
          ...(f.since === undefined ? [] : [sql`created_at >= ${timestamp(f.since)}`])
        ])}
        ORDER BY created_at DESC, id DESC LIMIT ${f.limit}`
    })

    const list = Effect.fn("PgHedgeOrderRepo.list")(function* (filter: HedgeOrderRepo.ListFilter) {
      return yield* listed(filter)
    }, orStoreError("PgHedgeOrderRepo.list"))

    const entriesOf = SqlSchema.findAll({
      Request: Parameters<string>(),
      Result: LedgerRow,
      execute: (id) => sql`SELECT * FROM hedge_ledger_entries WHERE order_id = ${id} ORDER BY id`
    })

    const ledgerEntries = Effect.fn("PgHedgeOrderRepo.ledgerEntries")(function* (orderId: string) {
      if (!isUuid(orderId)) return []
      return yield* entriesOf(orderId)
    }, orStoreError("PgHedgeOrderRepo.ledgerEntries"))

    return HedgeOrderRepo.HedgeOrderRepo.of({
      insertIntended,
      update,
      find,
      outstanding,
      position,
      list,
      ledgerEntries
    })
  })
)
