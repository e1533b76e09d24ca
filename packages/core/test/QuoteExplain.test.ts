/**
 * `QuoteExplain.explain` on a memory store: a quote priced from a stored snapshot (or the built-in one)
 * is reproduced exactly from the inputs it kept; a changed policy is reported as a difference.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryStore } from "@ratelock/adapters-store"
import {
  IdGenerator,
  MarketData,
  type MarketFreshness,
  MarketSnapshotRepo,
  Money,
  type Partner,
  QuoteExplain,
  QuotePolicy,
  Quotes
} from "@ratelock/core"
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { Digest } from "effect/crypto"
import { TestClock } from "effect/testing"
import { quoteRequest } from "./fixtures/quoteRequest.ts"
import { scaledVols } from "./fixtures/snapshots.ts"

const sandbox: Partner.PartnerScope = { partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0002", environment: "sandbox" }
const snapshotId = "33333333-3333-4333-8333-333333333333"

const setup = Effect.gen(function* () {
  yield* TestClock.setTime(Date.parse("2026-11-23T12:00:00Z"))
  const store = yield* Layer.build(Layer.mergeAll(MemoryStore.layerMemory, IdGenerator.IdGenerator.layerTest))
  const snapshots = Context.get(store, MarketSnapshotRepo.MarketSnapshotRepo)
  const latest = Effect.map(
    snapshots.latest(),
    Option.map((s): MarketFreshness.StoredSnapshot => ({ id: s.id, snapshot: s.document }))
  )
  const layer = Layer.merge(Layer.succeedContext(store), MarketData.MarketData.layerLatest({ latest }))
  const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, layer)
  return { snapshots, run }
})

describe("QuoteExplain", () => {
  it.effect("a quote from the built-in snapshot, then one from a stored snapshot: both reproduced exactly", () =>
    Effect.gen(function* () {
      const { snapshots, run } = yield* setup
      const now = yield* DateTime.now
      const first = yield* run(Quotes.create(sandbox, quoteRequest(now)))
      const builtIn = yield* run(QuoteExplain.explain(first.id))
      assert.isNull(builtIn.snapshot_id)
      assert.strictEqual(builtIn.inputs?.sigma, 0.14)
      assert.strictEqual(builtIn.repriced_premium_amount, builtIn.premium_amount)
      assert.isTrue(builtIn.reproduced)

      const record = yield* MarketSnapshotRepo.record(scaledVols(now, 2), { id: snapshotId, importedAt: now }).pipe(
        Effect.provide(Digest.layerWebCrypto)
      )
      yield* snapshots.insert(record)
      const second = yield* run(Quotes.create(sandbox, quoteRequest(now)))
      const stored = yield* run(QuoteExplain.explain(second.id))
      assert.strictEqual(stored.snapshot_id, snapshotId)
      assert.strictEqual(stored.inputs?.sigma, 0.28)
      assert.isTrue(stored.reproduced)
      assert.isTrue(Money.greaterThan(Money.unsafe(stored.premium_amount), Money.unsafe(builtIn.premium_amount)))
    })
  )

  it.effect("under another policy the repriced premium differs and says so; an unknown id is not found", () =>
    Effect.gen(function* () {
      const { run } = yield* setup
      const quote = yield* run(Quotes.create(sandbox, quoteRequest(yield* DateTime.now)))
      const otherMargin = { ...QuotePolicy.defaults, optionMargin: Money.unsafe("0.20") }
      const explained = yield* run(QuoteExplain.explain(quote.id)).pipe(
        Effect.provideService(QuotePolicy.QuotePolicy, otherMargin)
      )
      assert.isFalse(explained.reproduced)
      assert.match(explained.note ?? "", /^differs by /)
      const missing = yield* Effect.flip(run(QuoteExplain.explain("00000000-0000-4000-8000-00000000dead")))
      assert.strictEqual(missing._tag, "QuoteNotFound")
    })
  )
})
