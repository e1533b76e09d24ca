/**
 * `webhook_events` rows and incoming and outgoing events. One table holds both directions, told
 * apart by `direction`; `processed_at` is when an incoming event was handled or an outgoing one
 * delivered. Payloads are `json` (not `jsonb`), so an outgoing body keeps its key order
 * (`event_type` first): read as the driver parsed them, written as text.
 */
import { EventRepo, Partner } from "@ratelock/core"
import { DateTime, Schema } from "effect"
import { json, Timestamp, timestamp, timestampOrNull, utc, utcOrNull, rowSchema } from "./columns.ts"

type WithPayloadText<Row> = Omit<Row, "payload"> & { readonly payload: string }

/** The columns of an event of either direction (`processed_at`: handled, or delivered). */
const EventColumns = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  environment: Partner.Environment,
  contract_id: Schema.String,
  created_at: Timestamp,
  processed_at: Schema.NullOr(Timestamp),
  trace_context: Schema.NullOr(Schema.String)
})

/** The fields both directions' records have under the same names. */
type EventFields = Pick<
  EventRepo.IncomingEvent,
  "id" | "partnerId" | "environment" | "contractId" | "createdAt" | "traceContext"
>

const eventRow = (e: EventFields, processedAt: DateTime.Utc | null): typeof EventColumns.Type => ({
  id: e.id,
  partner_id: e.partnerId,
  environment: e.environment,
  contract_id: e.contractId,
  created_at: timestamp(e.createdAt),
  processed_at: timestampOrNull(processedAt),
  trace_context: e.traceContext
})

const eventOf = (r: typeof EventColumns.Type): EventFields => ({
  id: r.id,
  partnerId: r.partner_id,
  environment: r.environment,
  contractId: r.contract_id,
  createdAt: utc(r.created_at),
  traceContext: r.trace_context
})

const IncomingColumns = Schema.Struct({
  ...EventColumns.fields,
  direction: Schema.Literal("incoming"),
  event_type: EventRepo.IncomingEventType,
  idempotency_key: Schema.String,
  status: EventRepo.IncomingStatus,
  payload: Schema.Unknown
})

/** The row an incoming event is written as. */
export const incomingRow = (e: EventRepo.IncomingEvent): WithPayloadText<typeof IncomingColumns.Type> => ({
  ...eventRow(e, e.processedAt),
  direction: "incoming",
  event_type: e.eventType,
  idempotency_key: e.idempotencyKey,
  status: e.status,
  payload: json(e.payload)
})

/** An incoming `webhook_events` row → `IncomingEvent`. */
export const IncomingRow = rowSchema("IncomingEventRow", IncomingColumns, EventRepo.IncomingEvent, (r) => ({
  ...eventOf(r),
  eventType: r.event_type,
  idempotencyKey: r.idempotency_key,
  status: r.status,
  payload: r.payload,
  processedAt: utcOrNull(r.processed_at)
}))

const OutgoingColumns = Schema.Struct({
  ...EventColumns.fields,
  direction: Schema.Literal("outgoing"),
  event_type: EventRepo.OutgoingEventType,
  event_id: Schema.String,
  sequence: Schema.Int,
  status: EventRepo.OutgoingStatus,
  payload: Schema.Record(Schema.String, Schema.Unknown),
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  last_body: Schema.NullOr(Schema.String),
  next_attempt_at: Timestamp
})

/** The row an outgoing event is written as. */
export const outgoingRow = (e: EventRepo.OutgoingEvent): WithPayloadText<typeof OutgoingColumns.Type> => ({
  ...eventRow(e, e.deliveredAt),
  direction: "outgoing",
  event_type: e.eventType,
  event_id: e.eventId,
  sequence: e.sequence,
  status: e.status,
  payload: json(e.payload),
  attempts: e.attempts,
  last_error: e.lastError,
  last_body: e.lastBody,
  next_attempt_at: timestamp(e.nextAttemptAt)
})

/** An outgoing `webhook_events` row → `OutgoingEvent`. */
export const OutgoingRow = rowSchema("OutgoingEventRow", OutgoingColumns, EventRepo.OutgoingEvent, (r) => ({
  ...eventOf(r),
  eventId: r.event_id,
  eventType: r.event_type,
  sequence: r.sequence,
  payload: r.payload,
  status: r.status,
  attempts: r.attempts,
  lastError: r.last_error,
  nextAttemptAt: utc(r.next_attempt_at),
  deliveredAt: utcOrNull(r.processed_at),
  lastBody: r.last_body
}))

/**
 * What a delivery changes of an outgoing event, as one element of `updateOutgoing`'s JSON array:
 * instants as ISO text, which `jsonb_to_recordset` reads back as `timestamptz`.
 */
export const deliveryState = (e: EventRepo.OutgoingEvent) => ({
  id: e.id,
  status: e.status,
  attempts: e.attempts,
  last_error: e.lastError,
  next_attempt_at: DateTime.formatIso(e.nextAttemptAt),
  processed_at: e.deliveredAt === null ? null : DateTime.formatIso(e.deliveredAt),
  last_body: e.lastBody
})

/** A row of either direction → the audit listing's view of it. */
export const EventViewRow = Schema.Union([
  rowSchema(
    "IncomingEventViewRow",
    IncomingRow,
    EventRepo.IncomingView,
    (event): EventRepo.IncomingView => ({ _tag: "incoming", event })
  ),
  rowSchema(
    "OutgoingEventViewRow",
    OutgoingRow,
    EventRepo.OutgoingView,
    (event): EventRepo.OutgoingView => ({ _tag: "outgoing", event })
  )
]).annotate({ identifier: "EventViewRow" })
