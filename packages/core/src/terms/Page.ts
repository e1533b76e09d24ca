/**
 * Paginated wrappers: `items` plus an opaque `next_cursor` (null on the last page).
 */
import { Schema } from "effect"
import { LockResponse } from "./Contract.ts"
import { QuoteResponse } from "./Quote.ts"
import { WebhookEventRecord } from "./WebhookEventRecord.ts"

export const Page = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ items: Schema.Array(item), next_cursor: Schema.NullOr(Schema.String) })

export const PaginatedQuotes = Page(QuoteResponse).annotate({ identifier: "PaginatedQuotes" })
export const PaginatedLocks = Page(LockResponse).annotate({ identifier: "PaginatedLocks" })
export const PaginatedWebhookEvents = Page(WebhookEventRecord).annotate({ identifier: "PaginatedWebhookEvents" })

/** A page as the repositories return it, before responses are rendered. */
export interface Slice<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
}
