/**
 * The simulated hedge venue, in memory, on PGlite and on PostgreSQL (skipped without
 * `DATABASE_URL`): fills at the mid ± the spread rounded against the service, one record per order
 * id however often it is executed (concurrently too), told to reject or to time out the next new
 * order, unavailable without a mid; in SQL, a new instance on the same database (a restart) knows
 * everything the first one did.
 */
import { assert, describe, layer } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import { type HedgeOrder, HedgeVenue, MarketData, MarketSnapshot, Money } from "@ratelock/core"
import * as PgliteTemplate from "@ratelock/test-support/PgliteTemplate"
import * as Postgres from "@ratelock/test-support/Postgres"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as EmbeddedStore from "../src/EmbeddedStore.ts"
import * as PgStore from "../src/PgStore.ts"
import * as SimulatedHedgeVenue from "../src/SimulatedHedgeVenue.ts"

const d = Money.unsafe

/** The illustrative market without USD/MXN: a pair the venue has no mid for. */
const market = MarketData.MarketData.layerSnapshot({
  ...MarketSnapshot.illustrative,
  spot: Object.fromEntries(Object.entries(MarketSnapshot.illustrative.spot).filter(([pair]) => pair !== "USD/MXN"))
})

const options = { spreadBps: d("7.5") }

type Services = HedgeVenue.HedgeVenue | SimulatedHedgeVenue.SimulatedHedgeVenue
type It = Vitest.MethodsNonLive<Services>

const order = (overrides: Partial<HedgeOrder.HedgeOrder> = {}): HedgeOrder.HedgeOrder => {
  const t = DateTime.makeUnsafe("2026-11-23T12:00:00.000Z")
  return {
    id: crypto.randomUUID(),
    environment: "sandbox",
    pair: "USD/BRL",
    side: "buy",
    amount: d("125000.50"),
    instrument: "spot",
    valueDate: "2026-11-25",
    status: "sent",
    delta: d("-125000.5"),
    position: Money.zero,
    target: d("125000.5"),
    targetRatio: Money.one,
    band: d("1000"),
    deltaSnapshotId: null,
    deltaAsOf: t,
    venue: SimulatedHedgeVenue.name,
    fillRate: null,
    fillAmount: null,
    filledAt: null,
    rejectionReason: null,
    createdAt: t,
    updatedAt: t,
    ...overrides
  }
}

const venue = HedgeVenue.HedgeVenue
const control = SimulatedHedgeVenue.SimulatedHedgeVenue

const fillOf = (execution: HedgeVenue.Execution) => {
  assert.strictEqual(execution._tag, "Filled")
  return execution._tag === "Filled" ? execution.fill : assert.fail("not filled")
}

const executionsOf = (id: string) =>
  Effect.map(
    control.use((c) => c.received(id)),
    (r) => Option.getOrThrow(r).executions
  )

const tests = (it: It) => {
  it.effect("fills at the mid plus the spread for a buy, minus it for a sell, rounded against the service", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [string, HedgeOrder.HedgeOrder["side"], string]> = [
        ["USD/BRL", "buy", "5.4041"], // 5.4 × 1.00075 = 5.40405, up
        ["USD/BRL", "sell", "5.3959"], // 5.4 × 0.99925 = 5.39595, down
        ["EUR/USD", "buy", "1.17088"], // 1.1708775, up to 5 decimals
        ["EUR/USD", "sell", "1.16912"], // 1.1691225, down
        ["USD/NGN", "buy", "1501.13"] // 1501.125, up to 2 decimals
      ]
      for (const [pair, side, rate] of cases) {
        const o = order({ pair, side })
        const fill = fillOf(yield* venue.use((v) => v.execute(o)))
        assert.deepStrictEqual(
          [Money.format(fill.rate), Money.format(fill.amount)],
          [rate, "125000.50"],
          `${pair} ${side}`
        )
        const received = Option.getOrThrow(yield* control.use((c) => c.received(o.id)))
        assert.deepStrictEqual(
          [received.outcome, Money.format(received.mid!)],
          ["filled", pair === "USD/BRL" ? "5.4" : pair === "EUR/USD" ? "1.17" : "1500"]
        )
      }
    })
  )

  it.effect("an order id executed again is executed once: the same fill, its executions counted", () =>
    Effect.gen(function* () {
      const o = order()
      const first = fillOf(yield* venue.use((v) => v.execute(o)))
      const again = fillOf(yield* venue.use((v) => v.execute({ ...o, amount: d("1") })))
      assert.deepStrictEqual(again, first)
      assert.strictEqual(yield* executionsOf(o.id), 2)
      const looked = yield* venue.use((v) => v.lookup(o.id))
      assert.deepStrictEqual(looked, { _tag: "Filled", fill: first })
      assert.deepStrictEqual(yield* venue.use((v) => v.lookup(crypto.randomUUID())), { _tag: "Unknown" })
    })
  )

  it.effect("8 concurrent executions of one new order: one record, eight executions, one fill for all", () =>
    Effect.gen(function* () {
      const o = order({ side: "sell" })
      const fills = yield* Effect.forEach(
        Array.from({ length: 8 }),
        () =>
          Effect.map(
            venue.use((v) => v.execute(o)),
            fillOf
          ),
        { concurrency: "unbounded" }
      )
      for (const fill of fills) assert.deepStrictEqual(fill, fills[0])
      assert.strictEqual(yield* executionsOf(o.id), 8)
    })
  )

  it.effect(
    "told to reject: the next new order is rejected for good; a repeat of an older one does not use it up",
    () =>
      Effect.gen(function* () {
        const older = order()
        yield* venue.use((v) => v.execute(older))
        yield* control.use((c) => c.arm("reject"))
        fillOf(yield* venue.use((v) => v.execute(older)))
        const refused = order()
        const error = yield* Effect.flip(venue.use((v) => v.execute(refused)))
        assert.deepStrictEqual([error.reason, error.message], ["rejected", SimulatedHedgeVenue.rejection])
        const again = yield* Effect.flip(venue.use((v) => v.execute(refused)))
        assert.strictEqual(again.reason, "rejected")
        assert.deepStrictEqual(yield* venue.use((v) => v.lookup(refused.id)), {
          _tag: "Rejected",
          reason: SimulatedHedgeVenue.rejection
        })
        // one rejection armed, one used
        fillOf(yield* venue.use((v) => v.execute(order())))
      })
  )

  it.effect("told to time out: the fill is recorded but the caller hears timeout; a lookup or a repeat finds it", () =>
    Effect.gen(function* () {
      yield* control.use((c) => c.arm("timeout"))
      const o = order({ pair: "EUR/USD" })
      const error = yield* Effect.flip(venue.use((v) => v.execute(o)))
      assert.strictEqual(error.reason, "timeout")
      const looked = yield* venue.use((v) => v.lookup(o.id))
      assert.strictEqual(looked._tag, "Filled")
      const received = Option.getOrThrow(yield* control.use((c) => c.received(o.id)))
      assert.deepStrictEqual([received.timedOut, received.executions], [true, 1])
      const repeat = fillOf(yield* venue.use((v) => v.execute(o)))
      assert.deepStrictEqual(looked, { _tag: "Filled", fill: repeat })
    })
  )

  it.effect("no mid for the pair: unavailable, and nothing recorded", () =>
    Effect.gen(function* () {
      const o = order({ pair: "USD/MXN" })
      const error = yield* Effect.flip(venue.use((v) => v.execute(o)))
      assert.strictEqual(error.reason, "unavailable")
      assert.isTrue(Option.isNone(yield* control.use((c) => c.received(o.id))))
      assert.deepStrictEqual(yield* venue.use((v) => v.lookup(o.id)), { _tag: "Unknown" })
    })
  )
}

const timeout = { excludeTestServices: true, timeout: Duration.seconds(60) } as const

layer(SimulatedHedgeVenue.layerMemory(options).pipe(Layer.provide(market)), timeout)("simulated venue (memory)", tests)

/** The venue in SQL on `database`, and a second instance on the same database: a restart. */
const onSql = (database: Layer.Layer<SqlClient.SqlClient, unknown>) => {
  const venueOn = () => Layer.fresh(SimulatedHedgeVenue.layerSql(options)).pipe(Layer.provide(market))
  return (name: string) =>
    layer(venueOn().pipe(Layer.provideMerge(database)), timeout)(name, (it) => {
      tests(it)
      it.effect("a new instance on the same database (a restart) knows every order and what is armed", () =>
        Effect.gen(function* () {
          const o = order()
          const fill = fillOf(yield* venue.use((v) => v.execute(o)))
          yield* control.use((c) => c.arm("reject"))
          yield* Effect.gen(function* () {
            assert.deepStrictEqual(yield* venue.use((v) => v.lookup(o.id)), { _tag: "Filled", fill })
            assert.deepStrictEqual(fillOf(yield* venue.use((v) => v.execute(o))), fill)
            assert.strictEqual((yield* Effect.flip(venue.use((v) => v.execute(order())))).reason, "rejected")
          }).pipe(
            Effect.provide(
              venueOn().pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, yield* SqlClient.SqlClient)))
            )
          )
        })
      )
    })
}

describe("simulated venue on PGlite", () => {
  onSql(EmbeddedStore.layer({ loadDataDir: PgliteTemplate.dump() }))("simulated venue (PGlite)")
})

describe.skipIf(Postgres.databaseUrl === undefined)("simulated venue on Postgres", () => {
  onSql(PgStore.layer.pipe(Layer.provideMerge(Postgres.layerFresh(Postgres.databaseUrl!))))(
    "simulated venue (Postgres)"
  )
})
