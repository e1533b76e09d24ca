/**
 * Persistence port for what is waiting, per environment: outbound webhook events not yet
 * delivered (the outbox), payouts not yet confirmed, and funds that funded nothing. Read by the
 * operator's status and sampled into gauges; every count runs on an index (or a small table).
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"
import { Environment } from "./Partner.ts"
import type { StoreError } from "./StoreError.ts"

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

export interface BacklogRepoShape {
  /** One entry per environment (`sandbox`, then `production`), zeros included. */
  readonly backlog: () => Effect.Effect<ReadonlyArray<EnvironmentBacklog>, StoreError>
}

export class BacklogRepo extends Context.Service<BacklogRepo, BacklogRepoShape>()("@ratelock/core/BacklogRepo") {}
