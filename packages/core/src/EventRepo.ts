/**
 * Persistence port for webhook events: inbound events as received, and the outbound outbox the
 * delivery worker drains. Outbound rows are written by `ContractRepo.commit`, in the transaction
 * of the transition that emitted them.
 */
import { Context } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { Position } from "./Cursor.ts"
import type { InboundEvent } from "./InboundEvent.ts"
import type { Claim } from "./Lease.ts"
import type { OutboundEventType } from "./OutboundEvent.ts"
import type { Environment, PartnerScope } from "./Partner.ts"
import type { StoreError } from "./StoreError.ts"
import type { EventDirection } from "./WebhookEventRecord.ts"

export interface IncomingEvent {
  readonly id: string
  readonly partnerId: string
  readonly environment: Environment
  readonly contractId: string
  readonly eventType: InboundEvent["event_type"]
  readonly idempotencyKey: string
  readonly status: "processed" | "queued"
  /** The body exactly as the partner sent it. */
  readonly payload: unknown
  readonly createdAt: DateTime.Utc
  readonly processedAt: DateTime.Utc | null
}

export type OutgoingStatus = "pending" | "delivered" | "retrying" | "failed"

export interface OutgoingEvent {
  readonly id: string
  /** `event_id` of the payload: stable across retries. */
  readonly eventId: string
  readonly partnerId: string
  readonly environment: Environment
  readonly contractId: string
  readonly eventType: OutboundEventType
  readonly sequence: number
  /** The encoded event without `delivered_at`, which each attempt sets. */
  readonly payload: Record<string, unknown>
  readonly status: OutgoingStatus
  readonly attempts: number
  readonly lastError: string | null
  readonly nextAttemptAt: DateTime.Utc
  readonly createdAt: DateTime.Utc
  readonly deliveredAt: DateTime.Utc | null
  /** The body of the last attempt, as sent. */
  readonly lastBody: string | null
}

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

export type EventView =
  | { readonly _tag: "incoming"; readonly event: IncomingEvent }
  | {
      readonly _tag: "outgoing"
      readonly event: OutgoingEvent
    }

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
