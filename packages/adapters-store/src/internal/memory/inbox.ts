/**
 * `WebhookInboxRepo` in memory: each partner's deliveries, newest first, at most `keep`.
 */
import { Effect, HashMap, Option } from "effect"
import { WebhookInboxRepo } from "@ratelock/core"
import { atomically, read, type StateRef, write } from "./state.ts"

export const makeWebhookInboxRepo = (ref: StateRef): WebhookInboxRepo.WebhookInboxRepoShape => {
  const record = Effect.fn("MemoryStore.inbox.record")(function* (
    delivery: WebhookInboxRepo.InboxDelivery,
    keep: number
  ) {
    return yield* atomically(ref, (state) => {
      const earlier = Option.getOrElse(HashMap.get(state.inbox, delivery.partnerId), () => [])
      const kept = [delivery, ...earlier].slice(0, Math.max(1, keep))
      return write({ ...state, inbox: HashMap.set(state.inbox, delivery.partnerId, kept) })
    })
  })

  const list = Effect.fn("MemoryStore.inbox.list")(function* (partnerId: string, limit: number) {
    return yield* read(ref, (state) =>
      Option.getOrElse(HashMap.get(state.inbox, partnerId), () => []).slice(0, Math.max(0, limit))
    )
  })

  return WebhookInboxRepo.WebhookInboxRepo.of({ record, list })
}
