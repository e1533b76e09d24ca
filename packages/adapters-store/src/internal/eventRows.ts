/**
 * `webhook_events` rows ↔ incoming and outgoing events. One table holds both directions;
 * `processed_at` is when an incoming event was handled or an outgoing one delivered. Payloads
 * are `json` (not `jsonb`), so an outgoing body keeps its key order (`event_type` first).
 */
import type { EventRepo, OutboundEvent, Partner } from "@ratelock/core"
import { json, timestamp, timestampOrNull, utc, utcOrNull } from "./codec.ts"

export type EventRow = {
  readonly id: string
  readonly direction: "incoming" | "outgoing"
  readonly partner_id: string
  readonly environment: string
  readonly contract_id: string
  readonly event_type: string
  readonly idempotency_key: string | null
  readonly event_id: string | null
  readonly sequence: number | null
  readonly status: string
  readonly payload: unknown
  readonly attempts: number
  readonly last_error: string | null
  readonly last_body: string | null
  readonly next_attempt_at: Date | null
  readonly created_at: Date
  readonly processed_at: Date | null
}

export const incomingRow = (e: EventRepo.IncomingEvent) => ({
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
  processed_at: timestampOrNull(e.processedAt)
})

export const outgoingRow = (e: EventRepo.OutgoingEvent) => ({
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
  processed_at: timestampOrNull(e.deliveredAt)
})

export const incomingFromRow = (r: EventRow): EventRepo.IncomingEvent => ({
  id: r.id,
  partnerId: r.partner_id,
  environment: r.environment as Partner.Environment,
  contractId: r.contract_id,
  eventType: r.event_type as EventRepo.IncomingEvent["eventType"],
  idempotencyKey: r.idempotency_key!,
  status: r.status as EventRepo.IncomingEvent["status"],
  payload: r.payload,
  createdAt: utc(r.created_at),
  processedAt: utcOrNull(r.processed_at)
})

export const outgoingFromRow = (r: EventRow): EventRepo.OutgoingEvent => ({
  id: r.id,
  eventId: r.event_id!,
  partnerId: r.partner_id,
  environment: r.environment as Partner.Environment,
  contractId: r.contract_id,
  eventType: r.event_type as OutboundEvent.OutboundEventType,
  sequence: r.sequence!,
  payload: r.payload as Record<string, unknown>,
  status: r.status as EventRepo.OutgoingStatus,
  attempts: r.attempts,
  lastError: r.last_error,
  nextAttemptAt: utc(r.next_attempt_at!),
  createdAt: utc(r.created_at),
  deliveredAt: utcOrNull(r.processed_at),
  lastBody: r.last_body
})

export const viewFromRow = (r: EventRow): EventRepo.EventView =>
  r.direction === "incoming"
    ? { _tag: "incoming", event: incomingFromRow(r) }
    : { _tag: "outgoing", event: outgoingFromRow(r) }
