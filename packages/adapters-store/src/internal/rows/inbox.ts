/**
 * `sandbox_webhook_inbox` rows and `InboxDelivery`s: the one place the columns of a delivery the
 * sandbox's own receiver recorded are named.
 */
import { WebhookInboxRepo } from "@ratelock/core"
import { Schema } from "effect"
import { json, rowSchema, Timestamp, timestamp, utc } from "./columns.ts"

const InboxColumns = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  received_at: Timestamp,
  /** `json`, parsed by the driver. */
  headers: Schema.Record(Schema.String, Schema.String),
  body: Schema.String,
  signature_problem: Schema.NullOr(Schema.String)
})

/** The row a delivery is written as (headers as JSON text). */
export const inboxRow = (
  d: WebhookInboxRepo.InboxDelivery
): Omit<typeof InboxColumns.Type, "headers"> & { readonly headers: string } => ({
  id: d.id,
  partner_id: d.partnerId,
  received_at: timestamp(d.receivedAt),
  headers: json(d.headers),
  body: d.body,
  signature_problem: d.signatureProblem
})

/** A `sandbox_webhook_inbox` row → `InboxDelivery`. */
export const InboxRow = rowSchema("InboxRow", InboxColumns, WebhookInboxRepo.InboxDelivery, (r) => ({
  id: r.id,
  partnerId: r.partner_id,
  receivedAt: utc(r.received_at),
  headers: r.headers,
  body: r.body,
  signatureProblem: r.signature_problem
}))
