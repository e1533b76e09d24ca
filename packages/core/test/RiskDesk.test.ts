/**
 * The book as the operator runs it, over adapters-store's memory store: the workers' revaluation
 * pass and when it revalues, and the operator's report, whose net currency exposure carries the
 * hedge positions the hedger built (the simulated venue in memory) from the stored revaluation.
 */
import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, DateTime, Duration, Effect, Layer, Option } from "effect"
import { Digest } from "effect/crypto"
import { TestClock } from "effect/testing"
import { MemoryStore, SimulatedHedgeVenue } from "@ratelock/adapters-store"
import {
  ContractRepo,
  Environment,
  HedgeDesk,
  Hedging,
  IdGenerator,
  MarketData,
  MarketSnapshot,
  MarketSnapshotRepo,
  Money,
  type Partner,
  QuoteRepo,
  Revaluation,
  RiskDesk,
  type RiskReport,
  RiskRevaluationRepo
} from "@ratelock/core"
import { type LockSpec, lockAt } from "./fixtures/book.ts"
import { quoteOf } from "./fixtures/contract.ts"
import { illustrativeWith } from "./fixtures/snapshots.ts"

const d = Money.unsafe
const start = Date.parse("2026-11-23T12:00:00Z") // a Monday
const interval = Duration.seconds(30)

const world = Layer.mergeAll(
  Revaluation.bookDelta,
  SimulatedHedgeVenue.layerMemory({ spreadBps: d("10") }),
  Layer.succeed(Revaluation.Settings, { interval })
).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      MemoryStore.layerMemory,
      IdGenerator.IdGenerator.layerTest,
      MarketData.MarketData.layerDefaults,
      Digest.layerWebCrypto
    )
  )
)

/** Runs `test` in a fresh world (an empty store) at a Monday noon. */
const inWorld = <A, E>(
  test: Effect.Effect<A, E, Layer.Success<typeof world>>
): Effect.Effect<A, E | Layer.Error<typeof world>> =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    return yield* test.pipe(Effect.provide(world))
  })

/** Stores an open lock (and the quote a store needs before it takes a contract). */
const storeLock = Effect.fn(function* (spec: LockSpec) {
  const contract = { ...lockAt(yield* DateTime.now, spec), quoteId: `quote-${spec.id}` }
  yield* (yield* QuoteRepo.QuoteRepo).insert(quoteOf(contract))
  yield* (yield* ContractRepo.ContractRepo).insert(contract)
})

/** Stores `document` as an imported snapshot; answers its id. */
const storeSnapshot = Effect.fn(function* (document: MarketSnapshot.MarketSnapshot) {
  const id = yield* (yield* IdGenerator.IdGenerator).uuid
  const record = yield* MarketSnapshotRepo.record(document, { id, importedAt: yield* DateTime.now })
  yield* (yield* MarketSnapshotRepo.MarketSnapshotRepo).insert(record)
  return id
})

const storedRevaluation = (environment: Partner.Environment) =>
  Effect.map(
    RiskRevaluationRepo.RiskRevaluationRepo.use((repo) => repo.latest(environment)),
    (stored) => Option.getOrThrow(stored)
  )

/** Hedging passes a second apart, as the workers run them, until one moves nothing. */
const hedgeUntilQuiet = Effect.gen(function* () {
  for (let passes = 0; passes < 20; passes++) {
    if ((yield* Hedging.pass()) === 0) return passes
    yield* TestClock.adjust(Duration.seconds(1))
  }
  return assert.fail("the hedger never went quiet")
})

const currency = (currencies: ReadonlyArray<RiskReport.CurrencyExposure>, name: string) =>
  currencies.find((c) => c.currency === name)!
const pairOf = <P extends { readonly pair: string }>(report: { readonly pairs: ReadonlyArray<P> }, pair: string) =>
  report.pairs.find((p) => p.pair === pair)!
const cents = (x: Money.Decimal) => BigDecimal.round(x, { scale: 2, mode: "half-from-zero" })
const fmt = Money.format
const eq = (actual: Money.Decimal, expected: Money.Decimal, what: string) =>
  assert.isTrue(Money.equals(actual, expected), `${what}: ${fmt(actual)}, expected ${fmt(expected)}`)

describe("RiskDesk.report", () => {
  it.effect("adds each pair's hedge position to its BASE's net exposure and its countervalue to its QUOTE's", () =>
    inWorld(
      Effect.gen(function* () {
        // production: short puts on USD against BRL, hedged whole; sandbox: on EUR against USD, half
        yield* storeLock({
          id: "usd-brl",
          direction: "USD_TO_BRL",
          notional: "1000000",
          strike: "5.35",
          from: 0,
          to: 30
        })
        yield* storeLock({
          id: "eur-usd",
          direction: "EUR_TO_USD",
          notional: "500000",
          strike: "1.16",
          from: 0,
          to: 60,
          environment: "sandbox"
        })
        yield* HedgeDesk.setPolicy({ environment: "production", pair: "USD/BRL", band: d("1000"), instrument: "spot" })
        yield* HedgeDesk.setPolicy({
          environment: "sandbox",
          pair: "EUR/USD",
          targetRatio: d("0.5"),
          band: d("1000"),
          instrument: "forward",
          valueDays: 30
        })
        yield* Revaluation.revalue()
        assert.isAbove(yield* hedgeUntilQuiet, 0)

        // the operator's report reads the revaluation the hedger hedged; the stored one knows no hedge
        const production = yield* RiskDesk.report("production")
        const book = (yield* storedRevaluation("production")).report
        const usdBrl = pairOf(production, "USD/BRL")
        const position = usdBrl.hedge.position
        assert.isTrue(Money.isPositive(usdBrl.delta), "short puts on USD: long USD delta")
        assert.isTrue(Money.isNegative(position), "the hedge sells USD")
        const usd = currency(production.currencies, "USD")
        const brl = currency(production.currencies, "BRL")
        eq(currency(book.currencies, "USD").net_exposure, usdBrl.delta, "the book alone: USD is the delta")
        // USD: the delta plus the position, to the cent; hedged whole, within the band of zero
        eq(usd.net_exposure, Money.sum(usdBrl.delta, position), "USD net exposure")
        assert.isFalse(Money.greaterThan(BigDecimal.abs(usd.net_exposure), d("1000")), fmt(usd.net_exposure))
        eq(usd.net_exposure_usd, usd.net_exposure, "USD in USD")
        // BRL: the book's, less the BRL the sold USD is worth at the spot the delta was valued at (5.4)
        eq(usdBrl.spot, d("5.4"), "the illustrative spot")
        const bookBrl = currency(book.currencies, "BRL")
        eq(
          brl.net_exposure,
          Money.sum(bookBrl.net_exposure, cents(Money.multiply(position, d("-5.4")))),
          "BRL net exposure"
        )
        assert.isFalse(Money.greaterThan(BigDecimal.abs(brl.net_exposure), d("5400.01")), fmt(brl.net_exposure))
        // at the snapshot's mid (1 / 5.4 USD per BRL) those BRL are worth exactly the USD sold
        eq(brl.net_exposure_usd, Money.subtract(bookBrl.net_exposure_usd, position), "BRL in USD")
        // currencies no position touches keep the book's figures
        for (const name of ["EUR", "MXN", "NGN"]) {
          assert.deepStrictEqual(currency(production.currencies, name), currency(book.currencies, name), name)
        }

        const sandbox = yield* RiskDesk.report("sandbox")
        const sandboxBook = (yield* storedRevaluation("sandbox")).report
        const eurUsd = pairOf(sandbox, "EUR/USD")
        const eurPosition = eurUsd.hedge.position
        assert.isTrue(Money.isNegative(eurPosition), "the hedge sells EUR")
        // half hedged: the position is about −delta / 2 (within the band)
        const half = Money.multiply(eurUsd.delta, d("0.5"))
        assert.isFalse(Money.greaterThan(BigDecimal.abs(Money.sum(half, eurPosition)), d("1000")), fmt(eurPosition))
        const eur = currency(sandbox.currencies, "EUR")
        eq(eur.net_exposure, Money.sum(eurUsd.delta, eurPosition), "EUR net exposure")
        eq(
          eur.net_exposure_usd,
          Money.sum(
            currency(sandboxBook.currencies, "EUR").net_exposure_usd,
            cents(Money.multiply(eurPosition, d("1.17")))
          ),
          "EUR in USD at the mid, 1.17"
        )
        // USD is EUR/USD's QUOTE: the USD the EUR were sold for, at 1.17
        const sandboxUsd = currency(sandbox.currencies, "USD")
        const received = cents(Money.multiply(eurPosition, d("-1.17")))
        eq(
          sandboxUsd.net_exposure,
          Money.sum(currency(sandboxBook.currencies, "USD").net_exposure, received),
          "sandbox USD net exposure"
        )
        eq(sandboxUsd.net_exposure_usd, sandboxUsd.net_exposure, "USD in USD")
      })
    )
  )
})

describe("Revaluation.revaluationPass", () => {
  it.effect("does nothing within the interval, and revalues at once after a new snapshot, with its id", () =>
    inWorld(
      Effect.gen(function* () {
        const revaluedAt = (environment: Partner.Environment) =>
          Effect.map(storedRevaluation(environment), (r) => r.computedAt.epochMilliseconds)
        const first = yield* storeSnapshot(MarketSnapshot.illustrativeAt(yield* DateTime.now))
        // none stored: both environments revalued, from the latest snapshot
        assert.strictEqual(yield* Revaluation.revaluationPass(), 2)
        for (const environment of Environment.productionFirst) {
          assert.strictEqual((yield* storedRevaluation(environment)).snapshotId, first)
        }
        const firstAt = yield* revaluedAt("production")

        // within the interval, on the same snapshot: nothing
        yield* TestClock.adjust(Duration.seconds(10))
        assert.strictEqual(yield* Revaluation.revaluationPass(), 0)
        assert.strictEqual(yield* revaluedAt("production"), firstAt)

        // a new snapshot (USD/BRL at 5.6), still within the interval: revalued at once, from it
        const secondDocument = illustrativeWith(yield* DateTime.now, (document) => {
          document.spot["USD/BRL"] = "5.6"
        })
        const second = yield* storeSnapshot(secondDocument)
        assert.notStrictEqual(second, first)
        assert.strictEqual(yield* Revaluation.revaluationPass(), 2)
        for (const environment of Environment.productionFirst) {
          const stored = yield* storedRevaluation(environment)
          assert.strictEqual(stored.snapshotId, second, environment)
          assert.strictEqual(stored.report.snapshot_id, second, environment)
          assert.strictEqual(stored.computedAt.epochMilliseconds, firstAt + 10_000, environment)
          assert.strictEqual(fmt(pairOf(stored.report, "USD/BRL").spot), "5.6")
        }

        // and again nothing until the interval has passed since then
        yield* TestClock.adjust(Duration.seconds(29))
        assert.strictEqual(yield* Revaluation.revaluationPass(), 0)
        yield* TestClock.adjust(Duration.seconds(1))
        assert.strictEqual(yield* Revaluation.revaluationPass(), 2)
        assert.strictEqual((yield* storedRevaluation("sandbox")).snapshotId, second)
      })
    )
  )
})
