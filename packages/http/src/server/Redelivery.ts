/**
 * `POST /api/v1/fx/webhook-events/{id}/redeliver` (api-decisions.md, beyond the spec): queues a
 * fresh attempt of one of the partner's outgoing events, now, with the same `event_id`. An id
 * that is not the caller's, or not outgoing, is 404 as if it did not exist.
 */
import { EventRepo, type Partner, type StoreError, type WebhookEventRecord, WebhookEvents } from "@ratelock/core"
import { DateTime, Effect, Option, Schema } from "effect"

export class WebhookEventNotFound extends Schema.TaggedError<WebhookEventNotFound>()("WebhookEventNotFound", {
  message: Schema.String
}) {
  get code() {
    return "webhook_event_not_found" as const
  }
}

export const redeliver = Effect.fn("Redelivery.redeliver")(function* (
  scope: Partner.PartnerScope,
  id: string
): Effect.fn.Return<
  WebhookEventRecord.WebhookEventRecord,
  WebhookEventNotFound | StoreError.StoreError,
  EventRepo.EventRepo
> {
  const events = yield* EventRepo.EventRepo
  const found = yield* events.findOutgoing(scope, id)
  if (Option.isNone(found)) return yield* new WebhookEventNotFound({ message: `webhook event ${id} not found` })
  const queued: EventRepo.OutgoingEvent = { ...found.value, status: "pending", nextAttemptAt: yield* DateTime.now }
  yield* events.updateOutgoing(queued)
  return WebhookEvents.toRecord({ _tag: "outgoing", event: queued })
})
