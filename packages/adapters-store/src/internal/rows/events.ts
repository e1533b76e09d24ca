/**
 * `webhook_events` rows and incoming and outgoing events. One table holds both directions, told
 * apart by `direction`; `processed_at` is when an incoming event was handled or an outgoing one
 * delivered. Payloads are `json` (not `jsonb`), so an outgoing body keeps its key order
 * (`event_type` first): read as the driver parsed them, written as text.
 */
import { EventRepo, Partner } from "@ratelock/core"
import { DateTime, Schema, SchemaGetter } from "effect"
import { json, Timestamp, timestamp, timestampOrNull, utc, utcOrNull, writtenByMapping } from "./columns.ts"

type WithPayloadText<Row> = Omit<Row, "payload"> & { readonly payload: string }

const IncomingColumns = Schema.Struct({
  id: Schema.String,
  direction: Schema.Literal("incoming"),
  partner_id: Schema.String,
  environment: Partner.Environment,
  contract_id: Schema.String,
  event_type: EventRepo.IncomingEventType,
  idempotency_key: Schema.String,
  status: EventRepo.IncomingStatus,
  payload: Schema.Unknown,
  created_at: Timestamp,
  processed_at: Schema.NullOr(Timestamp),
  trace_context: Schema.NullOr(Schema.String)
})

/** The row an incoming event is written as. */
export const incomingRow = (e: EventRepo.IncomingEvent): WithPayloadText<typeof IncomingColumns.Type> => ({
  id: e.id,
  direction: "incoming",
  partner_id: e.partnerId,
  environment: e.environment,
  contract_id: e.contractId,
  event_type: e.eventType,
  idempotency_key: e.idempotencyKey,
  status: e.status,
  payload: json(e.payload),
  created_at: timestamp(e.createdAt),
  processed_at: timestampOrNull(e.processedAt),
  trace_context: e.traceContext
})

/** An incoming `webhook_events` row → `IncomingEvent`. */
export const IncomingRow = IncomingColumns.pipe(
  Schema.decodeTo(EventRepo.IncomingEvent, {
    decode: SchemaGetter.transform(
      (r): EventRepo.IncomingEvent => ({
        id: r.id,
        partnerId: r.partner_id,
        environment: r.environment,
        contractId: r.contract_id,
        eventType: r.event_type,
        idempotencyKey: r.idempotency_key,
        status: r.status,
        payload: r.payload,
        createdAt: utc(r.created_at),
        processedAt: utcOrNull(r.processed_at),
        traceContext: r.trace_context
      })
    ),
    encode: writtenByMapping()
  })
).annotate({ identifier: "IncomingEventRow" })

const OutgoingColumns = Schema.Struct({
  id: Schema.String,
  direction: Schema.Literal("outgoing"),
  partner_id: Schema.String,
  environment: Partner.Environment,
  contract_id: Schema.String,
  event_type: EventRepo.OutgoingEventType,
  event_id: Schema.String,
  sequence: Schema.Int,
  status: EventRepo.OutgoingStatus,
  payload: Schema.Record(Schema.String, Schema.Unknown),
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  last_body: Schema.NullOr(Schema.String),
  next_attempt_at: Timestamp,
  created_at: Timestamp,
  processed_at: Schema.NullOr(Timestamp),
  trace_context: Schema.NullOr(Schema.String)
})

/** The row an outgoing event is written as. */
export const outgoingRow = (e: EventRepo.OutgoingEvent): WithPayloadText<typeof OutgoingColumns.Type> => ({
  id: e.id,
  direction: "outgoing",
  partner_id: e.partnerId,
  environment: e.environment,
  contract_id: e.contractId,
  event_type: e.eventType,
  event_id: e.eventId,
  sequence: e.sequence,
  status: e.status,
  payload: json(e.payload),
  attempts: e.attempts,
  last_error: e.lastError,
  last_body: e.lastBody,
  next_attempt_at: timestamp(e.nextAttemptAt),
  created_at: timestamp(e.createdAt),
  processed_at: timestampOrNull(e.deliveredAt),
  trace_context: e.traceContext
})

/** An outgoing `webhook_events` row → `OutgoingEvent`. */
export const OutgoingRow = OutgoingColumns.pipe(
  Schema.decodeTo(EventRepo.OutgoingEvent, {
    decode: SchemaGetter.transform(
      (r): EventRepo.OutgoingEvent => ({
        id: r.id,
        eventId: r.event_id,
        partnerId: r.partner_id,
        environment: r.environment,
        contractId: r.contract_id,
        eventType: r.event_type,
        sequence: r.sequence,
        payload: r.payload,
        status: r.status,
        attempts: r.attempts,
        lastError: r.last_error,
        nextAttemptAt: utc(r.next_attempt_at),
        createdAt: utc(r.created_at),
        deliveredAt: utcOrNull(r.processed_at),
        lastBody: r.last_body,
        traceContext: r.trace_context
      })
    ),
    encode: writtenByMapping()
  })
).annotate({ identifier: "OutgoingEventRow" })

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
  IncomingRow.pipe(
    Schema.decodeTo(EventRepo.IncomingView, {
      decode: SchemaGetter.transform(
        (event: EventRepo.IncomingEvent): EventRepo.IncomingView => ({ _tag: "incoming", event })
      ),
      encode: writtenByMapping()
    })
  ),
  OutgoingRow.pipe(
    Schema.decodeTo(EventRepo.OutgoingView, {
      decode: SchemaGetter.transform(
        (event: EventRepo.OutgoingEvent): EventRepo.OutgoingView => ({ _tag: "outgoing", event })
      ),
      encode: writtenByMapping()
    })
  )
]).annotate({ identifier: "EventViewRow" })
