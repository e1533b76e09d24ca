/**
 * The embedded database of a server that has stopped, opened in the test process to check what
 * it holds (the data directory takes one process at a time), and the lifecycle guarantees the
 * embedded crash tests check on it.
 */
import { PgliteClient } from "@ratelock/adapters-store"
import type { Receiver } from "@ratelock/test-support/WebhookReceiver"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { assert } from "vitest"
import type { Readable } from "../cluster/database.ts"
import { check } from "../cluster/guarantees.ts"
import type { Lifecycle } from "./patientPartner.ts"

export const openEmbedded = (dataDir: string) => {
  const runtime = ManagedRuntime.make(PgliteClient.layer({ dataDir }).pipe(Layer.orDie))
  return {
    query: <Row extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<Row>, unknown>) =>
      runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie)),
    close: () => runtime.dispose()
  }
}

/**
 * The lifecycle guarantees of the cluster tests (every exercised contract settled once, no payout
 * sent twice, every event delivered, the ledger at zero), and one transfer per funding address:
 * the funding the partner asked for once was never sent again across a crash.
 */
export const checkLifecycles = async (db: Readable, receiver: Receiver, done: ReadonlyArray<Lifecycle>) => {
  const figures = await check(db, receiver, done)
  const doubled = await db.query<{ readonly address: string; readonly n: string }>(
    (sql) => sql`SELECT address, count(*)::text AS n FROM sim_transfers GROUP BY address HAVING count(*) > 1`
  )
  assert.deepStrictEqual(doubled, [], "a funding address received more than one transfer")
  return figures
}
