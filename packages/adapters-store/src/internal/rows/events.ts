/**
 * `webhook_events` rows ↔ incoming and outgoing events. One table holds both directions, told
 * apart by `direction`; `processed_at` is when an incoming event was handled or an outgoing one
 * delivered. Payloads are `json` (not `jsonb`), so an outgoing body keeps its key order
 * (`event_type` first).
 */
import { EventRepo, Partner } from "@ratelock/core"
import { Schema, SchemaGetter, Struct } from "effect"
import { compiled, Json, Timestamp } from "./columns.ts"

const IncomingColumns = Schema.Struct({
  id: Schema.String,
  direction: Schema.Literal("incoming"),
  partner_id: Schema.String,
  environment: Partner.Environment,
  contract_id: Schema.String,
  event_type: EventRepo.IncomingEventType,
  idempotency_key: Schema.String,
  status: EventRepo.IncomingStatus,
  payload: Json(Schema.Unknown),
  created_at: Timestamp,
  processed_at: Schema.NullOr(Timestamp)
})

export const IncomingRow = compiled(
  IncomingColumns.pipe(
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
          createdAt: r.created_at,
          processedAt: r.processed_at
        })
      ),
      encode: SchemaGetter.transform((e: EventRepo.IncomingEvent): typeof IncomingColumns.Type => ({
        id: e.id,
        direction: "incoming",
        partner_id: e.partnerId,
        environment: e.environment,
        contract_id: e.contractId,
        event_type: e.eventType,
        idempotency_key: e.idempotencyKey,
        status: e.status,
        payload: e.payload,
        created_at: e.createdAt,
        processed_at: e.processedAt
      }))
    })
  ).annotate({ identifier: "IncomingEventRow" })
)

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
  payload: Json(Schema.Record(Schema.String, Schema.Unknown)),
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  last_body: Schema.NullOr(Schema.String),
  next_attempt_at: Timestamp,
  created_at: Timestamp,
  processed_at: Schema.NullOr(Timestamp)
})

export const OutgoingRow = compiled(
  OutgoingColumns.pipe(
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
          nextAttemptAt: r.next_attempt_at,
          createdAt: r.created_at,
          deliveredAt: r.processed_at,
          lastBody: r.last_body
        })
      ),
      encode: SchemaGetter.transform((e: EventRepo.OutgoingEvent): typeof OutgoingColumns.Type => ({
        id: e.id,
        direction: "outgoing",
        partner_id: e.partnerId,
        environment: e.environment,
        contract_id: e.contractId,
        event_type: e.eventType,
        event_id: e.eventId,
        sequence: e.sequence,
        status: e.status,
        payload: e.payload,
        attempts: e.attempts,
        last_error: e.lastError,
        last_body: e.lastBody,
        next_attempt_at: e.nextAttemptAt,
        created_at: e.createdAt,
        processed_at: e.deliveredAt
      }))
    })
  ).annotate({ identifier: "OutgoingEventRow" })
)

/** What a delivery changes of an outgoing event: its columns as one element of `updateOutgoing`'s JSON array. */
const DeliveryColumns = Schema.Struct({
  id: Schema.String,
  status: EventRepo.OutgoingStatus,
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Timestamp,
  processed_at: Schema.NullOr(Timestamp),
  last_body: Schema.NullOr(Schema.String)
})

const DeliveryState = EventRepo.OutgoingEvent.mapFields(
  Struct.pick(["id", "status", "attempts", "lastError", "nextAttemptAt", "deliveredAt", "lastBody"])
)

/**
 * The delivery states of outgoing events as one `json` array (instants as ISO text, which
 * `jsonb_to_recordset` reads back as `timestamptz`).
 */
export const DeliveryStates = compiled(
  Json(
    Schema.Array(
      DeliveryColumns.pipe(
        Schema.decodeTo(DeliveryState, {
          decode: SchemaGetter.transform((r): typeof DeliveryState.Type => ({
            id: r.id,
            status: r.status,
            attempts: r.attempts,
            lastError: r.last_error,
            nextAttemptAt: r.next_attempt_at,
            deliveredAt: r.processed_at,
            lastBody: r.last_body
          })),
          encode: SchemaGetter.transform((e: typeof DeliveryState.Type): typeof DeliveryColumns.Type => ({
            id: e.id,
            status: e.status,
            attempts: e.attempts,
            last_error: e.lastError,
            next_attempt_at: e.nextAttemptAt,
            processed_at: e.deliveredAt,
            last_body: e.lastBody
          }))
        })
      )
    )
  ).annotate({ identifier: "DeliveryStates" })
)

/** A row of either direction ↔ the audit listing's view of it. */
export const EventViewRow = compiled(
  Schema.Union([
    IncomingRow.pipe(
      Schema.decodeTo(EventRepo.IncomingView, {
        decode: SchemaGetter.transform(
          (event: EventRepo.IncomingEvent): EventRepo.IncomingView => ({ _tag: "incoming", event })
        ),
        encode: SchemaGetter.transform((view: EventRepo.IncomingView) => view.event)
      })
    ),
    OutgoingRow.pipe(
      Schema.decodeTo(EventRepo.OutgoingView, {
        decode: SchemaGetter.transform(
          (event: EventRepo.OutgoingEvent): EventRepo.OutgoingView => ({ _tag: "outgoing", event })
        ),
        encode: SchemaGetter.transform((view: EventRepo.OutgoingView) => view.event)
      })
    )
  ]).annotate({ identifier: "EventViewRow" })
)
