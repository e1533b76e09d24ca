/**
 * `WorkerHeartbeatRepo` on Postgres: `worker_heartbeats`, one row per worker process and pass,
 * upserted by the workers every few seconds.
 */
import { WorkerHeartbeatRepo } from "@ratelock/core"
import { Array, type DateTime, Effect, Layer } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { timestamp } from "./internal/rows/columns.ts"
import { HeartbeatRow, heartbeatRow } from "./internal/rows/operator.ts"
import { orStoreError, Parameters } from "./internal/sql.ts"

export const layer: Layer.Layer<WorkerHeartbeatRepo.WorkerHeartbeatRepo, never, SqlClient.SqlClient> = Layer.effect(
  WorkerHeartbeatRepo.WorkerHeartbeatRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const beat = Effect.fn("PgWorkerHeartbeatRepo.beat")(function* (
      beats: ReadonlyArray<WorkerHeartbeatRepo.WorkerHeartbeat>
    ) {
      const rows: ReadonlyArray<ReturnType<typeof heartbeatRow>> = beats.map(heartbeatRow)
      if (!Array.isReadonlyArrayNonEmpty(rows)) return
      yield* sql`INSERT INTO worker_heartbeats ${sql.insert(rows)}
        ON CONFLICT (owner, pass) DO UPDATE SET last_pass_at = EXCLUDED.last_pass_at, ok = EXCLUDED.ok`
    }, orStoreError("PgWorkerHeartbeatRepo.beat"))

    const since = SqlSchema.findAll({
      Request: Parameters<Date>(),
      Result: HeartbeatRow,
      execute: (from) => sql`SELECT * FROM worker_heartbeats WHERE last_pass_at >= ${from} ORDER BY owner, pass`
    })

    const list = Effect.fn("PgWorkerHeartbeatRepo.list")(function* (from: DateTime.Utc) {
      return yield* since(timestamp(from))
    }, orStoreError("PgWorkerHeartbeatRepo.list"))

    const prune = Effect.fn("PgWorkerHeartbeatRepo.prune")(function* (before: DateTime.Utc) {
      const gone = yield* sql`DELETE FROM worker_heartbeats WHERE last_pass_at < ${timestamp(before)} RETURNING owner`
      return gone.length
    }, orStoreError("PgWorkerHeartbeatRepo.prune"))

    return WorkerHeartbeatRepo.WorkerHeartbeatRepo.of({ beat, list, prune })
  })
)
