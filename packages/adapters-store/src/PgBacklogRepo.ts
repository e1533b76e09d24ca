/**
 * `BacklogRepo` on Postgres: one statement counting, per environment, the outbox's undelivered
 * events, the payouts not yet confirmed and those given up on, and the unmatched transfers. Each
 * count's condition is exactly a partial index's (`webhook_events_due`, `payouts_due`,
 * `payouts_failed`), so it reads those rows only; `unmatched_transfers` stays small. The failing
 * deliveries per partner read the retrying events on `webhook_events_due` and the failed ones on
 * `webhook_events_failed`.
 */
import { BacklogRepo, type Partner } from "@ratelock/core"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { BacklogRow, FailingDeliveriesRow } from "./internal/rows/operator.ts"
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

    const failing = SqlSchema.findAll({
      Request: Schema.String,
      Result: FailingDeliveriesRow,
      execute: (environment) => sql`WITH
        retrying AS (
          SELECT partner_id, count(*)::int AS retrying, min(created_at) AS oldest_retrying
          FROM webhook_events
          WHERE direction = 'outgoing' AND status = 'retrying' AND environment = ${environment}
          GROUP BY partner_id),
        failed AS (
          SELECT partner_id, count(*)::int AS failed
          FROM webhook_events
          WHERE direction = 'outgoing' AND status = 'failed' AND environment = ${environment}
          GROUP BY partner_id)
        SELECT p.id::text AS partner_id, p.name AS partner_name,
          coalesce(r.retrying, 0) AS retrying, r.oldest_retrying, coalesce(f.failed, 0) AS failed,
          coalesce(
            (SELECT e.last_error FROM webhook_events e
              WHERE e.direction = 'outgoing' AND e.status = 'retrying' AND e.environment = ${environment}
                AND e.partner_id = p.id
              ORDER BY e.created_at DESC, e.id DESC LIMIT 1),
            (SELECT e.last_error FROM webhook_events e
              WHERE e.direction = 'outgoing' AND e.status = 'failed' AND e.environment = ${environment}
                AND e.partner_id = p.id
              ORDER BY e.created_at DESC, e.id DESC LIMIT 1)) AS last_error
        FROM retrying r FULL JOIN failed f USING (partner_id)
          JOIN partners p ON p.id = partner_id
        ORDER BY retrying DESC, failed DESC, p.name, p.id`
    })

    const failingDeliveries = Effect.fn("PgBacklogRepo.failingDeliveries")(function* (
      environment: Partner.Environment
    ) {
      return yield* failing(environment)
    }, orStoreError("PgBacklogRepo.failingDeliveries"))

    return BacklogRepo.BacklogRepo.of({ backlog, failingDeliveries })
  })
)
