/**
 * The audit listing of inbound and outbound events (`GET /api/v1/fx/webhook-events`).
 */
import { Effect } from "effect"
import { EventRepo, type EventView } from "./EventRepo.ts"
import { pageSize, position, slice } from "./internal/paginate.ts"
import type { ListWebhookEventsQuery } from "./ListQuery.ts"
import type { PartnerScope } from "./Partner.ts"
import type { WebhookEventRecord } from "./WebhookEventRecord.ts"

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
