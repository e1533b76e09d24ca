/**
 * The simulated hedge venue (the sandbox's and the tests'): `HedgeVenue` filling every order at
 * once at the market's mid (`MarketData.midRate`, from the latest snapshot) plus or minus a
 * configured spread (`HedgeVenue.spreadRate`, rounded against the service), with its books kept
 * in the store: in SQL (`sim_hedge_fills`, `sim_hedge_venue_control`, migration 13) next to the
 * service's own tables, so every process on one database sees one venue and a restart forgets
 * nothing; or in memory.
 *
 * - One record per order id: executing an id again changes nothing but its count of executions
 *   (what the tests read to prove an order was never sent twice) and answers the first outcome.
 * - It can be told (`arm`, core's `SimulatedVenueControl`: `ratelock hedge simulate`) to reject
 *   the next new order, or to fill it but answer `timeout`: the fill is recorded, the
 *   caller only learns of it by looking the order up.
 * - No mid for the pair, or a store that fails: `unavailable`, nothing recorded.
 */
import {
  Corridor,
  type HedgeOrder,
  HedgeVenue,
  MarketData,
  type Money,
  SimulatedVenueControl,
  type StoreError
} from "@ratelock/core"
import { Context, DateTime, Effect, Layer, Option, Ref, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { numeric } from "./internal/rows/columns.ts"
import * as Rows from "./internal/rows/simulatedHedgeVenue.ts"
import { isUuid, orStoreError, Parameters } from "./internal/sql.ts"

/** The venue's name on the orders sent to it. */
export const name = "simulated"

/** What the venue recorded of an order. */
export type Received = Rows.Received

/** The two things the venue can be told to do to the next new order. */
export type Action = typeof Rows.Action.Type

export interface SimulatedHedgeVenueShape {
  /** Arms one action for the next new order (armed actions queue up: rejections first). */
  readonly arm: (action: Action) => Effect.Effect<void, StoreError.StoreError>
  /** What the venue recorded of an order, if it ever received it. */
  readonly received: (orderId: string) => Effect.Effect<Option.Option<Received>, StoreError.StoreError>
}

export class SimulatedHedgeVenue extends Context.Service<SimulatedHedgeVenue, SimulatedHedgeVenueShape>()(
  "@ratelock/adapters-store/SimulatedHedgeVenue"
) {}

export interface Options {
  /** Basis points added to the mid for a buy, taken off for a sell. */
  readonly spreadBps: Money.Decimal
}

/** The reason of an order the venue was told to reject. */
export const rejection = "the simulated venue was told to reject this order"

const unavailable = (message: string) => new HedgeVenue.VenueError({ venue: name, reason: "unavailable", message })

/** What a record answers to `execute` (a timeout only the first time: afterwards the fill). */
const answer = (received: Received, first: boolean): Effect.Effect<HedgeVenue.Execution, HedgeVenue.VenueError> => {
  if (received.outcome === "rejected") {
    return Effect.fail(
      new HedgeVenue.VenueError({ venue: name, reason: "rejected", message: received.reason ?? rejection })
    )
  }
  if (first && received.timedOut) {
    return Effect.fail(new HedgeVenue.VenueError({ venue: name, reason: "timeout", message: "no answer in time" }))
  }
  return Effect.succeed({ _tag: "Filled", fill: received.fill! })
}

const lookupOf = (received: Option.Option<Received>): HedgeVenue.Lookup =>
  Option.match(received, {
    onNone: () => ({ _tag: "Unknown" }),
    onSome: (r) =>
      r.outcome === "rejected" ? { _tag: "Rejected", reason: r.reason ?? rejection } : { _tag: "Filled", fill: r.fill! }
  })

/** A new order's record: rejected, or filled at the spread rate (answered `timeout` when armed so). */
const newRecord = (
  order: HedgeOrder.HedgeOrder,
  action: Action | null,
  mid: Money.Decimal,
  options: Options,
  now: DateTime.Utc
): Received =>
  action === "reject"
    ? {
        orderId: order.id,
        outcome: "rejected",
        fill: null,
        mid: null,
        reason: rejection,
        timedOut: false,
        executions: 1
      }
    : {
        orderId: order.id,
        outcome: "filled",
        fill: {
          rate: HedgeVenue.spreadRate(order.pair, mid, order.side, options.spreadBps),
          amount: order.amount,
          at: now
        },
        mid,
        reason: null,
        timedOut: action === "timeout",
        executions: 1
      }

/** The mid the venue fills around, now. */
const midOf = Effect.fnUntraced(function* (market: MarketData.MarketDataShape, pair: string, now: DateTime.Utc) {
  const { base, quote } = Corridor.marketPairCurrencies(pair)
  const mid = yield* market.midRate(base, quote, now).pipe(Effect.mapError((e) => unavailable(e.message)))
  if (Option.isNone(mid)) return yield* unavailable(`no market rate for ${pair}`)
  return mid.value
})

/** The SQL venue's controls and books, without its execution (which needs market data). */
const sqlControl = Effect.fnUntraced(function* (sql: SqlClient.SqlClient) {
  const byId = SqlSchema.findOneOption({
    Request: Parameters<string>(),
    Result: Rows.SimFillRow,
    execute: (id) => sql`SELECT * FROM sim_hedge_fills WHERE order_id = ${id}`
  })

  const received = Effect.fn("SimulatedHedgeVenue.received")(function* (orderId: string) {
    if (!isUuid(orderId)) return Option.none()
    return yield* byId(orderId)
  }, orStoreError("SimulatedHedgeVenue.received"))

  const arm = Effect.fn("SimulatedHedgeVenue.arm")(function* (action: Action) {
    yield* sql`INSERT INTO sim_hedge_venue_control (action, remaining) VALUES (${action}, 1)
      ON CONFLICT (action) DO UPDATE SET remaining = sim_hedge_venue_control.remaining + 1`
  }, orStoreError("SimulatedHedgeVenue.arm"))

  return SimulatedHedgeVenue.of({ arm, received })
})

/**
 * The SQL venue's controls alone, as core's port (`ratelock hedge simulate`, the operator API):
 * arming it needs no market data, so every process on the database can.
 */
export const layerSqlControl: Layer.Layer<never, never, SqlClient.SqlClient> = Layer.effect(
  SimulatedVenueControl.SimulatedVenueControl,
  Effect.map(Effect.flatMap(SqlClient.SqlClient, sqlControl), (controls) => ({ arm: controls.arm }))
)

/** The venue in SQL, on the store's database (tables of migration 13). */
export const layerSql = (
  options: Options
): Layer.Layer<HedgeVenue.HedgeVenue | SimulatedHedgeVenue, never, SqlClient.SqlClient | MarketData.MarketData> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const market = yield* MarketData.MarketData

      const repeat = SqlSchema.findAll({
        Request: Parameters<string>(),
        Result: Rows.SimFillRow,
        execute: (id) => sql`UPDATE sim_hedge_fills SET executions = executions + 1 WHERE order_id = ${id} RETURNING *`
      })

      // the first armed action, rejections before timeouts, taken by this one order
      const armed = SqlSchema.findOneOption({
        Request: Schema.Void,
        Result: Rows.ActionRow,
        execute: () => sql`UPDATE sim_hedge_venue_control SET remaining = remaining - 1
          WHERE action = (SELECT action FROM sim_hedge_venue_control WHERE remaining > 0
            ORDER BY action LIMIT 1 FOR UPDATE)
          RETURNING action`
      })
      const takeAction = Effect.map(armed(), (row) => Option.getOrNull(Option.map(row, (r) => r.action)))

      const record = SqlSchema.findOne({
        Request: Parameters<{
          readonly order: HedgeOrder.HedgeOrder
          readonly received: Received
          readonly now: DateTime.Utc
        }>(),
        Result: Rows.SimFillRow,
        execute: ({ order, received, now }) => sql`INSERT INTO sim_hedge_fills ${sql.insert({
          order_id: order.id,
          environment: order.environment,
          pair: order.pair,
          side: order.side,
          amount: numeric(order.amount),
          outcome: received.outcome,
          rate: received.fill === null ? null : numeric(received.fill.rate),
          mid: received.mid === null ? null : numeric(received.mid),
          spread_bps: received.outcome === "filled" ? numeric(options.spreadBps) : null,
          reason: received.reason,
          timed_out: received.timedOut,
          executions: 1,
          received_at: DateTime.toDateUtc(now)
        })}
          ON CONFLICT (order_id) DO UPDATE SET executions = sim_hedge_fills.executions + 1
          RETURNING *`
      })

      const execute = (order: HedgeOrder.HedgeOrder) =>
        Effect.gen(function* () {
          const now = yield* DateTime.now
          // Read before the transaction, never inside it: the market in force may be re-read from
          // this database by another fiber, which on the embedded store's one connection would wait
          // for this transaction while it waits for that read (the service stopped answering).
          const priced = yield* Effect.exit(midOf(market, order.pair, now))
          const [received, first] = yield* sql
            .withTransaction(
              Effect.gen(function* () {
                const again = yield* repeat(order.id)
                if (again[0] !== undefined) return [again[0], false] as const
                // a new order: priced now, or refused with nothing recorded when there is no mid
                const mid = yield* priced
                const action = yield* takeAction
                const stored = yield* record({ order, received: newRecord(order, action, mid, options, now), now })
                return [stored, stored.executions === 1] as const
              })
            )
            .pipe(
              orStoreError("SimulatedHedgeVenue.execute"),
              Effect.mapError((e) => (e._tag === "VenueError" ? e : unavailable(e.message)))
            )
          return yield* answer(received, first)
        }).pipe(Effect.withSpan("SimulatedHedgeVenue.execute"))

      const controls = yield* sqlControl(sql)

      const lookup = (orderId: string) =>
        Effect.map(controls.received(orderId), lookupOf).pipe(Effect.mapError((e) => unavailable(e.message)))

      return Context.make(HedgeVenue.HedgeVenue, HedgeVenue.HedgeVenue.of({ name, execute, lookup })).pipe(
        Context.add(SimulatedHedgeVenue, controls),
        Context.add(SimulatedVenueControl.SimulatedVenueControl, { arm: controls.arm })
      )
    })
  )

interface MemoryState {
  readonly received: ReadonlyMap<string, Received>
  readonly armed: Readonly<Record<Action, number>>
}

/** The venue in memory (one fresh venue per build of the layer). */
export const layerMemory = (
  options: Options
): Layer.Layer<HedgeVenue.HedgeVenue | SimulatedHedgeVenue, never, MarketData.MarketData> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const market = yield* MarketData.MarketData
      const state = yield* Ref.make<MemoryState>({ received: new Map(), armed: { reject: 0, timeout: 0 } })

      const execute = (order: HedgeOrder.HedgeOrder) =>
        Effect.gen(function* () {
          const now = yield* DateTime.now
          // a new order is priced now, or refused with nothing recorded when there is no mid
          const known = (yield* Ref.get(state)).received.has(order.id)
          const mid = known ? null : yield* midOf(market, order.pair, now)
          const [received, first] = yield* Ref.modify(
            state,
            (s): readonly [readonly [Received, boolean], MemoryState] => {
              const stored = s.received.get(order.id)
              if (stored !== undefined || mid === null) {
                const again = { ...stored!, executions: stored!.executions + 1 }
                return [[again, false], { ...s, received: new Map(s.received).set(order.id, again) }]
              }
              const action: Action | null = s.armed.reject > 0 ? "reject" : s.armed.timeout > 0 ? "timeout" : null
              const fresh = newRecord(order, action, mid, options, now)
              const armed = action === null ? s.armed : { ...s.armed, [action]: s.armed[action] - 1 }
              return [[fresh, true], { received: new Map(s.received).set(order.id, fresh), armed }]
            }
          )
          return yield* answer(received, first)
        }).pipe(Effect.withSpan("SimulatedHedgeVenue.execute"))

      const received = (orderId: string) =>
        Effect.map(Ref.get(state), (s) => Option.fromNullishOr(s.received.get(orderId)))

      const arm = (action: Action) =>
        Ref.update(state, (s) => ({ ...s, armed: { ...s.armed, [action]: s.armed[action] + 1 } }))

      return Context.make(
        HedgeVenue.HedgeVenue,
        HedgeVenue.HedgeVenue.of({ name, execute, lookup: (orderId) => Effect.map(received(orderId), lookupOf) })
      ).pipe(
        Context.add(SimulatedHedgeVenue, SimulatedHedgeVenue.of({ arm, received })),
        Context.add(SimulatedVenueControl.SimulatedVenueControl, { arm })
      )
    })
  )
