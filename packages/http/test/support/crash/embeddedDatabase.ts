/**
 * The embedded database of a server that has stopped, opened in the test process to check what
 * it holds (the data directory takes one process at a time).
 */
import { PgliteClient } from "@ratelock/adapters-store"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"

export const openEmbedded = (dataDir: string) => {
  const runtime = ManagedRuntime.make(PgliteClient.layer({ dataDir }).pipe(Layer.orDie))
  return {
    query: <Row extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<Row>, unknown>) =>
      runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie)),
    close: () => runtime.dispose()
  }
}
