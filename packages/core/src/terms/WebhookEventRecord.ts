/**
 * Items of `GET /api/v1/fx/webhook-events`: the audit trail of inbound and outbound events.
 */
import { Schema } from "effect"
import { Datetime, Uuid } from "../kernel/Fields.ts"

export const EventDirection = Schema.Literals(["incoming", "outgoing"])
export type EventDirection = typeof EventDirection.Type

/** Incoming: `processed`, `queued`. Outgoing: `pending`, `delivered`, `retrying`, `failed`. */
export const WebhookEventStatus = Schema.Literals(["processed", "queued", "pending", "delivered", "retrying", "failed"])
export type WebhookEventStatus = typeof WebhookEventStatus.Type

export const WebhookEventRecord = Schema.Struct({
  id: Uuid,
  partner_id: Uuid,
  fx_contract_id: Uuid,
  direction: EventDirection,
  event_type: Schema.String,
  /** Incoming: the Idempotency-Key sent. Outgoing: the `event_id`. */
  idempotency_key: Schema.String,
  status: WebhookEventStatus,
  retry_count: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  last_error: Schema.NullOr(Schema.String),
  /** The raw event body as received or (last) sent. */
  payload: Schema.Json,
  created_at: Datetime,
  /** When it was handled (incoming) or delivered (outgoing); null while pending. */
  processed_at: Schema.NullOr(Datetime)
}).annotate({ identifier: "WebhookEventRecord" })
export type WebhookEventRecord = typeof WebhookEventRecord.Type
