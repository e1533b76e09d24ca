/**
 * Query strings of the list endpoints. Values arrive as strings; `limit` is decoded to an integer.
 */
import { Schema } from "effect"
import { issueType } from "../kernel/ApiError.ts"
import { ContractStatus } from "./Contract.ts"
import { BoundedString, defaultPageLimit, isCharacters, PageLimit, Uuid } from "../kernel/Fields.ts"
import { QuoteStatus } from "./Quote.ts"
import { EventDirection } from "./WebhookEventRecord.ts"

/** Plain decimal digits only: no `0x10`, `1e1`, `+5` or spaces that JavaScript's number parsing would accept. */
const Limit = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,3}$/u, { expected: "an integer from 1 to 100", ...issueType("int_parsing") })
).pipe(Schema.decodeTo(Schema.NumberFromString), Schema.decodeTo(PageLimit.annotate({ default: defaultPageLimit })))
const Cursor = Schema.String.check(isCharacters(1, 512)).annotate({
  description: "The next_cursor of the previous page, as it was given"
})

/** What every list takes, after its own filters: the page size and where the page starts. */
const page = { limit: Schema.optionalKey(Limit), cursor: Schema.optionalKey(Cursor) }

export const ListQuotesQuery = Schema.Struct({
  status: Schema.optionalKey(QuoteStatus),
  customer_reference_id: Schema.optionalKey(BoundedString(256)),
  ...page
}).annotate({ identifier: "ListQuotesQuery" })
export type ListQuotesQuery = typeof ListQuotesQuery.Type

export const ListLocksQuery = Schema.Struct({
  status: Schema.optionalKey(ContractStatus),
  ...page
}).annotate({ identifier: "ListLocksQuery" })
export type ListLocksQuery = typeof ListLocksQuery.Type

export const ListWebhookEventsQuery = Schema.Struct({
  direction: Schema.optionalKey(EventDirection),
  fx_contract_id: Schema.optionalKey(Uuid),
  ...page
}).annotate({ identifier: "ListWebhookEventsQuery" })
export type ListWebhookEventsQuery = typeof ListWebhookEventsQuery.Type
