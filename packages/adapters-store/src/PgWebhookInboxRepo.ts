/**
 * `WebhookInboxRepo` on Postgres: `sandbox_webhook_inbox`, one row per delivery. Recording a
 * delivery and dropping the partner's oldest beyond the bound is one statement (the new row is
 * not visible to the statement's own DELETE, so the newest `keep - 1` older rows stay beside it).
 */
import { WebhookInboxRepo } from "@ratelock/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { json, orStoreError, timestamp, utc } from "./internal/codec.ts"

type InboxRow = {
  readonly id: string
  readonly partner_id: string
  readonly received_at: Date
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly signature_problem: string | null
}

const fromRow = (row: InboxRow): WebhookInboxRepo.InboxDelivery => ({
  id: row.id,
  partnerId: row.partner_id,
  receivedAt: utc(row.received_at),
  headers: row.headers,
  body: row.body,
  signatureProblem: row.signature_problem
})

export const layer: Layer.Layer<WebhookInboxRepo.WebhookInboxRepo, never, SqlClient.SqlClient> = Layer.effect(
  WebhookInboxRepo.WebhookInboxRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const record = Effect.fn("PgWebhookInboxRepo.record")(function* (
      delivery: WebhookInboxRepo.InboxDelivery,
      keep: number
    ) {
      yield* sql`WITH added AS (
          INSERT INTO sandbox_webhook_inbox (id, partner_id, received_at, headers, body, signature_problem)
          VALUES (${delivery.id}, ${delivery.partnerId}, ${timestamp(delivery.receivedAt)}, ${json(delivery.headers)},
            ${delivery.body}, ${delivery.signatureProblem})
          RETURNING id
        )
        DELETE FROM sandbox_webhook_inbox
        WHERE partner_id = ${delivery.partnerId} AND id NOT IN (
          SELECT id FROM sandbox_webhook_inbox WHERE partner_id = ${delivery.partnerId}
          ORDER BY received_at DESC, id DESC LIMIT ${Math.max(0, keep - 1)}
        ) AND EXISTS (SELECT 1 FROM added)`
    }, orStoreError("PgWebhookInboxRepo.record"))

    const list = Effect.fn("PgWebhookInboxRepo.list")(function* (partnerId: string, limit: number) {
      const rows = yield* sql<InboxRow>`SELECT id, partner_id, received_at, headers, body, signature_problem
        FROM sandbox_webhook_inbox WHERE partner_id = ${partnerId}
        ORDER BY received_at DESC, id DESC LIMIT ${limit}`
      return rows.map(fromRow)
    }, orStoreError("PgWebhookInboxRepo.list"))

    return WebhookInboxRepo.WebhookInboxRepo.of({ record, list })
  })
)
