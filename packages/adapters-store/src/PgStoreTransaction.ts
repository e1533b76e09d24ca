/**
 * `StoreTransaction` on Postgres and on the embedded PGlite: `run` is the client's
 * `withTransaction`, so every statement of every repository inside it runs on the transaction's
 * one connection (all the repositories share the one `SqlClient`, which finds the open
 * transaction in the fiber's context), and commits whole or rolls back whole. A `run` inside
 * another is a savepoint: its failure rolls back its own statements alone. `BEGIN`, `COMMIT` and
 * savepoints that fail (a serialization failure at commit among them) fail as `StoreError`s.
 */
import { StoreTransaction } from "@ratelock/core"
import { Effect, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { storeError } from "./internal/sql.ts"

export const layer: Layer.Layer<StoreTransaction.StoreTransaction, never, SqlClient.SqlClient> = Layer.effect(
  StoreTransaction.StoreTransaction,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return StoreTransaction.StoreTransaction.of({
      run: (effect) =>
        sql
          .withTransaction(effect)
          .pipe(Effect.catchIf(SqlError.isSqlError, (error) => Effect.fail(storeError("StoreTransaction.run", error))))
    })
  })
)
