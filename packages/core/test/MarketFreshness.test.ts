/**
 * Which snapshot prices a quote (market-data.md, "Freshness and the sandbox"), as a rule and through
 * `Quotes.create` on the MarketData port backed by a "latest stored snapshot" the test imports into: production
 * refuses a missing or stale snapshot with `market_data_stale`, the sandbox falls back to the illustrative one,
 * and a new snapshot prices the next quote. A snapshot given as a value (`MarketData.layerSnapshot`, as a partner
 * embeds core) is refused once older than the max age, in every environment, unless the caller says any age.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, DateTime, Duration, Effect, Layer, Option } from "effect"
import { Digest } from "effect/crypto"
import { TestClock } from "effect/testing"
import { MemoryStore } from "@ratelock/adapters-store"
import {
  IdGenerator,
  MarketData,
  MarketFreshness,
  MarketSnapshot,
  MarketSnapshotRepo,
  Money,
  type Partner,
  QuotePolicy,
  QuotePricer,
  Quotes
} from "@ratelock/core"
import { quoteRequest } from "./fixtures/quoteRequest.ts"
import { scaledVols } from "./fixtures/snapshots.ts"

const start = Date.parse("2026-11-23T12:00:00Z") // a Monday
const production: Partner.PartnerScope = {
  partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0001",
  environment: "production"
}
const sandbox: Partner.PartnerScope = { partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0002", environment: "sandbox" }
const firstId = "11111111-1111-4111-8111-111111111111"
const secondId = "22222222-2222-4222-8222-222222222222"

const stored = (id: string, snapshot: MarketSnapshot.MarketSnapshot): MarketFreshness.StoredSnapshot => ({
  id,
  snapshot
})

describe("MarketFreshness.inForce", () => {
  const now = DateTime.makeUnsafe(start)
  const aged = (seconds: number) =>
    stored(firstId, MarketSnapshot.illustrativeAt(DateTime.makeUnsafe(start - seconds * 1000)))

  it("production: none → stale; within the max age (inclusive) → that snapshot; older → stale", () => {
    const decide = (latest: Option.Option<MarketFreshness.StoredSnapshot>, maxAge?: Duration.Duration) =>
      MarketFreshness.inForce({ latest, environment: "production", now, maxAge })
    assert.strictEqual(decide(Option.none())._tag, "Stale")
    assert.deepStrictEqual(decide(Option.some(aged(900))), MarketFreshness.inForceOf(aged(900)))
    const stale = decide(Option.some(aged(901)))
    assert.strictEqual(stale._tag, "Stale")
    assert.include(stale._tag === "Stale" ? stale.message : "", "901 s old, more than the 900 s allowed")
    assert.strictEqual(decide(Option.some(aged(901)), Duration.seconds(1800))._tag, "InForce")
    assert.strictEqual(decide(Option.some(aged(61)), Duration.seconds(60))._tag, "Stale")
    // an as_of a little ahead of the clock (skew) is fresh
    assert.strictEqual(decide(Option.some(aged(-30)))._tag, "InForce")
  })

  it("sandbox: the latest whatever its age, else the illustrative snapshot observed at now", () => {
    const decide = (latest: Option.Option<MarketFreshness.StoredSnapshot>) =>
      MarketFreshness.inForce({ latest, environment: "sandbox", now })
    assert.deepStrictEqual(decide(Option.some(aged(86_400 * 30))), MarketFreshness.inForceOf(aged(86_400 * 30)))
    const fallback = decide(Option.none())
    assert.strictEqual(fallback._tag, "InForce")
    if (fallback._tag === "InForce") {
      assert.strictEqual(fallback.snapshotId, MarketFreshness.illustrativeSnapshotId)
      assert.isTrue(DateTime.Equivalence(fallback.snapshot.as_of, now))
      assert.deepStrictEqual(fallback.snapshot, MarketSnapshot.illustrativeAt(now))
    }
  })
})

describe("quotes on the snapshot in force", () => {
  /**
   * Quotes on one memory store, market data from its latest stored snapshot (as the host serves it):
   * an import stores the snapshot, and quotes record its id.
   */
  const harness = Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const store = yield* Layer.build(Layer.mergeAll(MemoryStore.layerMemory, IdGenerator.IdGenerator.layerTest))
    const snapshots = Context.get(store, MarketSnapshotRepo.MarketSnapshotRepo)
    const latest = Effect.map(
      snapshots.latest(),
      Option.map((s): MarketFreshness.StoredSnapshot => ({ id: s.id, snapshot: s.document }))
    )
    const layer = Layer.merge(Layer.succeedContext(store), MarketData.MarketData.layerLatest({ latest }))
    /** Stores a snapshot observed at the clock's now, as an import does. */
    const importAt = (id: string, snapshot: (asOf: DateTime.Utc) => MarketSnapshot.MarketSnapshot) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const record = yield* MarketSnapshotRepo.record(snapshot(now), { id, importedAt: now })
        yield* snapshots.insert(record)
      }).pipe(Effect.provide(Digest.layerWebCrypto))
    const quote = (scope: Partner.PartnerScope) =>
      Effect.flatMap(DateTime.now, (now) => Quotes.create(scope, quoteRequest(now)).pipe(Effect.provide(layer)))
    /** What the pricer made of the request at the clock's now, with the port's snapshot in force. */
    const priced = (scope: Partner.PartnerScope) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const market = yield* MarketData.MarketData
        return QuotePricer.price({
          request: quoteRequest(now),
          market: yield* market.inForce(scope.environment),
          notionalLimits: market.notionalLimits,
          now,
          policy: QuotePolicy.defaults,
          railSupported: true
        })
      }).pipe(Effect.provide(layer))
    return { importAt, quote, priced }
  })

  it.effect(
    "production: no snapshot → market_data_stale; a fresh import → priced; past the max age → stale again",
    () =>
      Effect.gen(function* () {
        const { importAt, quote } = yield* harness
        const none = yield* quote(production)
        assert.strictEqual(none.status, "failed")
        assert.strictEqual(none.failure_reason?.code, "market_data_stale")
        assert.strictEqual(Money.format(none.total_amount), "0")
        assert.strictEqual(Money.format(none.locked_rate), "0")

        yield* importAt(firstId, MarketSnapshot.illustrativeAt)
        const fresh = yield* quote(production)
        assert.strictEqual(fresh.status, "created")
        assert.isTrue(Money.isPositive(fresh.premium_amount))

        yield* TestClock.adjust(Duration.seconds(900))
        assert.strictEqual((yield* quote(production)).status, "created") // 900 s old: still within
        yield* TestClock.adjust(Duration.seconds(1))
        const stale = yield* quote(production)
        assert.strictEqual(stale.status, "failed")
        assert.strictEqual(stale.failure_reason?.code, "market_data_stale")
        // the sandbox still prices from it, whatever its age
        assert.strictEqual((yield* quote(sandbox)).status, "created")

        yield* importAt(secondId, MarketSnapshot.illustrativeAt)
        assert.strictEqual((yield* quote(production)).status, "created")
      })
  )

  it.effect("sandbox: no snapshot → the illustrative one, recorded under its own id", () =>
    Effect.gen(function* () {
      const { quote, priced } = yield* harness
      assert.strictEqual((yield* quote(sandbox)).status, "created")
      const q = yield* priced(sandbox)
      assert.strictEqual(q.snapshotId, MarketFreshness.illustrativeSnapshotId)
      assert.strictEqual(q.inputs?.sigma, 0.14)
    })
  )

  it.effect("after a snapshot with doubled vols, a quote costs more and its inputs name that snapshot and σ", () =>
    Effect.gen(function* () {
      const { importAt, quote, priced } = yield* harness
      yield* importAt(firstId, MarketSnapshot.illustrativeAt)
      const before = yield* priced(production)
      const beforeResponse = yield* quote(production)

      yield* TestClock.adjust(Duration.seconds(60))
      yield* importAt(secondId, (asOf) => scaledVols(asOf, 2))
      const after = yield* priced(production)
      const afterResponse = yield* quote(production)

      assert.strictEqual(before.snapshotId, firstId)
      assert.strictEqual(before.inputs?.sigma, 0.14)
      assert.strictEqual(after.snapshotId, secondId)
      assert.strictEqual(after.inputs?.sigma, 0.28)
      assert.isTrue(Money.greaterThan(after.premiumAmount, before.premiumAmount))
      assert.isTrue(Money.greaterThan(afterResponse.premium_amount, beforeResponse.premium_amount))
      assert.isTrue(Money.equals(after.premiumAmount, afterResponse.premium_amount))
      // the quote priced before keeps its own: its inputs still reprice to its premium
      const again = QuotePricer.reprice({
        inputs: before.inputs!,
        quote: {
          contractType: "option",
          direction: "USD_TO_BRL",
          notionalCurrency: "USD",
          notionalAmount: Money.unsafe("10000"),
          lockedRate: before.lockedRate,
          settlementCurrency: "USDC"
        },
        policy: QuotePolicy.defaults
      })
      assert.isTrue(again._tag === "Success" && Money.equals(again.success.premiumAmount, before.premiumAmount))
    })
  )
})

describe("MarketData.layerSnapshot: a snapshot given as a value", () => {
  /** What the pricer makes of the request at the clock's now, from `layer`'s snapshot in force. */
  const priced = (layer: Layer.Layer<MarketData.MarketData>, environment: Partner.Environment) =>
    Effect.gen(function* () {
      const now = yield* DateTime.now
      const market = yield* MarketData.MarketData
      return QuotePricer.price({
        request: quoteRequest(now),
        market: yield* market.inForce(environment),
        notionalLimits: market.notionalLimits,
        now,
        policy: QuotePolicy.defaults,
        railSupported: true
      })
    }).pipe(Effect.provide(layer))

  it.effect(
    "within the max age (inclusive) it prices; older, production and sandbox alike fail market_data_stale",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(start)
        const layer = MarketData.MarketData.layerSnapshot(MarketSnapshot.illustrativeAt(DateTime.makeUnsafe(start)))
        yield* TestClock.adjust(Duration.seconds(900))
        for (const environment of ["production", "sandbox"] as const) {
          const fresh = yield* priced(layer, environment)
          assert.strictEqual(fresh.status, "created")
          assert.strictEqual(fresh.snapshotId, null)
        }
        yield* TestClock.adjust(Duration.seconds(1))
        for (const environment of ["production", "sandbox"] as const) {
          const stale = yield* priced(layer, environment)
          assert.strictEqual(stale.status, "failed")
          assert.strictEqual(stale.failureReason?.code, "market_data_stale")
          assert.include(
            stale.failureReason?.message,
            "(as_of 2026-11-23T12:00:00.000Z) is 901 s old, more than the 900 s allowed"
          )
          assert.isTrue(Money.isZero(stale.premiumAmount))
        }
      })
  )

  it.effect("its own max age; Duration.infinity prices whatever the age (history, tests)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const snapshot = MarketSnapshot.illustrativeAt(DateTime.makeUnsafe(start - 86_400_000 * 270))
      const hour = MarketData.MarketData.layerSnapshot(snapshot, { maxAge: Duration.hours(1) })
      const refused = yield* priced(hour, "sandbox")
      assert.strictEqual(refused.failureReason?.code, "market_data_stale")
      assert.include(refused.failureReason?.message, "is 23328000 s (270 days) old, more than the 3600 s allowed")
      const any = MarketData.MarketData.layerSnapshot(snapshot, { maxAge: Duration.infinity, id: firstId })
      const old = yield* priced(any, "production")
      assert.strictEqual(old.status, "created")
      assert.strictEqual(old.snapshotId, firstId)
      // the 270-day-old snapshot prices a different premium from the same one observed now: why it is refused
      const now = yield* priced(
        MarketData.MarketData.layerSnapshot(MarketSnapshot.illustrativeAt(DateTime.makeUnsafe(start))),
        "production"
      )
      assert.isFalse(Money.equals(old.premiumAmount, now.premiumAmount))
    })
  )

  it.effect("mid rates (a payout already owed) come from it whatever its age", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const snapshot = MarketSnapshot.illustrativeAt(DateTime.makeUnsafe(start - 86_400_000 * 270))
      const mid = yield* Effect.flatMap(MarketData.MarketData, (m) =>
        m.midRate("USD", "BRL", DateTime.makeUnsafe(start))
      ).pipe(Effect.provide(MarketData.MarketData.layerSnapshot(snapshot)))
      assert.isTrue(Option.isSome(mid))
    })
  )
})
