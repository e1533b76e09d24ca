import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as Postgres from "../src/Postgres.ts"

const exists = (name: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_database WHERE datname = ${name}`
  ).pipe(
    Effect.map((rows) => rows[0]?.n === 1),
    Effect.provide(Postgres.client(Postgres.databaseUrl!, 1)),
    Effect.orDie
  )

describe.skipIf(Postgres.databaseUrl === undefined)("Postgres", () => {
  it.live("fresh: a new, empty database, dropped when the scope closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const db = yield* Postgres.fresh(Postgres.databaseUrl!, { prefix: "ratelock_support" }).pipe(Scope.provide(scope))
      assert.match(db.name, /^ratelock_support_[0-9a-z]+_[0-9a-z]+$/)
      assert.strictEqual(new URL(db.url).pathname, `/${db.name}`)
      assert.isTrue(yield* exists(db.name))
      const tables = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`
      ).pipe(Effect.provide(Postgres.client(db.url, 1)), Effect.orDie)
      assert.strictEqual(tables[0]?.n, 0)
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(yield* exists(db.name))
    })
  )

  it.live("every build of layerFresh gets a database of its own", () =>
    Effect.gen(function* () {
      const layer = Layer.orDie(Postgres.layerFresh(Postgres.databaseUrl!))
      const name = Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ name: string }>`SELECT current_database() AS name`
      ).pipe(
        Effect.map((rows) => rows[0]!.name),
        Effect.orDie,
        Effect.provide(layer)
      )
      const [a, b] = yield* Effect.all([name, name], { concurrency: 2 })
      assert.notStrictEqual(a, b)
    })
  )

  it.live("create: the same without Effect, dropped by drop", () =>
    Effect.gen(function* () {
      const db = yield* Effect.promise(() => Postgres.create(Postgres.databaseUrl!, { prefix: "ratelock_support" }))
      assert.isTrue(yield* exists(db.name))
      yield* Effect.promise(db.drop)
      assert.isFalse(yield* exists(db.name))
    })
  )

  it.live("layerFresh: a client on a fresh database", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ name: string }>`SELECT current_database() AS name`
      assert.match(row!.name, /^ratelock_test_/)
    }).pipe(Effect.provide(Layer.orDie(Postgres.layerFresh(Postgres.databaseUrl!))))
  )
})
