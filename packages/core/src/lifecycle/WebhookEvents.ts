/**
 * The audit listing of inbound and outbound events (`GET /api/v1/fx/webhook-events`), the payout
 * feed (`GET /api/v1/fx/payout-events`) and redelivery of an outgoing event.
 */
import { DateTime, Effect, Option } from "effect"
import { WebhookEventNotFound } from "../kernel/ApiError.ts"
import { EventRepo, type EventView, type IncomingEvent, type OutgoingEvent } from "./EventRepo.ts"
import { pageSize, position, slice } from "./internal/paginate.ts"
import type { ListWebhookEventsQuery } from "../terms/ListQuery.ts"
import type { PartnerScope } from "../terms/Partner.ts"
import type { WebhookEventRecord } from "../terms/WebhookEventRecord.ts"

/** What a record says alike of both directions (the rest is each direction's own). */
const commonFields = (e: IncomingEvent | OutgoingEvent) => ({
  id: e.id,
  partner_id: e.partnerId,
  fx_contract_id: e.contractId,
  event_type: e.eventType,
  status: e.status,
  created_at: e.createdAt
})

export const toRecord = (view: EventView): WebhookEventRecord => {
  if (view._tag === "incoming") {
    const e = view.event
    return {
      ...commonFields(e),
      direction: "incoming",
      idempotency_key: e.idempotencyKey,
      retry_count: 0,
      last_error: null,
      payload: e.payload as WebhookEventRecord["payload"],
      processed_at: e.processedAt
    }
  }
  const e = view.event
  return {
    ...commonFields(e),
    direction: "outgoing",
    idempotency_key: e.eventId,
    retry_count: Math.max(0, e.attempts - 1),
    last_error: e.lastError,
    // the body as last sent; before the first attempt, the payload that will be sent
    payload: (e.lastBody === null ? e.payload : JSON.parse(e.lastBody)) as WebhookEventRecord["payload"],
    processed_at: e.deliveredAt
  }
}

const keyOf = (view: EventView) => ({ id: view.event.id, createdAt: view.event.createdAt, view })

export const list = Effect.fn("WebhookEvents.list")(function* (scope: PartnerScope, query: ListWebhookEventsQuery) {
  const after = yield* position(query.cursor)
  const limit = pageSize(query.limit)
  const rows = yield* (yield* EventRepo).list(scope, {
    direction: query.direction,
    contractId: query.fx_contract_id,
    limit: limit + 1,
    after
  })
  const page = slice(rows.map(keyOf), limit)
  return { items: page.items.map((row) => toRecord(row.view)), next_cursor: page.nextCursor }
})

export interface PayoutEventsQuery {
  readonly since?: DateTime.Utc | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** Outgoing payout events, oldest first from `since` (a backfill feed), with a keyset cursor. */
export const listPayoutEvents = Effect.fn("WebhookEvents.listPayoutEvents")(function* (
  scope: PartnerScope,
  query: PayoutEventsQuery
) {
  const after = yield* position(query.cursor)
  const limit = pageSize(query.limit)
  const rows = yield* (yield* EventRepo).listPayoutEvents(scope, { since: query.since, limit: limit + 1, after })
  const page = slice(rows, limit)
  return {
    items: page.items.map((event) => toRecord({ _tag: "outgoing", event })),
    next_cursor: page.nextCursor
  }
})

/**
 * Queues a fresh attempt of one of the partner's outgoing events, now, with the same `event_id`.
 * An id that is not the caller's, or not outgoing, is not found.
 */
export const redeliver = Effect.fn("WebhookEvents.redeliver")(function* (scope: PartnerScope, id: string) {
  const events = yield* EventRepo
  const found = yield* events.findOutgoing(scope, id)
  if (Option.isNone(found)) return yield* new WebhookEventNotFound({ message: `webhook event ${id} not found` })
  const queued: OutgoingEvent = { ...found.value, status: "pending", nextAttemptAt: yield* DateTime.now }
  yield* events.updateOutgoing([queued])
  return toRecord({ _tag: "outgoing", event: queued })
})
