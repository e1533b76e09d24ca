/**
 * Persistence port for what is waiting, per environment: outbound webhook events not yet
 * delivered (the outbox) and the partners whose deliveries fail, payouts not yet confirmed, and
 * funds that funded nothing. Read by the operator's status and sampled into gauges; every count
 * runs on an index (or a small table).
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"
import { Environment } from "../terms/Partner.ts"
import type { StoreError } from "../kernel/StoreError.ts"

export const EnvironmentBacklog = Schema.Struct({
  environment: Environment,
  /** Outgoing events `pending` or `retrying`. */
  undeliveredEvents: Schema.Int,
  /** When the oldest of them was created; null when there is none. */
  oldestUndeliveredAt: Schema.NullOr(Schema.DateTimeUtc),
  /** Payouts `pending` (not signed yet) or `prepared` (signed, maybe broadcast): not confirmed. */
  payoutsAwaitingConfirmation: Schema.Int,
  /** When the oldest of them was created; null when there is none. */
  oldestAwaitingPayoutAt: Schema.NullOr(Schema.DateTimeUtc),
  /** Payouts given up on after the retry schedule: an operator's to settle. */
  payoutsFailed: Schema.Int,
  /** Transfers recorded as unmatched (`ratelock funds unmatched`): funds to refund. */
  unmatchedFunds: Schema.Int
}).annotate({ identifier: "EnvironmentBacklog" })
export type EnvironmentBacklog = typeof EnvironmentBacklog.Type

/** A partner whose webhooks are not getting through, in one environment. */
export const FailingDeliveries = Schema.Struct({
  partnerId: Schema.String,
  partnerName: Schema.String,
  /** Outgoing events whose last attempt failed and that will be tried again (`retrying`). */
  retrying: Schema.Int,
  /** When the oldest of them was created; null when there is none. */
  oldestRetryingAt: Schema.NullOr(Schema.DateTimeUtc),
  /** Outgoing events given up on after the retry schedule (`failed`). */
  failed: Schema.Int,
  /**
   * The last error of the partner's newest retrying event (its attempts are the most recent), else of
   * its newest failed one: what the partner's endpoint answered.
   */
  lastError: Schema.NullOr(Schema.String)
}).annotate({ identifier: "FailingDeliveries" })
export type FailingDeliveries = typeof FailingDeliveries.Type

export interface BacklogRepoShape {
  /** One entry per environment (`sandbox`, then `production`), zeros included. */
  readonly backlog: () => Effect.Effect<ReadonlyArray<EnvironmentBacklog>, StoreError>
  /**
   * The partners of `environment` with an outgoing event retrying or failed, most retrying first
   * (then most failed, then by name and id). Reads the retrying events on the outbox's index and the
   * failed ones on `webhook_events_failed`.
   */
  readonly failingDeliveries: (environment: Environment) => Effect.Effect<ReadonlyArray<FailingDeliveries>, StoreError>
}

export class BacklogRepo extends Context.Service<BacklogRepo, BacklogRepoShape>()("@ratelock/core/BacklogRepo") {}
