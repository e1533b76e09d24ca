/**
 * The hedging pass over adapters-store's memory store (the one its contract suite verifies:
 * leased claims, compare-and-set updates, one outstanding order per pair) and its memory simulated
 * venue, or the manual venue. The book's delta is the input: a `BookDelta` over a value each test
 * sets. What a test checks it reads through the ports, and the venue's own books (how many times
 * an order was executed).
 */
import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, DateTime, Duration, Effect, Layer, Option, Ref, Tracer } from "effect"
import { TestClock } from "effect/testing"
import { MemoryStore, SimulatedHedgeVenue } from "@ratelock/adapters-store"
import {
  BookDelta,
  HedgeDesk,
  type HedgeOrder,
  HedgeVenue,
  HedgeOrderRepo,
  HedgePolicyRepo,
  Hedging,
  IdGenerator,
  Lease,
  Ledger,
  ManualHedgeVenue,
  MarketData,
  Money,
  type Partner
} from "@ratelock/core"

const d = Money.unsafe
const start = Date.parse("2026-11-23T12:00:00Z") // a Monday

/** The book's delta per environment, as a test sets it. */
type Book = Ref.Ref<Partial<Record<Partner.Environment, ReadonlyArray<BookDelta.PairDelta>>>>

const bookLayer = (book: Book) =>
  Layer.succeed(BookDelta.BookDelta, {
    deltas: (environment) => Effect.map(Ref.get(book), (all) => all[environment] ?? [])
  })

/** The memory store, ids, the illustrative market (USD/BRL 5.4, EUR/USD 1.17) and the book: no venue. */
const noVenue = (book: Book) =>
  Layer.mergeAll(
    MemoryStore.layerMemory,
    IdGenerator.IdGenerator.layerTest,
    MarketData.MarketData.layerDefaults,
    bookLayer(book)
  )

/** With the simulated venue in memory, 10 bps around the mid. */
const simulated = (book: Book) =>
  SimulatedHedgeVenue.layerMemory({ spreadBps: d("10") }).pipe(Layer.provideMerge(noVenue(book)))

/** With the manual venue. */
const manual = (book: Book) => ManualHedgeVenue.layer.pipe(Layer.provideMerge(noVenue(book)))

/** Runs `test` in a fresh world at a Monday noon, the book empty until it sets it. */
const inWorld = <ROut, A, E>(
  world: (book: Book) => Layer.Layer<ROut>,
  test: (book: Book) => Effect.Effect<A, E, ROut>
) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const book: Book = yield* Ref.make({})
    return yield* test(book).pipe(Effect.provide(world(book)))
  })

/** Why a desk program refused. */
const reasonOf = (error: HedgeDesk.Failure) => (error._tag === "HedgeDeskError" ? error.reason : error._tag)

const setDelta = (book: Book, pair: string, delta: string, environment: Partner.Environment = "production") =>
  Effect.flatMap(DateTime.now, (asOf) =>
    Ref.update(book, (all) => ({
      ...all,
      [environment]: [
        ...(all[environment] ?? []).filter((p) => p.pair !== pair),
        { pair, delta: d(delta), snapshotId: null, asOf }
      ]
    }))
  )

const policy = (pair: string, band: string, overrides: Partial<HedgeDesk.PolicyInput> = {}) =>
  HedgeDesk.setPolicy({ environment: "production", pair, band: d(band), instrument: "spot", ...overrides })

/** Passes until one moves nothing (a second apart, as the workers run it); how many moved something. */
const runUntilQuiet = Effect.gen(function* () {
  for (let passes = 0; passes < 20; passes++) {
    if ((yield* Hedging.pass()) === 0) return passes
    yield* TestClock.adjust(Duration.seconds(1))
  }
  return assert.fail("the hedger never went quiet")
})

const ordersOf = (pair: string) =>
  HedgeOrderRepo.HedgeOrderRepo.use((repo) => repo.list({ pair, limit: 1000 })).pipe(
    Effect.map((orders) => [...orders].reverse())
  )

const positionOf = (pair: string, environment: Partner.Environment = "production") =>
  HedgeOrderRepo.HedgeOrderRepo.use((repo) => repo.position(environment, pair))

const executions = (orderId: string) =>
  SimulatedHedgeVenue.SimulatedHedgeVenue.use((venue) => venue.received(orderId)).pipe(
    Effect.map((r) => Option.match(r, { onNone: () => 0, onSome: (x) => x.executions }))
  )

const arm = (action: SimulatedHedgeVenue.Action) => SimulatedHedgeVenue.SimulatedHedgeVenue.use((v) => v.arm(action))

const abs = BigDecimal.abs
const fmt = Money.format

describe("Hedging.pass", () => {
  it.effect("after a series of deltas every pair's residual is within its band, and the ledger balances", () =>
    inWorld(simulated, (book) =>
      Effect.gen(function* () {
        const bands: Record<string, string> = { "USD/BRL": "50000", "EUR/USD": "20000" }
        yield* policy("USD/BRL", bands["USD/BRL"]!)
        yield* policy("EUR/USD", bands["EUR/USD"]!, { instrument: "forward", valueDays: 30 })
        const series: ReadonlyArray<readonly [string, string]> = [
          ["120000", "15000"],
          ["160000.37", "15000"],
          ["175000", "-42000.5"],
          ["90000", "-42000.5"],
          ["-30000", "61000"],
          ["-30000.01", "0"],
          ["2500000.5", "-1250000"],
          ["0", "0"]
        ]
        for (const [usdBrl, eurUsd] of series) {
          yield* setDelta(book, "USD/BRL", usdBrl)
          yield* setDelta(book, "EUR/USD", eurUsd)
          yield* runUntilQuiet
          for (const [pair, delta] of [
            ["USD/BRL", usdBrl],
            ["EUR/USD", eurUsd]
          ] as const) {
            const position = yield* positionOf(pair)
            const residual = Money.sum(d(delta), position)
            assert.isFalse(
              Money.greaterThan(abs(residual), d(bands[pair]!)),
              `${pair}: delta ${delta}, position ${fmt(position)}`
            )
          }
        }
        for (const pair of ["USD/BRL", "EUR/USD"]) {
          const orders = yield* ordersOf(pair)
          assert.isAbove(orders.length, 2)
          assert.isTrue(orders.every((o) => o.status === "filled"))
          // each order was sent once; the position is the signed sum of the fills
          for (const o of orders) assert.strictEqual(yield* executions(o.id), 1)
          const fills = orders.reduce(
            (sum, o) => Money.sum(sum, o.side === "buy" ? o.fillAmount! : Money.subtract(Money.zero, o.fillAmount!)),
            Money.zero
          )
          assert.isTrue(Money.equals(fills, yield* positionOf(pair)))
          const entries = (yield* Effect.forEach(orders, (o) =>
            HedgeOrderRepo.HedgeOrderRepo.use((repo) => repo.ledgerEntries(o.id))
          )).flat()
          assert.strictEqual(entries.length, orders.length * 4)
          for (const [currency, total] of Ledger.balances(entries)) assert.isTrue(Money.isZero(total), currency)
          // the BASE currency held on the hedge account is the position
          const base = pair.slice(0, 3)
          const held = entries
            .filter((e) => e.account === "hedge_position" && e.currency === base)
            .reduce((sum, e) => Money.sum(sum, e.amount), Money.zero)
          assert.isTrue(Money.equals(held, yield* positionOf(pair)))
        }
        const forwards = yield* ordersOf("EUR/USD")
        assert.isTrue(forwards.every((o) => o.instrument === "forward"))
      })
    )
  )

  it.effect("a fill books BASE bought against QUOTE paid at the spread rate; a sell the reverse", () =>
    inWorld(simulated, (book) =>
      Effect.gen(function* () {
        yield* policy("USD/BRL", "1000")
        // the book is short puts on USD: sell USD
        yield* setDelta(book, "USD/BRL", "100000")
        assert.strictEqual(yield* Hedging.pass(), 1)
        const [sell] = yield* ordersOf("USD/BRL")
        assert.deepStrictEqual(
          [sell!.status, sell!.side, fmt(sell!.amount), fmt(sell!.fillRate!), sell!.valueDate],
          ["filled", "sell", "100000.00", "5.3946", "2026-11-25"]
        )
        assert.deepStrictEqual(
          (yield* HedgeOrderRepo.HedgeOrderRepo.use((r) => r.ledgerEntries(sell!.id))).map((e) => [
            e.account,
            e.currency,
            fmt(e.amount)
          ]),
          [
            ["hedge_position", "USD", "-100000.00"],
            ["hedge_venue", "USD", "100000.00"],
            ["hedge_venue", "BRL", "-539460.000000"],
            ["hedge_position", "BRL", "539460.000000"]
          ]
        )
        // the book shrinks: buy back at mid plus the spread
        yield* setDelta(book, "USD/BRL", "40000")
        yield* TestClock.adjust(Duration.seconds(1))
        assert.strictEqual(yield* Hedging.pass(), 1)
        const buy = (yield* ordersOf("USD/BRL"))[1]!
        assert.deepStrictEqual([buy.side, fmt(buy.amount), fmt(buy.fillRate!)], ["buy", "60000.00", "5.4054"])
        assert.strictEqual(fmt(yield* positionOf("USD/BRL")), "-40000.00")
      })
    )
  )

  it.effect("a pair inside its band places nothing, and an environment's delta never hedges the other's", () =>
    inWorld(simulated, (book) =>
      Effect.gen(function* () {
        yield* policy("USD/BRL", "50000")
        yield* setDelta(book, "USD/BRL", "49999.99")
        yield* setDelta(book, "USD/BRL", "900000", "sandbox")
        assert.strictEqual(yield* runUntilQuiet, 0)
        assert.deepStrictEqual(yield* ordersOf("USD/BRL"), [])
        // a pair with no delta in the revaluation is left alone, whatever its position
        yield* Ref.set(book, {})
        assert.strictEqual(yield* Hedging.pass(), 0)
      })
    )
  )

  it.effect("traced: a span per pair under the pass's, naming the pair and the order it placed or resolved", () =>
    inWorld(simulated, (book) =>
      Effect.gen(function* () {
        const made: Array<Tracer.NativeSpan> = []
        const tracer = Tracer.make({
          span: (options) => {
            const span = new Tracer.NativeSpan(options)
            made.push(span)
            return span
          }
        })
        yield* policy("USD/BRL", "50000")
        yield* policy("EUR/USD", "20000")
        yield* setDelta(book, "USD/BRL", "120000")
        yield* setDelta(book, "EUR/USD", "100")
        assert.strictEqual(yield* Effect.provideService(Hedging.pass(), Tracer.Tracer, tracer), 1)
        const pass = made.find((s) => s.name === "Hedging.pass")!
        const pairs = made.filter((s) => s.name === "Hedging.pair")
        assert.deepStrictEqual(
          pairs.map((s) => [s.attributes.get("ratelock.pair"), s.attributes.get("ratelock.environment")]).sort(),
          [
            ["EUR/USD", "production"],
            ["USD/BRL", "production"]
          ]
        )
        for (const span of pairs) assert.strictEqual(Option.getOrThrow(span.parent).spanId, pass.spanId)
        const [placed] = yield* ordersOf("USD/BRL")
        const usdBrl = pairs.find((s) => s.attributes.get("ratelock.pair") === "USD/BRL")!
        assert.strictEqual(usdBrl.attributes.get("ratelock.hedge_order_id"), placed!.id)
        // inside its band: a job with nothing placed
        const eurUsd = pairs.find((s) => s.attributes.get("ratelock.pair") === "EUR/USD")!
        assert.isUndefined(eurUsd.attributes.get("ratelock.hedge_order_id"))
      })
    )
  )

  it.effect("a rejected order is decided anew next pass, under a new id; the rejected one is never sent again", () =>
    inWorld(simulated, (book) =>
      Effect.gen(function* () {
        yield* policy("USD/BRL", "50000")
        yield* setDelta(book, "USD/BRL", "200000")
        yield* arm("reject")
        assert.strictEqual(yield* Hedging.pass(), 1)
        const [rejected] = yield* ordersOf("USD/BRL")
        assert.deepStrictEqual(
          [rejected!.status, rejected!.rejectionReason],
          ["rejected", SimulatedHedgeVenue.rejection]
        )
        assert.strictEqual(fmt(yield* positionOf("USD/BRL")), "0")

        yield* setDelta(book, "USD/BRL", "210000")
        yield* TestClock.adjust(Duration.seconds(1))
        assert.strictEqual(yield* Hedging.pass(), 1)
        const [first, retried] = yield* ordersOf("USD/BRL")
        assert.strictEqual(first!.id, rejected!.id)
        assert.notStrictEqual(retried!.id, rejected!.id)
        // a new decision: from the delta as it is now
        assert.deepStrictEqual(
          [retried!.status, fmt(retried!.amount), fmt(retried!.delta)],
          ["filled", "210000.00", "210000"]
        )
        assert.strictEqual(yield* executions(rejected!.id), 1)
        assert.strictEqual(yield* executions(retried!.id), 1)
        yield* TestClock.adjust(Duration.seconds(1))
        assert.strictEqual(yield* runUntilQuiet, 0)
        assert.strictEqual((yield* ordersOf("USD/BRL")).length, 2)
      })
    )
  )

  it.effect("a timeout leaves the order sent; the next pass finds the fill by lookup, without executing again", () =>
    inWorld(simulated, (book) =>
      Effect.gen(function* () {
        yield* policy("USD/BRL", "50000")
        yield* setDelta(book, "USD/BRL", "-300000")
        yield* arm("timeout")
        yield* Hedging.pass()
        const [order] = yield* ordersOf("USD/BRL")
        assert.strictEqual(order!.status, "sent")
        // the venue filled it: only the answer was lost
        const received = Option.getOrThrow(
          yield* SimulatedHedgeVenue.SimulatedHedgeVenue.use((v) => v.received(order!.id))
        )
        assert.deepStrictEqual([received.outcome, received.timedOut], ["filled", true])
        assert.strictEqual(fmt(yield* positionOf("USD/BRL")), "0")
        // a bigger delta meanwhile: still no new decision while the order is outstanding
        yield* setDelta(book, "USD/BRL", "-400000")
        yield* TestClock.adjust(Duration.seconds(1))
        assert.strictEqual(yield* Hedging.pass(), 1)
        const resolved = (yield* ordersOf("USD/BRL"))[0]!
        assert.deepStrictEqual([resolved.status, fmt(resolved.fillAmount!)], ["filled", "300000.00"])
        assert.strictEqual(yield* executions(order!.id), 1)
        assert.strictEqual((yield* ordersOf("USD/BRL")).length, 1)
        // the next pass hedges the rest
        yield* TestClock.adjust(Duration.seconds(1))
        yield* runUntilQuiet
        assert.strictEqual(fmt(yield* positionOf("USD/BRL")), "400000.00")
      })
    )
  )

  it.effect("a crash between storing an order and sending it: the next worker looks it up and executes it once", () =>
    inWorld(simulated, (book) =>
      Effect.gen(function* () {
        yield* policy("USD/BRL", "50000")
        yield* setDelta(book, "USD/BRL", "150000")
        // what a worker that died right after storing its decision left behind: the pair leased to
        // it and an intended order
        const claim = { ...(yield* Lease.claim), owner: "crashed-worker" }
        const [claimed] = yield* HedgePolicyRepo.HedgePolicyRepo.use((r) => r.claim(claim))
        const now = yield* DateTime.now
        const intended: HedgeOrder.HedgeOrder = {
          id: "0190f7a4-0000-7000-8000-00000000c0de",
          environment: "production",
          pair: "USD/BRL",
          side: "sell",
          amount: d("150000.00"),
          instrument: "spot",
          valueDate: "2026-11-25",
          status: "intended",
          delta: d("150000"),
          position: Money.zero,
          target: d("-150000"),
          targetRatio: d("1"),
          band: d("50000"),
          deltaSnapshotId: null,
          deltaAsOf: now,
          venue: SimulatedHedgeVenue.name,
          fillRate: null,
          fillAmount: null,
          filledAt: null,
          rejectionReason: null,
          createdAt: now,
          updatedAt: now
        }
        assert.isTrue(yield* HedgeOrderRepo.HedgeOrderRepo.use((r) => r.insertIntended(intended, claimed!.lease)))
        // the lease keeps other workers off the pair until it ends
        assert.strictEqual(yield* Hedging.pass(), 0)
        assert.strictEqual(yield* executions(intended.id), 0)
        yield* TestClock.adjust(Duration.minutes(1))
        assert.strictEqual(yield* Hedging.pass(), 1)
        const [order] = yield* ordersOf("USD/BRL")
        assert.deepStrictEqual([order!.id, order!.status], [intended.id, "filled"])
        assert.strictEqual(yield* executions(intended.id), 1)
        yield* TestClock.adjust(Duration.seconds(1))
        assert.strictEqual(yield* runUntilQuiet, 0)
        assert.strictEqual((yield* ordersOf("USD/BRL")).length, 1)
      })
    )
  )

  it.effect("a crash after marking it sent, before the venue got it: executed once, under the same id", () =>
    inWorld(simulated, (book) =>
      Effect.gen(function* () {
        yield* policy("USD/BRL", "50000")
        yield* setDelta(book, "USD/BRL", "150000")
        // the process dies inside the venue call, before the venue received anything
        const dying = Layer.effect(
          HedgeVenue.HedgeVenue,
          Effect.map(HedgeVenue.HedgeVenue, (venue) => ({ ...venue, execute: () => Effect.die("killed") }))
        )
        const died = yield* Effect.exit(Hedging.pass().pipe(Effect.provide(dying)))
        assert.isTrue(died._tag === "Failure")
        const [order] = yield* ordersOf("USD/BRL")
        assert.strictEqual(order!.status, "sent")
        assert.strictEqual(yield* executions(order!.id), 0)
        yield* TestClock.adjust(Duration.minutes(1))
        assert.strictEqual(yield* Hedging.pass(), 1)
        const [filled] = yield* ordersOf("USD/BRL")
        assert.deepStrictEqual([filled!.id, filled!.status], [order!.id, "filled"])
        assert.strictEqual(yield* executions(order!.id), 1)
        assert.strictEqual((yield* ordersOf("USD/BRL")).length, 1)
      })
    )
  )

  it.effect("two workers passing at once: one decides for the pair, the other finds it leased", () =>
    inWorld(simulated, (book) =>
      Effect.gen(function* () {
        yield* policy("USD/BRL", "50000")
        yield* policy("EUR/USD", "50000")
        yield* setDelta(book, "USD/BRL", "500000")
        yield* setDelta(book, "EUR/USD", "-500000")
        const as = (owner: string) => Hedging.pass().pipe(Effect.provideService(Lease.Worker, { ...worker, owner }))
        const moved = yield* Effect.all([as("a"), as("b"), as("c")], { concurrency: "unbounded" })
        assert.strictEqual(
          moved.reduce((x, y) => x + y, 0),
          2
        )
        assert.strictEqual((yield* ordersOf("USD/BRL")).length, 1)
        assert.strictEqual((yield* ordersOf("EUR/USD")).length, 1)
        assert.strictEqual(fmt(yield* positionOf("USD/BRL")), "-500000.00")
      })
    )
  )

  it.effect("manual venue: the order waits for a trader; a partial fill and a rejection are decided on anew", () =>
    inWorld(manual, (book) =>
      Effect.gen(function* () {
        yield* policy("USD/BRL", "50000")
        yield* setDelta(book, "USD/BRL", "300000")
        assert.strictEqual(yield* Hedging.pass(), 1)
        const [order] = yield* ordersOf("USD/BRL")
        assert.deepStrictEqual([order!.status, order!.venue, fmt(order!.amount)], ["sent", "manual", "300000.00"])
        // waiting: no new decision, whatever the delta does
        yield* setDelta(book, "USD/BRL", "400000")
        yield* TestClock.adjust(Duration.seconds(1))
        assert.strictEqual(yield* runUntilQuiet, 0)
        assert.deepStrictEqual(
          (yield* HedgeDesk.orders({ status: "pending", limit: 10 })).map((o) => o.id),
          [order!.id]
        )

        const filled = yield* HedgeDesk.fill(order!.id, d("5.4012"), d("250000"))
        assert.deepStrictEqual(
          [filled.status, fmt(filled.fillAmount!), fmt(filled.fillRate!)],
          ["filled", "250000", "5.4012"]
        )
        assert.strictEqual(fmt(yield* positionOf("USD/BRL")), "-250000")
        const entries = yield* HedgeOrderRepo.HedgeOrderRepo.use((r) => r.ledgerEntries(order!.id))
        assert.deepStrictEqual(
          entries.map((e) => [e.account, e.currency, fmt(e.amount)]),
          [
            ["hedge_position", "USD", "-250000"],
            ["hedge_venue", "USD", "250000"],
            ["hedge_venue", "BRL", "-1350300.0000"],
            ["hedge_position", "BRL", "1350300.0000"]
          ]
        )
        const again = yield* Effect.flip(HedgeDesk.fill(order!.id, d("5.4")))
        assert.strictEqual(reasonOf(again), "order_not_open")

        // the rest (400,000 − 250,000) is a new decision, which the trader rejects
        yield* TestClock.adjust(Duration.seconds(1))
        assert.strictEqual(yield* Hedging.pass(), 1)
        const rest = (yield* ordersOf("USD/BRL"))[1]!
        assert.deepStrictEqual([rest.side, fmt(rest.amount), rest.status], ["sell", "150000.00", "sent"])
        const tooMuch = yield* Effect.flip(HedgeDesk.fill(rest.id, d("5.4"), d("150000.01")))
        assert.strictEqual(reasonOf(tooMuch), "invalid_fill")
        const rejected = yield* HedgeDesk.reject(rest.id, "no liquidity at this size")
        assert.deepStrictEqual([rejected.status, rejected.rejectionReason], ["rejected", "no liquidity at this size"])
        yield* TestClock.adjust(Duration.seconds(1))
        assert.strictEqual(yield* Hedging.pass(), 1)
        const retried = (yield* ordersOf("USD/BRL"))[2]!
        assert.notStrictEqual(retried.id, rest.id)
        assert.deepStrictEqual([fmt(retried.amount), retried.status], ["150000.00", "sent"])
        const unknown = yield* Effect.flip(HedgeDesk.reject("00000000-0000-4000-8000-00000000dead", "x"))
        assert.strictEqual(reasonOf(unknown), "order_not_found")
      })
    )
  )

  it.effect("with no venue (RATELOCK_HEDGING=off) the pass does nothing", () =>
    inWorld(noVenue, (book) =>
      Effect.gen(function* () {
        yield* policy("USD/BRL", "50000")
        yield* setDelta(book, "USD/BRL", "900000")
        assert.strictEqual(yield* Hedging.pass(), 0)
        assert.deepStrictEqual(yield* ordersOf("USD/BRL"), [])
      })
    )
  )

  it.effect(
    "a simulated order is not the trader's to fill; left there when the host went manual, the operator records its outcome",
    () =>
      inWorld(simulated, (book) =>
        Effect.gen(function* () {
          yield* policy("USD/BRL", "50000")
          yield* setDelta(book, "USD/BRL", "900000")
          yield* arm("timeout")
          yield* Hedging.pass()
          const [left] = yield* ordersOf("USD/BRL")
          assert.strictEqual(left!.status, "sent")
          const refused = yield* Effect.flip(HedgeDesk.fill(left!.id, d("5.4")))
          assert.strictEqual(reasonOf(refused), "not_manual")
          // the host now hedges on the manual venue: no pass resolves the simulated order, none decides past it
          const manualPass = Hedging.pass().pipe(Effect.provide(ManualHedgeVenue.layer))
          yield* TestClock.adjust(Duration.seconds(1))
          assert.strictEqual(yield* manualPass, 0)
          assert.deepStrictEqual(
            (yield* ordersOf("USD/BRL")).map((o) => o.id),
            [left!.id]
          )
          // confirmed at the simulated venue (it executed it, once), the operator records its fill there
          const venueBooks = yield* SimulatedHedgeVenue.SimulatedHedgeVenue.use((venue) => venue.received(left!.id))
          const { fill, executions: executed } = Option.getOrThrow(venueBooks)
          assert.strictEqual(executed, 1)
          const filled = yield* HedgeDesk.fill(left!.id, fill!.rate, fill!.amount, { overrideVenue: true })
          assert.deepInclude(filled, { status: "filled", venue: "simulated" })
          assert.strictEqual(fmt(yield* positionOf("USD/BRL")), fmt(BigDecimal.negate(fill!.amount)))
          // and the next pass decides anew from the position, on the manual venue (inside its band: nothing)
          yield* TestClock.adjust(Duration.seconds(1))
          assert.strictEqual(yield* manualPass, 0)
          yield* setDelta(book, "USD/BRL", "1200000")
          yield* TestClock.adjust(Duration.seconds(1))
          assert.strictEqual(yield* manualPass, 1)
          const [, next] = yield* ordersOf("USD/BRL")
          assert.deepInclude(next, { venue: "manual", status: "sent" })
        })
      )
  )
})

const worker: Lease.WorkerShape = {
  owner: "worker",
  leaseFor: Duration.minutes(1),
  batch: 100,
  concurrency: Lease.defaultConcurrency
}
