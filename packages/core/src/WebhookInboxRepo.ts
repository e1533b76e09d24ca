/**
 * Persistence port for the sandbox's webhook inbox: the deliveries a partner's sandbox webhook
 * sent to the service's own receiver, newest kept, oldest dropped beyond a bound per partner.
 */
import { Context } from "effect"
import type { DateTime, Effect } from "effect"
import type { StoreError } from "./StoreError.ts"

export interface InboxDelivery {
  readonly id: string
  readonly partnerId: string
  readonly receivedAt: DateTime.Utc
  /** The webhook headers as received, names lowercase. */
  readonly headers: Readonly<Record<string, string>>
  /** The body exactly as received. */
  readonly body: string
  /** Why the signatures did not verify; null when both did. */
  readonly signatureProblem: string | null
}

export interface WebhookInboxRepoShape {
  /** Records a delivery, then drops the partner's oldest beyond the newest `keep`. */
  readonly record: (delivery: InboxDelivery, keep: number) => Effect.Effect<void, StoreError>
  /** The partner's deliveries, newest first, at most `limit`. */
  readonly list: (partnerId: string, limit: number) => Effect.Effect<ReadonlyArray<InboxDelivery>, StoreError>
}

export class WebhookInboxRepo extends Context.Service<WebhookInboxRepo, WebhookInboxRepoShape>()(
  "@ratelock/core/WebhookInboxRepo"
) {}
