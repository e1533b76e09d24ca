import { assert, describe, layer } from "@effect/vitest"
import { AuditRepo, CorridorLimitRepo, StoreTransaction } from "@ratelock/core"
import { Deferred, Effect, Exit, Fiber, Layer } from "effect"
import * as MemoryStore from "../src/MemoryStore.ts"
import { suite } from "./StoreContract.ts"
import * as R from "./support/records.ts"

suite("MemoryStore", MemoryStore.layerMemory)

const record = (overrides: Partial<AuditRepo.AuditRecord> = {}): AuditRepo.AuditRecord => ({
  id: R.uuid(),
  at: R.base,
  via: "cli",
  actor: `cli:${R.uuid()}@host`,
  tokenId: null,
  role: null,
  action: "limits.set",
  targetKind: "corridor",
  targetId: "sandbox:USD_TO_BRL",
  outcome: "ok",
  reason: null,
  before: null,
  after: { maxOpenNotional: "10" },
  requestId: null,
  traceId: null,
  clientAddress: null,
  ...overrides
})

const ids = (actor: string) =>
  Effect.flatMap(AuditRepo.AuditRepo, (audit) => audit.list({ actor, limit: 10 })).pipe(
    Effect.map((rows) => rows.map((r) => r.id).sort())
  )

/**
 * What only the memory store's transaction shows (the SQL ones are PostgreSQL's): its writes are
 * private until it commits, the commit replays them onto what others wrote meanwhile, and a step
 * that no longer applies fails the commit whole.
 */
describe("MemoryStore transactions", () => {
  layer(MemoryStore.layerMemory)((it) => {
    it.effect("a transaction's writes are its own until it commits; writes committed meanwhile are kept", () =>
      Effect.gen(function* () {
        const transaction = yield* StoreTransaction.StoreTransaction
        const audit = yield* AuditRepo.AuditRepo
        const actor = `cli:${R.uuid()}@host`
        const [mine, theirs] = [record({ actor }), record({ actor })]
        const written = yield* Deferred.make<void>()
        const proceed = yield* Deferred.make<void>()
        const fiber = yield* Effect.forkChild(
          transaction.run(
            Effect.gen(function* () {
              yield* audit.append(mine)
              yield* Deferred.succeed(written, undefined)
              yield* Deferred.await(proceed)
              // what was committed after it began is not seen inside (a snapshot)
              return yield* ids(actor)
            })
          )
        )
        yield* Deferred.await(written)
        assert.deepStrictEqual(yield* ids(actor), [], "not seen outside before the commit")
        yield* audit.append(theirs)
        yield* Deferred.succeed(proceed, undefined)
        assert.deepStrictEqual(yield* Fiber.join(fiber), [mine.id])
        assert.deepStrictEqual(yield* ids(actor), [mine.id, theirs.id].sort())
      })
    )

    it.effect("a replayed step that no longer applies fails the commit with StoreError, and nothing is written", () =>
      Effect.gen(function* () {
        const transaction = yield* StoreTransaction.StoreTransaction
        const audit = yield* AuditRepo.AuditRepo
        const limits = yield* CorridorLimitRepo.CorridorLimitRepo
        const actor = `cli:${R.uuid()}@host`
        const mine = record({ actor })
        const written = yield* Deferred.make<void>()
        const proceed = yield* Deferred.make<void>()
        const fiber = yield* Effect.forkChild(
          transaction.run(
            Effect.gen(function* () {
              yield* limits.set("sandbox", "USD_TO_BRL", { maxNetDelta: R.dec("5") }, R.base)
              yield* audit.append(mine)
              yield* Deferred.succeed(written, undefined)
              yield* Deferred.await(proceed)
            })
          )
        )
        yield* Deferred.await(written)
        // another writer takes the record's id first: the transaction's append no longer applies
        const rival = record({ id: mine.id })
        yield* audit.append(rival)
        yield* Deferred.succeed(proceed, undefined)
        const exit = yield* Fiber.await(fiber)
        assert.isTrue(Exit.isFailure(exit))
        const error = Exit.findErrorOption(exit)
        assert.strictEqual(error._tag === "Some" ? error.value._tag : null, "StoreError")
        assert.include(error._tag === "Some" ? error.value.message : "", "conflicts with a concurrent write")
        assert.deepStrictEqual(yield* ids(actor), [])
        assert.deepStrictEqual(yield* ids(rival.actor), [rival.id])
        assert.isNull((yield* limits.find("sandbox", "USD_TO_BRL")).maxNetDelta, "the limit was not set either")
      })
    )

    it.effect("a transaction on one store does not hold another store's writes", () =>
      Effect.gen(function* () {
        const transaction = yield* StoreTransaction.StoreTransaction
        const other = yield* Effect.provide(Effect.service(AuditRepo.AuditRepo), Layer.fresh(MemoryStore.layerMemory))
        const actor = `cli:${R.uuid()}@host`
        const elsewhere = record({ actor })
        const exit = yield* Effect.exit(
          transaction.run(Effect.andThen(other.append(elsewhere), Effect.fail("refused" as const)))
        )
        assert.isTrue(Exit.isFailure(exit))
        // written at once in the other store: the transaction is this store's alone
        assert.deepStrictEqual(
          (yield* other.list({ actor, limit: 10 })).map((r) => r.id),
          [elsewhere.id]
        )
      })
    )
  })
})
