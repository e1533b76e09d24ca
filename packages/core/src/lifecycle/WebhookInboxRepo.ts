/**
 * Persistence port for the sandbox's webhook inbox: the deliveries a partner's sandbox webhook
 * sent to the service's own receiver, newest kept, oldest dropped beyond a bound per partner.
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"
import type { StoreError } from "../kernel/StoreError.ts"

export const InboxDelivery = Schema.Struct({
  id: Schema.String,
  partnerId: Schema.String,
  receivedAt: Schema.DateTimeUtc,
  /** The webhook headers as received, names lowercase. */
  headers: Schema.Record(Schema.String, Schema.String),
  /** The body exactly as received. */
  body: Schema.String,
  /** Why the signatures did not verify; null when both did. */
  signatureProblem: Schema.NullOr(Schema.String)
}).annotate({ identifier: "InboxDelivery" })
export type InboxDelivery = typeof InboxDelivery.Type

export interface WebhookInboxRepoShape {
  /** Records a delivery, then drops the partner's oldest beyond the newest `keep`. */
  readonly record: (delivery: InboxDelivery, keep: number) => Effect.Effect<void, StoreError>
  /** The partner's deliveries, newest first, at most `limit`. */
  readonly list: (partnerId: string, limit: number) => Effect.Effect<ReadonlyArray<InboxDelivery>, StoreError>
}

export class WebhookInboxRepo extends Context.Service<WebhookInboxRepo, WebhookInboxRepoShape>()(
  "@ratelock/core/WebhookInboxRepo"
) {}
