/**
 * `sandbox_webhook_inbox` rows ↔ `InboxDelivery`s: the one place the columns of a delivery the
 * sandbox's own receiver recorded are named.
 */
import { WebhookInboxRepo } from "@ratelock/core"
import { Schema, SchemaGetter } from "effect"
import { compiled, Json, Timestamp } from "./columns.ts"

const InboxColumns = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  received_at: Timestamp,
  headers: Json(Schema.Record(Schema.String, Schema.String)),
  body: Schema.String,
  signature_problem: Schema.NullOr(Schema.String)
})

export const InboxRow = compiled(
  InboxColumns.pipe(
    Schema.decodeTo(WebhookInboxRepo.InboxDelivery, {
      decode: SchemaGetter.transform(
        (r): WebhookInboxRepo.InboxDelivery => ({
          id: r.id,
          partnerId: r.partner_id,
          receivedAt: r.received_at,
          headers: r.headers,
          body: r.body,
          signatureProblem: r.signature_problem
        })
      ),
      encode: SchemaGetter.transform((d: WebhookInboxRepo.InboxDelivery): typeof InboxColumns.Type => ({
        id: d.id,
        partner_id: d.partnerId,
        received_at: d.receivedAt,
        headers: d.headers,
        body: d.body,
        signature_problem: d.signatureProblem
      }))
    })
  ).annotate({ identifier: "InboxRow" })
)
