/**
 * `WebhookInboxRepo` on Postgres: `sandbox_webhook_inbox`, one row per delivery. Recording a
 * delivery and dropping the partner's oldest beyond the bound is one statement (the new row is
 * not visible to the statement's own DELETE, so the newest `keep - 1` older rows stay beside it).
 */
import { WebhookInboxRepo } from "@ratelock/core"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orStoreError } from "./internal/sql.ts"
import { InboxRow } from "./internal/rows/inbox.ts"

const Add = Schema.Struct({ delivery: InboxRow, keep: Schema.Int })

const List = Schema.Struct({ partnerId: Schema.String, limit: Schema.Int })

export const layer: Layer.Layer<WebhookInboxRepo.WebhookInboxRepo, never, SqlClient.SqlClient> = Layer.effect(
  WebhookInboxRepo.WebhookInboxRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const recordRow = SqlSchema.void({
      Request: Add,
      execute: ({ delivery, keep }) => sql`WITH added AS (
          INSERT INTO sandbox_webhook_inbox ${sql.insert(delivery)}
          RETURNING id
        )
        DELETE FROM sandbox_webhook_inbox
        WHERE partner_id = ${delivery.partner_id} AND id NOT IN (
          SELECT id FROM sandbox_webhook_inbox WHERE partner_id = ${delivery.partner_id}
          ORDER BY received_at DESC, id DESC LIMIT ${Math.max(0, keep - 1)}
        ) AND EXISTS (SELECT 1 FROM added)`
    })

    const record = Effect.fn("PgWebhookInboxRepo.record")(function* (
      delivery: WebhookInboxRepo.InboxDelivery,
      keep: number
    ) {
      yield* recordRow({ delivery, keep })
    }, orStoreError("PgWebhookInboxRepo.record"))

    const listRows = SqlSchema.findAll({
      Request: List,
      Result: InboxRow,
      execute: (r) => sql`SELECT id, partner_id, received_at, headers, body, signature_problem
        FROM sandbox_webhook_inbox WHERE partner_id = ${r.partnerId}
        ORDER BY received_at DESC, id DESC LIMIT ${r.limit}`
    })

    const list = Effect.fn("PgWebhookInboxRepo.list")(function* (partnerId: string, limit: number) {
      return yield* listRows({ partnerId, limit })
    }, orStoreError("PgWebhookInboxRepo.list"))

    return WebhookInboxRepo.WebhookInboxRepo.of({ record, list })
  })
)
