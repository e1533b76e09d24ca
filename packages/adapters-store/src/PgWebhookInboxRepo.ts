/**
 * `WebhookInboxRepo` on Postgres: `sandbox_webhook_inbox`, one row per delivery. Recording a
 * delivery and dropping the partner's oldest beyond the bound is one statement (the new row is
 * not visible to the statement's own DELETE, so the newest `keep - 1` older rows stay beside it).
 */
import { WebhookInboxRepo } from "@ratelock/core"
import { Effect, Layer } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { InboxRow, inboxRow } from "./internal/rows/inbox.ts"
import { orStoreError, Parameters } from "./internal/sql.ts"

export const layer: Layer.Layer<WebhookInboxRepo.WebhookInboxRepo, never, SqlClient.SqlClient> = Layer.effect(
  WebhookInboxRepo.WebhookInboxRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const record = Effect.fn("PgWebhookInboxRepo.record")(function* (
      delivery: WebhookInboxRepo.InboxDelivery,
      keep: number
    ) {
      yield* sql`WITH added AS (
          INSERT INTO sandbox_webhook_inbox ${sql.insert(inboxRow(delivery))}
          RETURNING id
        )
        DELETE FROM sandbox_webhook_inbox
        WHERE partner_id = ${delivery.partnerId} AND id NOT IN (
          SELECT id FROM sandbox_webhook_inbox WHERE partner_id = ${delivery.partnerId}
          ORDER BY received_at DESC, id DESC LIMIT ${Math.max(0, keep - 1)}
        ) AND EXISTS (SELECT 1 FROM added)`
    }, orStoreError("PgWebhookInboxRepo.record"))

    const newest = SqlSchema.findAll({
      Request: Parameters<{ readonly partnerId: string; readonly limit: number }>(),
      Result: InboxRow,
      execute: (r) => sql`SELECT id, partner_id, received_at, headers, body, signature_problem
        FROM sandbox_webhook_inbox WHERE partner_id = ${r.partnerId}
        ORDER BY received_at DESC, id DESC LIMIT ${r.limit}`
    })

    const list = Effect.fn("PgWebhookInboxRepo.list")(function* (partnerId: string, limit: number) {
      return yield* newest({ partnerId, limit })
    }, orStoreError("PgWebhookInboxRepo.list"))

    return WebhookInboxRepo.WebhookInboxRepo.of({ record, list })
  })
)
