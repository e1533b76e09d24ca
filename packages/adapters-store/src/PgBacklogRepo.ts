/**
 * `BacklogRepo` on Postgres: one statement counting, per environment, the outbox's undelivered
 * events, the payouts not yet confirmed and those given up on, and the unmatched transfers. Each
 * count's condition is exactly a partial index's (`webhook_events_due`, `payouts_due`,
 * `payouts_failed`), so it reads those rows only; `unmatched_transfers` stays small.
 */
import { BacklogRepo } from "@ratelock/core"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { BacklogRow } from "./internal/rows/operator.ts"
import { orStoreError } from "./internal/sql.ts"

export const layer: Layer.Layer<BacklogRepo.BacklogRepo, never, SqlClient.SqlClient> = Layer.effect(
  BacklogRepo.BacklogRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const counts = SqlSchema.findAll({
      Request: Schema.Void,
      Result: BacklogRow,
      execute: () => sql`WITH
        environments (environment, position) AS (VALUES ('sandbox', 1), ('production', 2)),
        outbox AS (
          SELECT environment::text, count(*)::int AS undelivered, min(created_at) AS oldest_undelivered
          FROM webhook_events WHERE direction = 'outgoing' AND status IN ('pending', 'retrying')
          GROUP BY environment),
        awaiting AS (
          SELECT environment::text, count(*)::int AS awaiting, min(created_at) AS oldest_awaiting
          FROM payouts WHERE status IN ('pending', 'prepared') GROUP BY environment),
        failed AS (
          SELECT environment::text, count(*)::int AS failed FROM payouts WHERE status = 'failed' GROUP BY environment),
        unmatched AS (
          SELECT environment::text, count(*)::int AS unmatched FROM unmatched_transfers GROUP BY environment)
        SELECT e.environment,
          coalesce(o.undelivered, 0) AS undelivered, o.oldest_undelivered,
          coalesce(a.awaiting, 0) AS awaiting, a.oldest_awaiting,
          coalesce(f.failed, 0) AS failed, coalesce(u.unmatched, 0) AS unmatched
        FROM environments e
          LEFT JOIN outbox o USING (environment) LEFT JOIN awaiting a USING (environment)
          LEFT JOIN failed f USING (environment) LEFT JOIN unmatched u USING (environment)
        ORDER BY e.position`
    })

    const backlog = Effect.fn("PgBacklogRepo.backlog")(function* () {
      return yield* counts()
    }, orStoreError("PgBacklogRepo.backlog"))

    return BacklogRepo.BacklogRepo.of({ backlog })
  })
)
