/**
 * An operator's change and its audit record commit together, on every store (memory, PGlite,
 * PostgreSQL): core's `Audit.act` over the store's `StoreTransaction`. A failure injected after the
 * change's statement leaves neither the change nor an `ok` record (only the failure's own record);
 * an audit record that cannot be written takes the change back with it; an external action's
 * change (stored, then acted on) stands with its one record whatever fails after it.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import {
  Audit,
  AuditedChange,
  AuditRepo,
  CorridorLimitRepo,
  CorridorLimits,
  IdGenerator,
  Money,
  OperatorActions,
  OperatorActor,
  StoreError
} from "@ratelock/core"
import * as PgliteTemplate from "@ratelock/test-support/PgliteTemplate"
import * as Postgres from "@ratelock/test-support/Postgres"
import { Data, Effect, Layer, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import * as EmbeddedStore from "../src/EmbeddedStore.ts"
import * as MemoryStore from "../src/MemoryStore.ts"
import * as PgStore from "../src/PgStore.ts"

class Injected extends Data.TaggedError("Injected")<{ readonly message: string }> {}

const actor = OperatorActor.cli("tester", "audit-host")

const services = Layer.mergeAll(
  IdGenerator.IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto)),
  Layer.succeed(OperatorActor.OperatorActor, actor)
)

/** The corridor a test changes, each its own so the tests of one store never meet. */
const corridors = ["USD_TO_BRL", "USD_TO_EUR", "USD_TO_MXN", "EUR_TO_USD", "NGN_TO_USD"] as const

const limitOf = (direction: (typeof corridors)[number]) =>
  Effect.map(
    Effect.flatMap(CorridorLimitRepo.CorridorLimitRepo, (repo) => repo.find("production", direction)),
    (limit) => (limit.maxLockNotional === null ? null : Money.format(limit.maxLockNotional))
  )

const recordsOf = (direction: string) =>
  Effect.flatMap(AuditRepo.AuditRepo, (repo) => repo.list({ target: `production:${direction}`, limit: 100 }))

/** The store's `AuditRepo` with an `append` that always fails, as a database refusing the insert would. */
const failingAppend = Layer.effect(
  AuditRepo.AuditRepo,
  Effect.map(AuditRepo.AuditRepo, (repo) =>
    AuditRepo.AuditRepo.of({
      ...repo,
      append: () => Effect.fail(new StoreError.StoreError({ message: "injected: the audit insert failed" }))
    })
  )
)

type Repos = Layer.Success<typeof MemoryStore.layerMemory>

const cases = (store: Layer.Layer<Repos, unknown>) =>
  layer(Layer.merge(services, Layer.orDie(store)), { timeout: "60 seconds" })((it) => {
    it.effect("an action commits its change with one ok record naming its actor, before and after", () =>
      Effect.gen(function* () {
        yield* OperatorActions.setLimits("production", "USD_TO_BRL", { maxLockNotional: Money.unsafe("250000") })
        assert.strictEqual(yield* limitOf("USD_TO_BRL"), "250000")
        const records = yield* recordsOf("USD_TO_BRL")
        assert.strictEqual(records.length, 1)
        const record = records[0]!
        assert.deepInclude(record, {
          via: "cli",
          actor: "cli:tester@audit-host",
          role: null,
          action: "limits.set",
          targetKind: "corridor",
          outcome: "ok",
          reason: null
        })
        assert.strictEqual((record.before as { max_lock_notional: unknown }).max_lock_notional, null)
        assert.strictEqual((record.after as { max_lock_notional: unknown }).max_lock_notional, "250000")
      })
    )

    it.effect("a failure after the change's statement leaves neither the change nor an ok record", () =>
      Effect.gen(function* () {
        const failing = CorridorLimits.set("production", "USD_TO_EUR", { maxLockNotional: Money.unsafe("1") }).pipe(
          Effect.andThen(Effect.fail(new Injected({ message: "after the change" })))
        )
        const exit = yield* Effect.exit(
          Audit.act({ action: "limits.set", target: { kind: "corridor", id: "production:USD_TO_EUR" } }, failing)
        )
        assert.isTrue(exit._tag === "Failure")
        assert.strictEqual(yield* limitOf("USD_TO_EUR"), null)
        const records = yield* recordsOf("USD_TO_EUR")
        assert.deepStrictEqual(
          records.map((r) => [r.outcome, r.reason]),
          [["refused", "Injected: after the change"]]
        )
      })
    )

    it.effect("an audit record that cannot be written takes the change back with it", () =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(
          OperatorActions.setLimits("production", "USD_TO_MXN", { maxLockNotional: Money.unsafe("2") }).pipe(
            Effect.provide(failingAppend)
          )
        )
        assert.isTrue(exit._tag === "Failure")
        assert.strictEqual(yield* limitOf("USD_TO_MXN"), null)
        assert.deepStrictEqual(yield* recordsOf("USD_TO_MXN"), [])
      })
    )

    it.effect("an external action's committed change stands with its one record when what follows fails", () =>
      Effect.gen(function* () {
        const program = AuditedChange.commit(
          CorridorLimits.set("production", "EUR_TO_USD", { maxLockNotional: Money.unsafe("3") }),
          (set) => Option.some({ max_lock_notional: set.max_lock_notional })
        ).pipe(Effect.andThen(Effect.fail(new Injected({ message: "the broadcast failed" }))))
        const exit = yield* Effect.exit(
          Audit.act(
            { action: "limits.set", target: { kind: "corridor", id: "production:EUR_TO_USD" }, external: true },
            program
          )
        )
        assert.isTrue(exit._tag === "Failure")
        assert.strictEqual(yield* limitOf("EUR_TO_USD"), "3")
        const records = yield* recordsOf("EUR_TO_USD")
        assert.deepStrictEqual(
          records.map((r) => [r.outcome, r.after]),
          [["ok", { max_lock_notional: "3" }]]
        )
      })
    )

    it.effect("an external action whose change changed nothing is recorded as refused, once", () =>
      Effect.gen(function* () {
        const program = AuditedChange.commit(limitOf("NGN_TO_USD"), () => Option.none()).pipe(
          Effect.andThen(Effect.fail(new Injected({ message: "busy" })))
        )
        yield* Effect.exit(
          Audit.act(
            { action: "limits.set", target: { kind: "corridor", id: "production:NGN_TO_USD" }, external: true },
            program
          )
        )
        const records = yield* recordsOf("NGN_TO_USD")
        assert.deepStrictEqual(
          records.map((r) => r.outcome),
          ["refused"]
        )
      })
    )
  })

describe("audited actions on the memory store", () => {
  cases(MemoryStore.layerMemory)
})

describe("audited actions on PGlite", () => {
  cases(EmbeddedStore.layer({ loadDataDir: PgliteTemplate.dump() }))
})

describe.skipIf(Postgres.databaseUrl === undefined)("audited actions on PostgreSQL", () => {
  cases(PgStore.layer.pipe(Layer.provideMerge(Postgres.layerFresh(Postgres.databaseUrl!))))
})

it("the corridors of these tests are distinct", () => {
  assert.strictEqual(new Set(corridors).size, corridors.length)
})
