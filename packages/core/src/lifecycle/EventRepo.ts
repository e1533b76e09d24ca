/**
 * Persistence port for webhook events: inbound events as received, and the outbound outbox the
 * delivery worker drains, records as schemas that stores decode their rows into. Outbound rows
 * are written by `ContractRepo.commit`, in the transaction of the transition that emitted them.
 */
import { Context, Schema } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { Position } from "../kernel/Cursor.ts"
import { InboundEvent } from "../terms/InboundEvent.ts"
import type { Claim } from "../kernel/Lease.ts"
import { OutboundEvent } from "../terms/OutboundEvent.ts"
import { Environment, ownedFields, type PartnerScope } from "../terms/Partner.ts"
import type { StoreError } from "../kernel/StoreError.ts"
import type { EventDirection } from "../terms/WebhookEventRecord.ts"

/** The event types a partner posts. */
export const IncomingEventType = Schema.Literals(InboundEvent.members.map((m) => m.fields.event_type.literal))
export type IncomingEventType = typeof IncomingEventType.Type

export const IncomingStatus = Schema.Literals(["processed", "queued"])
export type IncomingStatus = typeof IncomingStatus.Type

export const IncomingEvent = Schema.Struct({
  ...ownedFields,
  contractId: Schema.String,
  eventType: IncomingEventType,
  idempotencyKey: Schema.String,
  status: IncomingStatus,
  /** The body exactly as the partner sent it. */
  payload: Schema.Unknown,
  createdAt: Schema.DateTimeUtc,
  processedAt: Schema.NullOr(Schema.DateTimeUtc),
  /** The `traceparent` of the request that recorded it (`TraceContext`), when it was traced. */
  traceContext: Schema.NullOr(Schema.String)
}).annotate({ identifier: "IncomingEvent" })
export type IncomingEvent = typeof IncomingEvent.Type

/** The event types the service delivers. */
export const OutgoingEventType = Schema.Literals(OutboundEvent.members.map((m) => m.fields.event_type.literal))
export type OutgoingEventType = typeof OutgoingEventType.Type

export const OutgoingStatus = Schema.Literals(["pending", "delivered", "retrying", "failed"])
export type OutgoingStatus = typeof OutgoingStatus.Type

export const OutgoingEvent = Schema.Struct({
  id: Schema.String,
  /** `event_id` of the payload: stable across retries. */
  eventId: Schema.String,
  partnerId: Schema.String,
  environment: Environment,
  contractId: Schema.String,
  eventType: OutgoingEventType,
  sequence: Schema.Int,
  /** The encoded event without `delivered_at`, which each attempt sets. */
  payload: Schema.Record(Schema.String, Schema.Unknown),
  status: OutgoingStatus,
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  nextAttemptAt: Schema.DateTimeUtc,
  createdAt: Schema.DateTimeUtc,
  deliveredAt: Schema.NullOr(Schema.DateTimeUtc),
  /** The body of the last attempt, as sent. */
  lastBody: Schema.NullOr(Schema.String),
  /**
   * The `traceparent` of the span that committed the transition which queued it (`TraceContext`),
   * when it was traced: each delivery attempt's span links to it.
   */
  traceContext: Schema.NullOr(Schema.String)
}).annotate({ identifier: "OutgoingEvent" })
export type OutgoingEvent = typeof OutgoingEvent.Type

export interface EventFilter {
  readonly direction?: EventDirection | undefined
  readonly contractId?: string | undefined
  readonly limit: number
  readonly after?: Position | undefined
}

export interface PayoutEventFilter {
  readonly since?: DateTime.Utc | undefined
  readonly limit: number
  /** Items strictly after this position, oldest first. */
  readonly after?: Position | undefined
}

export const IncomingView = Schema.Struct({ _tag: Schema.Literal("incoming"), event: IncomingEvent })
export type IncomingView = typeof IncomingView.Type

export const OutgoingView = Schema.Struct({ _tag: Schema.Literal("outgoing"), event: OutgoingEvent })
export type OutgoingView = typeof OutgoingView.Type

/** An event of the audit listing, of either direction. */
export const EventView = Schema.Union([IncomingView, OutgoingView])
export type EventView = typeof EventView.Type

export interface EventRepoShape {
  readonly findIncoming: (
    scope: PartnerScope,
    idempotencyKey: string
  ) => Effect.Effect<Option.Option<IncomingEvent>, StoreError>
  /** Records an inbound event that caused no transition (none do today; kept for audit-only events). */
  readonly insertIncoming: (event: IncomingEvent) => Effect.Effect<void, StoreError>
  readonly updateIncoming: (event: IncomingEvent) => Effect.Effect<void, StoreError>
  /** Both directions, newest first by `(created_at, id)`, at most `filter.limit`. */
  readonly list: (scope: PartnerScope, filter: EventFilter) => Effect.Effect<ReadonlyArray<EventView>, StoreError>
  /**
   * Claims outgoing events due at `claim.now`. Deliveries of a contract are serialised: an event is
   * claimed only when every earlier event of its contract is delivered or failed for good, so a
   * failing event holds back its own contract only.
   */
  readonly claimOutgoing: (claim: Claim) => Effect.Effect<ReadonlyArray<OutgoingEvent>, StoreError>
  /**
   * Saves the delivery state of outgoing events in one write and releases their leases: each
   * event's status, attempts, last error and body, next attempt and delivery time (a delivery pass's
   * outcomes, or a redelivery queued). The payload, which neither changes, is left as stored.
   */
  readonly updateOutgoing: (events: ReadonlyArray<OutgoingEvent>) => Effect.Effect<void, StoreError>
  /**
   * The payout feed (`GET /api/v1/fx/payout-events`): outgoing `payout_settled` and `payout_failed`
   * events, oldest first by `(created_at, id)`, from `since` on.
   */
  readonly listPayoutEvents: (
    scope: PartnerScope,
    filter: PayoutEventFilter
  ) => Effect.Effect<ReadonlyArray<OutgoingEvent>, StoreError>
  readonly findOutgoing: (scope: PartnerScope, id: string) => Effect.Effect<Option.Option<OutgoingEvent>, StoreError>
}

export class EventRepo extends Context.Service<EventRepo, EventRepoShape>()("@ratelock/core/EventRepo") {}
