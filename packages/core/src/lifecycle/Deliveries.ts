/**
 * Outbound webhook delivery (api-decisions.md, "Outbound webhooks"): claims due outgoing events
 * (per contract in order, one at a time), signs each attempt and POSTs it with a 10 s timeout.
 * A 2xx is delivered; anything else is retried after 30 s, 2 min, 10 min, 1 h, 4 h and 12 h
 * (± 10 % jitter), and an event not delivered within 24 h of its creation is `failed`.
 */
import { DateTime, Duration, Effect, Option, Random } from "effect"
import { EventRepo, type OutgoingEvent } from "./EventRepo.ts"
import * as Lease from "../kernel/Lease.ts"
import * as Metrics from "./Metrics.ts"
import { RetryPolicy } from "./RetryPolicy.ts"
import * as TraceContext from "../kernel/TraceContext.ts"
import { liveSecrets, PartnerRepo, type WebhookEndpoint } from "../partners/PartnerRepo.ts"
import * as WebhookSignature from "./WebhookSignature.ts"
import { WebhookTransport } from "./WebhookTransport.ts"

export const timeout = Duration.seconds(10)

/** The body of one attempt: the stored payload with this attempt's `delivered_at`, `event_type` first. */
export const body = (event: OutgoingEvent, deliveredAt: DateTime.Utc): string => {
  const { event_type, event_id, ...rest } = event.payload
  return JSON.stringify({ event_type, event_id, delivered_at: DateTime.formatIso(deliveredAt), ...rest })
}

/** When the next attempt goes out, or `null` when there is none left (retries used, or past 24 h). */
export const nextAttemptAt = Effect.fnUntraced(function* (event: OutgoingEvent, attempts: number, now: DateTime.Utc) {
  const policy = yield* RetryPolicy
  const wait = policy.deliveryRetries[attempts - 1]
  if (wait === undefined) return null
  const jitter = 0.9 + 0.2 * (yield* Random.next)
  const next = DateTime.addDuration(now, Duration.millis(Math.round(Duration.toMillis(wait) * jitter)))
  const deadline = DateTime.addDuration(event.createdAt, policy.deliveryHorizon)
  return next.epochMilliseconds > deadline.epochMilliseconds ? null : next
})

type Outcome = { readonly ok: true } | { readonly ok: false; readonly error: string }

type Endpoint = Option.Option<WebhookEndpoint>

const endpointOf = (event: OutgoingEvent) =>
  PartnerRepo.use((repo) => repo.findWebhookEndpoint({ partnerId: event.partnerId, environment: event.environment }))

const attempt = Effect.fnUntraced(function* (
  event: OutgoingEvent,
  now: DateTime.Utc,
  sent: string,
  endpoint: Endpoint
) {
  if (Option.isNone(endpoint)) return { ok: false, error: "no webhook URL configured" } satisfies Outcome
  const [newest, ...older] = liveSecrets(endpoint.value, now)
  if (newest === undefined) return { ok: false, error: "no webhook secret configured" } satisfies Outcome
  const headers = yield* WebhookSignature.headers({
    eventId: event.eventId,
    body: sent,
    secrets: [newest, ...older],
    timestamp: Math.floor(now.epochMilliseconds / 1000)
  })
  return yield* (yield* WebhookTransport)
    .post({ url: endpoint.value.url, environment: event.environment, headers, body: sent, timeout })
    .pipe(
      Effect.map(
        ({ status }): Outcome => (status >= 200 && status < 300 ? { ok: true } : { ok: false, error: `HTTP ${status}` })
      ),
      Effect.catch((e) => Effect.succeed<Outcome>({ ok: false, error: e.message }))
    )
})

/**
 * One attempt of one claimed event, to the endpoint given (read once for a pass's events of one
 * partner), else to the one stored now: the event as its outcome is to be recorded. Its span links
 * to the span that committed the transition which queued the event (`TraceContext`).
 */
const attemptOne = Effect.fnUntraced(
  function* (event: OutgoingEvent, endpoint?: Endpoint) {
    const now = yield* DateTime.now
    const sent = body(event, now)
    const outcome = yield* (endpoint === undefined ? endpointOf(event) : Effect.succeed(endpoint)).pipe(
      Effect.flatMap((found) => attempt(event, now, sent, found)),
      Effect.catch((e) => Effect.succeed<Outcome>({ ok: false, error: e.message }))
    )
    const attempts = event.attempts + 1
    const next = outcome.ok ? null : yield* nextAttemptAt(event, attempts, now)
    const recorded: OutgoingEvent = {
      ...event,
      attempts,
      lastBody: sent,
      status: outcome.ok ? "delivered" : next === null ? "failed" : "retrying",
      deliveredAt: outcome.ok ? now : event.deliveredAt,
      lastError: outcome.ok ? null : outcome.error,
      nextAttemptAt: next ?? now
    }
    yield* Effect.annotateCurrentSpan("ratelock.outcome", recorded.status)
    yield* Metrics.delivery(
      event,
      recorded.status === "delivered" || recorded.status === "failed" ? recorded.status : "retrying"
    )
    return recorded
  },
  Effect.withSpan("Deliveries.attempt", (event: OutgoingEvent) => ({
    kind: "producer",
    links: TraceContext.links([event.traceContext], { "ratelock.link": "queued_by" }),
    attributes: {
      ...TraceContext.attributes(event),
      "ratelock.event_id": event.eventId,
      "ratelock.event_type": event.eventType,
      "ratelock.attempt": event.attempts + 1
    }
  }))
)

/**
 * One pass: claims due events and attempts them, contracts in parallel, each contract in order;
 * every attempt's outcome is recorded, all in one write once the pass's attempts are done.
 */
export const deliverDue = Effect.fn("Deliveries.deliverDue")(function* () {
  const { concurrency } = yield* Lease.Worker
  const repo = yield* EventRepo
  const due = yield* repo.claimOutgoing(yield* Lease.claim)
  // one endpoint read per partner and environment in the pass, not one per event
  const endpoints = new Map<string, Endpoint>()
  for (const event of due) {
    const key = `${event.partnerId}|${event.environment}`
    if (!endpoints.has(key)) {
      const found = yield* endpointOf(event).pipe(Effect.option)
      if (Option.isSome(found)) endpoints.set(key, found.value)
    }
  }
  const done = yield* Effect.forEach(
    due,
    (event) => attemptOne(event, endpoints.get(`${event.partnerId}|${event.environment}`)),
    { concurrency }
  )
  yield* repo.updateOutgoing(done)
  return done.length
})
