import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { databaseUrl, freshDatabase } from "./support/postgres.ts"

describe.skipIf(databaseUrl === undefined)("fresh database", () => {
  layer(freshDatabase(databaseUrl!), { excludeTestServices: true })("pg", (it) => {
    it.effect("is empty and usable", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = 'public'`
        assert.strictEqual(rows[0]?.n, 0)
      }))
  })
})
