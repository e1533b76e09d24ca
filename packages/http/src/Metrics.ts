/**
 * The host's metrics: HTTP requests on both listeners, the rate limiter's refusals, the market
 * feed's failures, and gauges sampled from the store (backlogs per environment, the market
 * snapshot's age, the hot wallets' balances and the payouts stuck). The lifecycle's own metrics are recorded by core's programs (core's
 * `Metrics.ts`). `/metrics` on the operator listener shows them all (Effect's `PrometheusMetrics`),
 * and the OTLP exporter, when on, pushes the same. The README's table lists every name and label.
 *
 * Counters are per process (Prometheus sums them across processes); the sampled gauges are the
 * database's, the same in every process (take their `max`, not their `sum`).
 */
import {
  BacklogRepo,
  type CorridorLimitRepo,
  CorridorLimits,
  Environment,
  HedgeOrderRepo,
  HedgePolicy,
  type HotWalletRepo,
  MarketSnapshotRepo,
  Metrics as CoreMetrics,
  Money,
  type MovementRepo,
  OperatorStatus,
  type PayoutRepo,
  type ReconciliationRepo,
  RiskRevaluationRepo,
  type StoreError,
  Treasury
} from "@ratelock/core"
import { Clock, Context, DateTime, Duration, Effect, Layer, Metric, Option, Schedule } from "effect"
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"

const counter = (name: string, description: string) => Metric.counter(name, { description, incremental: true })

/**
 * The metric of one label set, made the first time the set is seen and kept: Effect works out a
 * metric's series key (its labels sorted, as JSON) once per metric object, so a
 * `Metric.withAttributes` made on every request paid that on every request. The sets are few:
 * listener, method (Node's parser refuses unknown ones), route template, status.
 */
const perLabelSet = <M>(make: (labels: Record<string, string>) => M) => {
  const made = new Map<string, M>()
  return (labels: Record<string, string>): M => {
    const key = Object.values(labels).join("\n")
    let metric = made.get(key)
    if (metric === undefined) {
      metric = make(labels)
      made.set(key, metric)
    }
    return metric
  }
}

/** Per label set (`listener`, `method`, `route`, `status`): a metric of its own (`perLabelSet`). */
const requests = perLabelSet((attributes) =>
  Metric.counter("ratelock_http_requests_total", {
    description:
      "HTTP requests answered, by listener (partner or operator), method, route template (unmatched: no route) and status",
    incremental: true,
    attributes
  })
)

/** Per label set (`listener`, `method`, `route`). */
const requestDuration = perLabelSet((attributes) =>
  Metric.histogram("ratelock_http_request_duration_seconds", {
    description: "Time to answer an HTTP request, by listener, method and route template",
    boundaries: CoreMetrics.secondsBoundaries,
    attributes
  })
)

export const rateLimited = counter(
  "ratelock_rate_limited_total",
  "Requests refused with 429 by the per-key rate limit, by partner and environment"
)

/** Market feed polls that failed: unreachable, an HTTP error, not JSON, or a document refused. */
export const marketFeedFailures = counter(
  "ratelock_market_feed_failures_total",
  "Market feed polls that failed or served a refused document"
)

const gauge = (name: string, description: string) => Metric.gauge(name, { description })

export const outboxUndelivered = gauge(
  "ratelock_outbox_undelivered_events",
  "Outbound webhook events not yet delivered (pending or retrying), by environment"
)
export const outboxOldestAge = gauge(
  "ratelock_outbox_oldest_undelivered_age_seconds",
  "Age of the oldest undelivered outbound webhook event, by environment (0 when none)"
)
export const payoutsAwaiting = gauge(
  "ratelock_payouts_awaiting_confirmation",
  "Payouts not yet confirmed on-chain (pending or prepared), by environment"
)
export const payoutsOldestAge = gauge(
  "ratelock_payouts_oldest_awaiting_age_seconds",
  "Age of the oldest payout awaiting confirmation, by environment (0 when none)"
)
export const payoutsFailed = gauge(
  "ratelock_payouts_failed",
  "Payouts given up on after the retry schedule (an operator's to settle), by environment"
)
export const unmatchedFunds = gauge(
  "ratelock_unmatched_funds",
  "Transfers recorded as unmatched (to refund: ratelock funds unmatched), by environment"
)
export const marketSnapshotAge = gauge(
  "ratelock_market_snapshot_age_seconds",
  "Age of the market snapshot in force (its as_of); +Inf before the first import"
)

export const bookMtm = gauge(
  "ratelock_book_mtm_usd",
  "The book's mark-to-market in USD (the value to the service of its open locks, at most 0), by environment, from the workers' latest revaluation"
)
export const pairDelta = gauge(
  "ratelock_book_delta",
  "The book's delta per market pair in its BASE units (positive: the service loses when BASE falls), by environment and pair"
)
export const worstStress = gauge(
  "ratelock_book_worst_stress_usd",
  "The book's worst stress result: the mtm change in USD of the worst scenario (negative: a loss), by environment"
)
export const residualDelta = gauge(
  "ratelock_hedge_residual_delta",
  "The delta left once hedged (delta + hedge position), BASE units, by environment and pair"
)
export const orderWaiting = gauge(
  "ratelock_hedge_order_waiting_seconds",
  "How long the pair's hedge order has waited for an outcome (a manual one: for a trader), 0 when none waits, by environment and pair"
)
export const limitUsage = gauge(
  "ratelock_corridor_limit_usage_ratio",
  "Open notional over the corridor's tightest of max_open_notional and max_net_delta (absent: unlimited), by environment and corridor"
)
export const revaluationAge = gauge(
  "ratelock_book_revaluation_age_seconds",
  "Age of the workers' latest revaluation of the book, by environment (+Inf before the first)"
)

export const hotWalletBalance = gauge(
  "ratelock_hot_wallet_balance",
  "A hot wallet's balance at the workers' last reading, in units of the asset (NATIVE: the chain's own currency), by environment, chain and asset"
)
export const payoutsStuck = gauge(
  "ratelock_payouts_stuck",
  "Payouts waiting on the fee cap or on the hot wallet's funds, by environment and chain (0 once none is)"
)

export const reconciliationDifferences = gauge(
  "ratelock_reconciliation_differences",
  "Differences between the books and the chain at the last reconciliation, by environment, chain and token (the chain's own currency for fees), 0 once none is"
)

/** Rails and tokens whose differences were sampled non-zero: set back to 0 once none differs. */
const differencesSeen = new Set<string>()

/** Chains whose stuck payouts were sampled non-zero: set back to 0 once none is stuck. */
const stuckSeen = new Set<string>()

/** The treasury's gauges: each balance read (as a number, for the gauge only) and the payouts stuck per chain. */
const sampleTreasury = Effect.gen(function* () {
  const view = yield* Treasury.glance()
  for (const w of view.wallets) {
    if (w.balance === null) continue
    yield* Metric.update(
      Metric.withAttributes(hotWalletBalance, { environment: w.environment, chain: w.chain, asset: w.asset }),
      Number(w.balance)
    )
  }
  const stuckNow = new Set<string>()
  for (const s of view.stuck_payouts) {
    stuckNow.add(`${s.environment}|${s.chain}`)
    yield* Metric.update(Metric.withAttributes(payoutsStuck, { environment: s.environment, chain: s.chain }), s.stuck)
  }
  for (const seen of stuckSeen) {
    if (stuckNow.has(seen)) continue
    const [environment, chain] = seen.split("|") as [string, string]
    yield* Metric.update(Metric.withAttributes(payoutsStuck, { environment, chain }), 0)
  }
  stuckSeen.clear()
  for (const now of stuckNow) stuckSeen.add(now)
  const counts = new Map<string, number>()
  for (const run of view.reconciliation) {
    for (const d of run.differences) {
      const key = `${run.environment}|${run.chain}|${d.currency}`
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
  }
  for (const key of differencesSeen) if (!counts.has(key)) counts.set(key, 0)
  differencesSeen.clear()
  for (const [key, count] of counts) {
    const [environment, chain, token] = key.split("|") as [string, string, string]
    yield* Metric.update(Metric.withAttributes(reconciliationDifferences, { environment, chain, token }), count)
    if (count > 0) differencesSeen.add(key)
  }
})

/** The book's gauges from the stored revaluation, the hedge positions and the corridors' limits. */
const sampleBook = Effect.gen(function* () {
  const now = yield* DateTime.now
  const orders = yield* HedgeOrderRepo.HedgeOrderRepo
  const { corridors } = yield* CorridorLimits.show()
  for (const environment of Environment.productionFirst) {
    const stored = yield* (yield* RiskRevaluationRepo.RiskRevaluationRepo).latest(environment)
    const labels = { environment }
    yield* Metric.update(
      Metric.withAttributes(revaluationAge, labels),
      Option.match(stored, {
        onNone: () => Number.POSITIVE_INFINITY,
        onSome: (r) => (now.epochMilliseconds - r.computedAt.epochMilliseconds) / 1000
      })
    )
    if (Option.isNone(stored)) continue
    const report = stored.value.report
    yield* Metric.update(Metric.withAttributes(bookMtm, labels), Money.toModel(report.mtm_usd))
    yield* Metric.update(
      Metric.withAttributes(worstStress, labels),
      report.stress.length === 0 ? 0 : Money.toModel(report.stress[0]!.mtm_change_usd)
    )
    for (const pair of report.pairs) {
      const pairLabels = { environment, pair: pair.pair }
      const position = yield* orders.position(environment, pair.pair)
      yield* Metric.update(Metric.withAttributes(pairDelta, pairLabels), Money.toModel(pair.delta))
      yield* Metric.update(
        Metric.withAttributes(residualDelta, pairLabels),
        Money.toModel(HedgePolicy.residual(pair.delta, position))
      )
      // at most one order a pair waits; its age is what to alert on (a trader away, a venue silent)
      const waiting = yield* orders.outstanding(environment, pair.pair)
      yield* Metric.update(
        Metric.withAttributes(orderWaiting, pairLabels),
        waiting.reduce((age, o) => Math.max(age, (now.epochMilliseconds - o.createdAt.epochMilliseconds) / 1000), 0)
      )
    }
  }
  for (const c of corridors) {
    // the tighter limit is the fuller one; a limit of 0 is full whatever is held
    if (c.usage.length === 0) continue
    yield* Metric.update(
      Metric.withAttributes(limitUsage, { environment: c.environment, corridor: c.corridor }),
      Math.max(...c.usage.map((u) => (u.ratio === null ? Number.POSITIVE_INFINITY : Number(u.ratio))))
    )
  }
})

/** Sets the sampled gauges from the store, now. */
export type SampleRequirements =
  | BacklogRepo.BacklogRepo
  | MarketSnapshotRepo.MarketSnapshotRepo
  | RiskRevaluationRepo.RiskRevaluationRepo
  | HedgeOrderRepo.HedgeOrderRepo
  | CorridorLimitRepo.CorridorLimitRepo
  | HotWalletRepo.HotWalletRepo
  | PayoutRepo.PayoutRepo
  | MovementRepo.MovementRepo
  | ReconciliationRepo.ReconciliationRepo

export const sample: Effect.Effect<void, StoreError.StoreError, SampleRequirements> = Effect.gen(function* () {
  const backlog = yield* (yield* BacklogRepo.BacklogRepo).backlog()
  const latest = yield* (yield* MarketSnapshotRepo.MarketSnapshotRepo).latest()
  const now = DateTime.makeUnsafe(yield* Clock.currentTimeMillis)
  const age = (at: DateTime.Utc | null) => (at === null ? 0 : OperatorStatus.ageSeconds(at, now))
  for (const b of backlog) {
    const labels = { environment: b.environment }
    const set = (metric: Metric.Gauge<number>, value: number) =>
      Metric.update(Metric.withAttributes(metric, labels), value)
    yield* set(outboxUndelivered, b.undeliveredEvents)
    yield* set(outboxOldestAge, age(b.oldestUndeliveredAt))
    yield* set(payoutsAwaiting, b.payoutsAwaitingConfirmation)
    yield* set(payoutsOldestAge, age(b.oldestAwaitingPayoutAt))
    yield* set(payoutsFailed, b.payoutsFailed)
    yield* set(unmatchedFunds, b.unmatchedFunds)
  }
  yield* Metric.update(
    marketSnapshotAge,
    Option.match(latest, {
      onNone: () => Number.POSITIVE_INFINITY,
      onSome: (snapshot) => (now.epochMilliseconds - snapshot.asOf.epochMilliseconds) / 1000
    })
  )
  yield* sampleBook
  yield* sampleTreasury
})

/** How often the gauges are sampled between scrapes (what an OTLP push reads). */
export const sampleEvery = Duration.seconds(15)

/** `sample` every `sampleEvery` for the layer's lifetime; a failed sample is logged, the loop goes on. */
export const layerSampler: Layer.Layer<never, never, SampleRequirements> = Layer.effectDiscard(
  sample.pipe(
    Effect.catchCause((cause) => Effect.logWarning("metrics: sampling the store failed", cause)),
    Effect.repeat(Schedule.spaced(sampleEvery)),
    Effect.forkScoped
  )
)

// ---------------------------------------------------------------------------------------------
// Requests: the route template is known inside the route only; the outer middleware records it

/** Per request: the template of the route it matched, written by `routeTemplate` inside the route. */
class MatchedRoute extends Context.Service<MatchedRoute, { template: string | undefined }>()(
  "@ratelock/http/MatchedRoute"
) {}

/**
 * Route middleware (provide it to the layers that add routes): notes the matched route's template
 * (`/api/v1/fx/quotes/:quote_id`, never the path itself, which may carry ids and references).
 */
export const routeTemplate = HttpRouter.middleware((handler) =>
  Effect.contextWith((context: Context.Context<never>) => {
    const cell = Context.getOrUndefined(context as Context.Context<MatchedRoute>, MatchedRoute)
    const route = Context.getOrUndefined(context as Context.Context<HttpRouter.RouteContext>, HttpRouter.RouteContext)
    if (cell !== undefined && route !== undefined) cell.template = route.route.path
    return handler
  })
).layer

/** Server middleware: counts and times every request of `listener` once it is answered. */
export const measureRequests =
  (listener: "partner" | "operator") =>
  <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E,
    Exclude<R, MatchedRoute> | HttpServerRequest.HttpServerRequest
  > =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const cell = { template: undefined as string | undefined }
      const started = yield* Clock.currentTimeNanos
      const response = yield* Effect.provideService(app, MatchedRoute, cell)
      const seconds = Number((yield* Clock.currentTimeNanos) - started) / 1e9
      const labels = { listener, method: request.method, route: cell.template ?? "unmatched" }
      yield* Metric.update(requests({ ...labels, status: String(response.status) }), 1)
      yield* Metric.update(requestDuration(labels), seconds)
      return response
    })
