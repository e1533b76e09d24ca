import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { Digest } from "effect/crypto"
import { TestClock } from "effect/testing"
import { MemoryStore } from "@ratelock/adapters-store"
import { Idempotency, type Partner } from "@ratelock/core"

const scope: Partner.PartnerScope = { partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0001", environment: "sandbox" }
const other: Partner.PartnerScope = { ...scope, environment: "production" }
const quote = { method: "POST", route: "/api/v1/fx/quotes", body: { a: 1, b: [1, 2] } }

// adapters-store's memory store: the idempotency keys its store contract suite verifies
const setup = () => {
  let runs = 0
  const handler = Effect.sync(() => ({ status: 201, body: `{"run":${++runs}}` }))
  return { layer: Layer.merge(MemoryStore.layerMemory, Digest.layerWebCrypto), handler, runs: () => runs }
}

describe("Idempotency.run", () => {
  it.effect("replays the first response for the same key and body (keys in any order)", () => {
    const { layer, handler, runs } = setup()
    return Effect.gen(function* () {
      const first = yield* Idempotency.run(scope, "key-00001", quote, handler)
      const again = yield* Idempotency.run(scope, "key-00001", { ...quote, body: { b: [1, 2], a: 1 } }, handler)
      assert.deepStrictEqual(first, { response: { status: 201, body: '{"run":1}' }, replayed: false })
      assert.deepStrictEqual(again, { response: { status: 201, body: '{"run":1}' }, replayed: true })
      assert.strictEqual(runs(), 1)
      // another environment is another scope
      assert.isFalse((yield* Idempotency.run(other, "key-00001", quote, handler)).replayed)
    }).pipe(Effect.provide(layer))
  })

  it.effect("refuses the same key with another body or route", () => {
    const { layer, handler } = setup()
    return Effect.gen(function* () {
      yield* Idempotency.run(scope, "key-00002", quote, handler)
      const body = yield* Effect.flip(Idempotency.run(scope, "key-00002", { ...quote, body: { a: 2 } }, handler))
      assert.strictEqual(body._tag, "IdempotencyKeyReused")
      const route = yield* Effect.flip(
        Idempotency.run(scope, "key-00002", { ...quote, route: "/api/v1/fx/contracts" }, handler)
      )
      assert.strictEqual(route._tag, "IdempotencyKeyReused")
    }).pipe(Effect.provide(layer))
  })

  it.effect("refuses the same key while the first request is in flight", () => {
    const { layer } = setup()
    return Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const slow = Deferred.succeed(started, undefined).pipe(
        Effect.andThen(Deferred.await(gate)),
        Effect.as({ status: 201, body: "{}" })
      )
      const first = yield* Effect.forkChild(Idempotency.run(scope, "key-00003", quote, slow))
      // the first request holds the key once its handler runs (the fingerprint's digest is async)
      yield* Deferred.await(started)
      const second = yield* Effect.flip(Idempotency.run(scope, "key-00003", quote, slow))
      assert.strictEqual(second._tag, "IdempotencyKeyInUse")
      yield* Deferred.succeed(gate, undefined)
      assert.isFalse((yield* Fiber.join(first)).replayed)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a failed handler releases the key; keys expire after 24 hours", () => {
    const { layer, handler, runs } = setup()
    return Effect.gen(function* () {
      yield* Effect.flip(Idempotency.run(scope, "key-00004", quote, Effect.fail("boom")))
      assert.isFalse((yield* Idempotency.run(scope, "key-00004", quote, handler)).replayed)
      yield* TestClock.adjust("24 hours")
      assert.isFalse((yield* Idempotency.run(scope, "key-00004", quote, handler)).replayed)
      assert.strictEqual(runs(), 2)
    }).pipe(Effect.provide(layer))
  })
})
