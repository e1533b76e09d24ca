/**
 * The payout feed (`GET /api/v1/fx/payout-events`): outgoing `payout_settled` and `payout_failed`
 * events, oldest first (a backfill feed), from `since` on, with a keyset cursor. Core has the
 * repository query but no program for it yet; this one follows `WebhookEvents.list`.
 */
import {
  ApiError,
  Cursor,
  EventRepo,
  Fields,
  type Page,
  type Partner,
  type StoreError,
  WebhookEvents
} from "@ratelock/core"
import { DateTime, Effect } from "effect"

export interface PayoutEventsQuery {
  readonly since?: DateTime.Utc | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

const position = (cursor: string | undefined) =>
  cursor === undefined
    ? Effect.succeed(undefined)
    : Effect.mapError(Cursor.decode(cursor), (e) =>
        ApiError.ValidationError.fromIssues([{ loc: ["query", "cursor"], msg: e.message, type: "value_error" }])
      )

export const list = Effect.fn("PayoutEvents.list")(function* (
  scope: Partner.PartnerScope,
  query: PayoutEventsQuery
): Effect.fn.Return<
  typeof Page.PaginatedWebhookEvents.Type,
  ApiError.ValidationError | StoreError.StoreError,
  EventRepo.EventRepo
> {
  const after = yield* position(query.cursor)
  const limit = query.limit ?? Fields.defaultPageLimit
  const rows = yield* (yield* EventRepo.EventRepo).listPayoutEvents(scope, {
    since: query.since,
    limit: limit + 1,
    after
  })
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  return {
    items: items.map((event) => WebhookEvents.toRecord({ _tag: "outgoing", event })),
    next_cursor:
      rows.length > limit && last !== undefined
        ? Cursor.encode({ createdAt: DateTime.formatIso(last.createdAt), id: last.id })
        : null
  }
})
