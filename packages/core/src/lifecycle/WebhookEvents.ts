/**
 * The audit listing of inbound and outbound events (`GET /api/v1/fx/webhook-events`), the payout
 * feed (`GET /api/v1/fx/payout-events`) and redelivery of an outgoing event.
 */
import { DateTime, Effect, Option } from "effect"
import { WebhookEventNotFound } from "../kernel/ApiError.ts"
import { EventRepo, type EventView, type OutgoingEvent } from "./EventRepo.ts"
import { pageSize, position, slice } from "./internal/paginate.ts"
import type { ListWebhookEventsQuery } from "../terms/ListQuery.ts"
import type { PartnerScope } from "../terms/Partner.ts"
import type { WebhookEventRecord } from "../terms/WebhookEventRecord.ts"

export const toRecord = (view: EventView): WebhookEventRecord => {
  if (view._tag === "incoming") {
    const e = view.event
    return {
      id: e.id,
      partner_id: e.partnerId,
      fx_contract_id: e.contractId,
      direction: "incoming",
      event_type: e.eventType,
      idempotency_key: e.idempotencyKey,
      status: e.status,
      retry_count: 0,
      last_error: null,
      payload: e.payload as WebhookEventRecord["payload"],
      created_at: e.createdAt,
      processed_at: e.processedAt
    }
  }
  const e = view.event
  return {
    id: e.id,
    partner_id: e.partnerId,
    fx_contract_id: e.contractId,
    direction: "outgoing",
    event_type: e.eventType,
    idempotency_key: e.eventId,
    status: e.status,
    retry_count: Math.max(0, e.attempts - 1),
    last_error: e.lastError,
    // the body as last sent; before the first attempt, the payload that will be sent
    payload: (e.lastBody === null ? e.payload : JSON.parse(e.lastBody)) as WebhookEventRecord["payload"],
    created_at: e.createdAt,
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
