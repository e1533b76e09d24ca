/**
 * The retry schedules of the lifecycle (api-decisions.md), as configuration: hosts keep the
 * defaults; sandboxes and tests may shorten them.
 */
import { Context, Duration } from "effect"

export interface RetryPolicyShape {
  /** Waits before each payout retry; after the last, `will_retry: false`. */
  readonly payoutRetries: ReadonlyArray<Duration.Duration>
  /** Waits before the 2nd, 3rd, … webhook delivery attempt. */
  readonly deliveryRetries: ReadonlyArray<Duration.Duration>
  /** No delivery attempt later than this after the event was created. */
  readonly deliveryHorizon: Duration.Duration
}

export const defaults: RetryPolicyShape = {
  payoutRetries: [Duration.minutes(1), Duration.minutes(5), Duration.minutes(30), Duration.hours(2), Duration.hours(6)],
  deliveryRetries: [
    Duration.seconds(30),
    Duration.minutes(2),
    Duration.minutes(10),
    Duration.hours(1),
    Duration.hours(4),
    Duration.hours(12)
  ],
  deliveryHorizon: Duration.hours(24)
}

export const RetryPolicy = Context.Reference<RetryPolicyShape>("@ratelock/core/RetryPolicy", {
  defaultValue: () => defaults
})
