/**
 * `webhook_events` rows and incoming and outgoing events. One table holds both directions, told
 * apart by `direction`; `processed_at` is when an incoming event was handled or an outgoing one
 * delivered. Payloads are `json` (not `jsonb`), so an outgoing body keeps its key order
 * (`event_type` first): read as the driver parsed them, written as text.
 */
import { EventRepo, Partner } from "@ratelock/core"
import { DateTime, Schema } from "effect"
import { json, rowSchema, Timestamp, timestamp, timestampOrNull, utc, utcOrNull } from "./columns.ts"

type WithPayloadText<Row> = Omit<Row, "payload"> & { readonly payload: string }

/**
 * The columns of an event of either direction, for that direction's event types, statuses and
 * payloads (`processed_at`: handled, or delivered); the rest are its direction's own.
 */
const eventColumns = <
  const Direction extends string,
  EventType extends Schema.Top,
  Status extends Schema.Top,
  Payload extends Schema.Top
>(
  direction: Direction,
  eventType: EventType,
  status: Status,
  payload: Payload
) => ({
  id: Schema.String,
  direction: Schema.Literal(direction),
  partner_id: Schema.String,
  environment: Partner.Environment,
  contract_id: Schema.String,
  event_type: eventType,
  status,
  payload,
  created_at: Timestamp,
  processed_at: Schema.NullOr(Timestamp),
  trace_context: Schema.NullOr(Schema.String)
})

/** Those columns as an event of either direction is written (its payload as JSON text). */
const eventRow = <EventType, Status>(
  e: Pick<
    EventRepo.IncomingEvent,
    "id" | "partnerId" | "environment" | "contractId" | "payload" | "createdAt" | "traceContext"
  > & { readonly eventType: EventType; readonly status: Status },
  processedAt: DateTime.Utc | null
) => ({
  id: e.id,
  partner_id: e.partnerId,
  environment: e.environment,
  contract_id: e.contractId,
  event_type: e.eventType,
  status: e.status,
  payload: json(e.payload),
  created_at: timestamp(e.createdAt),
  processed_at: timestampOrNull(processedAt),
  trace_context: e.traceContext
})

/** The fields those columns hold, under the names both directions' records give them. */
const eventOf = <EventType, Status, Payload>(r: {
  readonly id: string
  readonly partner_id: string
  readonly environment: Partner.Environment
  readonly contract_id: string
  readonly event_type: EventType
  readonly status: Status
  readonly payload: Payload
  readonly created_at: Date
  readonly trace_context: string | null
}) => ({
  id: r.id,
  partnerId: r.partner_id,
  environment: r.environment,
  contractId: r.contract_id,
  eventType: r.event_type,
  status: r.status,
  payload: r.payload,
  createdAt: utc(r.created_at),
  traceContext: r.trace_context
})

const IncomingColumns = Schema.Struct({
  ...eventColumns("incoming", EventRepo.IncomingEventType, EventRepo.IncomingStatus, Schema.Unknown),
  idempotency_key: Schema.String
})

/** The row an incoming event is written as. */
export const incomingRow = (e: EventRepo.IncomingEvent): WithPayloadText<typeof IncomingColumns.Type> => ({
  ...eventRow(e, e.processedAt),
  direction: "incoming",
  idempotency_key: e.idempotencyKey
})

/** An incoming `webhook_events` row → `IncomingEvent`. */
export const IncomingRow = rowSchema("IncomingEventRow", IncomingColumns, EventRepo.IncomingEvent, (r) => ({
  ...eventOf(r),
  idempotencyKey: r.idempotency_key,
  processedAt: utcOrNull(r.processed_at)
}))

const OutgoingColumns = Schema.Struct({
  ...eventColumns(
    "outgoing",
    EventRepo.OutgoingEventType,
    EventRepo.OutgoingStatus,
    Schema.Record(Schema.String, Schema.Unknown)
  ),
  event_id: Schema.String,
  sequence: Schema.Int,
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  last_body: Schema.NullOr(Schema.String),
  next_attempt_at: Timestamp
})

/** The row an outgoing event is written as. */
export const outgoingRow = (e: EventRepo.OutgoingEvent): WithPayloadText<typeof OutgoingColumns.Type> => ({
  ...eventRow(e, e.deliveredAt),
  direction: "outgoing",
  event_id: e.eventId,
  sequence: e.sequence,
  attempts: e.attempts,
  last_error: e.lastError,
  last_body: e.lastBody,
  next_attempt_at: timestamp(e.nextAttemptAt)
})

/** An outgoing `webhook_events` row → `OutgoingEvent`. */
export const OutgoingRow = rowSchema("OutgoingEventRow", OutgoingColumns, EventRepo.OutgoingEvent, (r) => ({
  ...eventOf(r),
  eventId: r.event_id,
  sequence: r.sequence,
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
