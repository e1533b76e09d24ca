/**
 * What an operator on call reads first (`GET /operator/v1/status`): the market snapshot in force
 * and whether production may still price from it, what is waiting per environment (outbox,
 * payouts, unmatched funds) and the workers seen lately with each pass's last run. The host adds
 * what only it knows (versions, the database and its migrations). Beside it, the partners whose
 * webhook deliveries fail (`deliveries`). Ages are whole seconds.
 *
 * `degraded` says whether anything needs an operator now, and `alerts` what: a hot wallet under its
 * threshold, payouts stuck on the fee cap or on funds (`Treasury.alerts`, from the workers' last
 * reading of the wallets).
 */
import { DateTime, Duration, Effect, Option } from "effect"
import { DailyCloseRepo } from "../finance/DailyCloseRepo.ts"
import { BacklogRepo } from "./BacklogRepo.ts"
import * as MarketFreshness from "../market/MarketFreshness.ts"
import { MarketSnapshotRepo } from "../market/MarketSnapshotRepo.ts"
import type { Environment } from "../terms/Partner.ts"
import * as Treasury from "./Treasury.ts"
import { WorkerHeartbeatRepo } from "./WorkerHeartbeatRepo.ts"

/** Workers whose last pass is older than this are not listed (and their heartbeats are pruned). */
export const workersSeenWithin = Duration.hours(24)

/** How far back the status looks for an environment's latest daily close: a day's cut and its margin. */
export const closesSeenWithin = Duration.hours(48)

export interface MarketStatus {
  readonly snapshot_id: string
  readonly as_of: string
  readonly source: string
  readonly imported_at: string
  readonly age_seconds: number
  readonly max_age_seconds: number
  /** Whether production may price from it now (`RATELOCK_MARKET_MAX_AGE_SECONDS`). */
  readonly fresh: boolean
}

export interface EnvironmentStatus {
  readonly environment: Environment
  readonly outbox: { readonly undelivered: number; readonly oldest_undelivered_age_seconds: number | null }
  readonly payouts: {
    readonly awaiting_confirmation: number
    readonly oldest_awaiting_age_seconds: number | null
    readonly failed: number
  }
  readonly unmatched_funds: number
  /** The latest close within `closesSeenWithin`: null tells the operator the daily close is not running. */
  readonly last_close: {
    readonly id: string
    readonly closed_at: string
    readonly scheduled_for: string | null
    readonly age_seconds: number
  } | null
}

export interface PassStatus {
  readonly pass: string
  readonly last_pass_at: string
  readonly age_seconds: number
  readonly ok: boolean
}

export interface WorkerStatus {
  readonly owner: string
  /** Its latest pass of any kind. */
  readonly last_seen_at: string
  readonly age_seconds: number
  readonly passes: ReadonlyArray<PassStatus>
}

export interface Status {
  readonly checked_at: string
  /** Whether any alert stands. */
  readonly degraded: boolean
  /** What needs an operator: hot wallets under their threshold, stuck payouts. */
  readonly alerts: ReadonlyArray<Treasury.Alert>
  /** None before the first import (the sandbox then prices from the built-in illustrative one). */
  readonly market: MarketStatus | null
  readonly environments: ReadonlyArray<EnvironmentStatus>
  readonly workers: ReadonlyArray<WorkerStatus>
}

/** Whole seconds from `then` to `now`, never negative (clock skew between processes). */
export const ageSeconds = (then: DateTime.Utc, now: DateTime.Utc): number =>
  Math.max(0, Math.floor((now.epochMilliseconds - then.epochMilliseconds) / 1000))

const ageOrNull = (then: DateTime.Utc | null, now: DateTime.Utc) => (then === null ? null : ageSeconds(then, now))

export const status = Effect.fn("OperatorStatus.status")(function* (options: {
  /** Production's freshness limit (`MarketFreshness`). */
  readonly marketMaxAge: Duration.Duration
}) {
  const now = yield* DateTime.now
  const latest = yield* (yield* MarketSnapshotRepo).latest()
  const backlog = yield* (yield* BacklogRepo).backlog()
  const beats = yield* (yield* WorkerHeartbeatRepo).list(DateTime.subtractDuration(now, workersSeenWithin))
  const alerts = Treasury.alerts(yield* Treasury.glance())
  const closes = yield* DailyCloseRepo
  const lastCloses = new Map(
    yield* Effect.forEach(backlog, (b) =>
      Effect.map(
        closes.list({ environment: b.environment, from: DateTime.subtractDuration(now, closesSeenWithin) }),
        (list) => [b.environment, list.at(-1)] as const
      )
    )
  )
  const market =
    latest._tag === "None"
      ? null
      : ({
          snapshot_id: latest.value.id,
          as_of: DateTime.formatIso(latest.value.asOf),
          source: latest.value.source,
          imported_at: DateTime.formatIso(latest.value.importedAt),
          age_seconds: ageSeconds(latest.value.asOf, now),
          max_age_seconds: Math.floor(Duration.toSeconds(options.marketMaxAge)),
          fresh: MarketFreshness.isFresh(latest.value.document, now, options.marketMaxAge)
        } satisfies MarketStatus)
  const owners = new Map<string, Array<PassStatus>>()
  for (const beat of beats) {
    const passes = owners.get(beat.owner) ?? []
    passes.push({
      pass: beat.pass,
      last_pass_at: DateTime.formatIso(beat.lastPassAt),
      age_seconds: ageSeconds(beat.lastPassAt, now),
      ok: beat.ok
    })
    owners.set(beat.owner, passes)
  }
  const workers = [...owners].map(([owner, passes]): WorkerStatus => {
    const latestPass = passes.reduce((a, b) => (a.age_seconds <= b.age_seconds ? a : b))
    return { owner, last_seen_at: latestPass.last_pass_at, age_seconds: latestPass.age_seconds, passes }
  })
  return {
    checked_at: DateTime.formatIso(now),
    degraded: alerts.length > 0,
    alerts,
    market,
    environments: backlog.map(
      (b): EnvironmentStatus => ({
        environment: b.environment,
        outbox: {
          undelivered: b.undeliveredEvents,
          oldest_undelivered_age_seconds: ageOrNull(b.oldestUndeliveredAt, now)
        },
        payouts: {
          awaiting_confirmation: b.payoutsAwaitingConfirmation,
          oldest_awaiting_age_seconds: ageOrNull(b.oldestAwaitingPayoutAt, now),
          failed: b.payoutsFailed
        },
        unmatched_funds: b.unmatchedFunds,
        last_close: Option.match(Option.fromUndefinedOr(lastCloses.get(b.environment)), {
          onNone: () => null,
          onSome: (c) => ({
            id: c.id,
            closed_at: DateTime.formatIso(c.closed_at),
            scheduled_for: c.scheduled_for === null ? null : DateTime.formatIso(c.scheduled_for),
            age_seconds: ageSeconds(c.closed_at, now)
          })
        })
      })
    ),
    workers
  } satisfies Status
})

/** A partner whose webhooks are not getting through (`GET /operator/v1/deliveries`). */
export interface PartnerDeliveries {
  readonly partner_id: string
  readonly partner_name: string
  /** Events whose last attempt failed and that will be tried again. */
  readonly retrying: number
  readonly oldest_retrying_age_seconds: number | null
  /** Events given up on after the retry schedule: the partner never got them. */
  readonly failed: number
  /** What the partner's endpoint last answered (`HTTP 503`, a connection error). */
  readonly last_error: string | null
}

export interface Deliveries {
  readonly checked_at: string
  readonly environment: Environment
  /** Most retrying first, then most failed. */
  readonly partners: ReadonlyArray<PartnerDeliveries>
}

/** The partners of `environment` with deliveries retrying or given up on. */
export const deliveries = Effect.fn("OperatorStatus.deliveries")(function* (environment: Environment) {
  const now = yield* DateTime.now
  const failing = yield* (yield* BacklogRepo).failingDeliveries(environment)
  return {
    checked_at: DateTime.formatIso(now),
    environment,
    partners: failing.map(
      (f): PartnerDeliveries => ({
        partner_id: f.partnerId,
        partner_name: f.partnerName,
        retrying: f.retrying,
        oldest_retrying_age_seconds: ageOrNull(f.oldestRetryingAt, now),
        failed: f.failed,
        last_error: f.lastError
      })
    )
  } satisfies Deliveries
})
