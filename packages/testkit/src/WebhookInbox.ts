/**
 * The partner's webhook endpoint, in memory: core's `WebhookTransport` for the in-memory
 * Ratelock. Every delivery attempt is captured with its URL, headers and raw body; it is verified
 * with core's `WebhookSignature` (the verifier partners use: the Standard Webhooks signature and
 * `X-Partner-Signature`) against the secret the partner was issued, and decoded with core's
 * `OutboundEvent` schema. A verified, decodable delivery is answered 200, or what the test asked
 * for (`respondWith`, `failNext`: an endpoint that is down); anything else 400 with the reason
 * kept in `problem`.
 */
import { OutboundEvent, type Partner, WebhookSignature, WebhookTransport } from "@ratelock/core"
import { Context, Data, DateTime, Duration, Effect, Layer, Option } from "effect"
import { Mac } from "effect/crypto"
import { Simulation } from "./Simulation.ts"

/** One delivery attempt as the endpoint received it. */
export interface Delivery {
  readonly url: string
  readonly environment: Partner.Environment
  /** The request headers, lowercase names. */
  readonly headers: Readonly<Record<string, string>>
  /** The raw body, exactly as signed. */
  readonly body: string
  readonly receivedAt: DateTime.Utc
  /** What the endpoint answered. */
  readonly status: number
  /** Why the delivery was refused (signature, body), or null when it verified and decoded. */
  readonly problem: string | null
  /** The decoded event, when it verified and decoded. */
  readonly event: OutboundEvent.OutboundEvent | undefined
}

export type EventType = OutboundEvent.OutboundEventType

/** The event of one type. */
export type EventOf<K extends EventType> = Extract<OutboundEvent.OutboundEvent, { readonly event_type: K }>

export interface WebhookInboxShape {
  /** Every delivery attempt, in arrival order, whatever was answered. */
  readonly deliveries: Effect.Effect<ReadonlyArray<Delivery>>
  /** Answers every later delivery with `status` (e.g. 503: the endpoint is down; 200: back up). */
  readonly respondWith: (status: number) => Effect.Effect<void>
  /** Answers the next `count` deliveries with `status` (default 500), then as before. */
  readonly failNext: (count: number, status?: number) => Effect.Effect<void>
  /** Forgets the deliveries received so far. */
  readonly clear: Effect.Effect<void>
  /** Deliveries to `url` are verified with `secret` (the partner's copy of its webhook secret). */
  readonly register: (url: string, secret: string) => Effect.Effect<void>
}

export class WebhookInbox extends Context.Service<WebhookInbox, WebhookInboxShape>()(
  "@ratelock/testkit/WebhookInbox"
) {}

const lowercase = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))

/** The inbox, also as core's `WebhookTransport`. */
export const layer: Layer.Layer<WebhookInbox | WebhookTransport.WebhookTransport, never, Mac.Mac> = Layer.effectContext(
  Effect.gen(function* () {
    const mac = Context.make(Mac.Mac, yield* Mac.Mac)
    const received: Array<Delivery> = []
    const secrets = new Map<string, string>()
    const scripted: Array<number> = []
    let answer = 200

    /** Why a delivery is not authentic or not an event; or the event. */
    const check = Effect.fnUntraced(function* (request: WebhookTransport.WebhookRequest) {
      const secret = secrets.get(request.url)
      if (secret === undefined) return { problem: `no partner endpoint is registered at ${request.url}` }
      const headers = lowercase(request.headers)
      const standard = yield* WebhookSignature.verify({ headers, body: request.body, secrets: secret }).pipe(
        Effect.match({ onFailure: (e) => `webhook-signature: ${e.message}`, onSuccess: () => null })
      )
      if (standard !== null) return { problem: standard }
      const partner = yield* WebhookSignature.verifyPartnerSignature(
        request.body,
        headers["x-partner-signature"] ?? "",
        secret
      ).pipe(Effect.match({ onFailure: (e) => `x-partner-signature: ${e.message}`, onSuccess: () => null }))
      if (partner !== null) return { problem: partner }
      if (headers["content-type"] !== "application/json") return { problem: "content-type is not application/json" }
      return yield* OutboundEvent.decodeJson(request.body).pipe(
        Effect.match({
          onFailure: (e) => ({ problem: `not an outbound event: ${e.message}` }),
          onSuccess: (event) => ({ event })
        })
      )
    })

    const post = (request: WebhookTransport.WebhookRequest) =>
      Effect.gen(function* () {
        const checked = yield* check(request)
        const problem = "problem" in checked ? checked.problem : null
        const status = problem !== null ? 400 : (scripted.shift() ?? answer)
        received.push({
          url: request.url,
          environment: request.environment,
          headers: lowercase(request.headers),
          body: request.body,
          receivedAt: yield* DateTime.now,
          status,
          problem,
          event: "event" in checked ? checked.event : undefined
        })
        return { status }
      }).pipe(Effect.provideContext(mac))

    const inbox = WebhookInbox.of({
      deliveries: Effect.sync(() => [...received]),
      respondWith: (status) =>
        Effect.sync(() => {
          answer = status
        }),
      failNext: (count, status = 500) =>
        Effect.sync(() => {
          for (let i = 0; i < count; i++) scripted.push(status)
        }),
      clear: Effect.sync(() => {
        received.length = 0
      }),
      register: (url, secret) => Effect.sync(() => void secrets.set(url, secret))
    })
    return Context.make(WebhookInbox, inbox).pipe(
      Context.add(WebhookTransport.WebhookTransport, WebhookTransport.WebhookTransport.of({ post }))
    )
  })
)

const accepted = (delivery: Delivery) => delivery.status >= 200 && delivery.status < 300

/** Every delivery attempt, in arrival order, whatever was answered. */
export const deliveries: Effect.Effect<ReadonlyArray<Delivery>, never, WebhookInbox> = WebhookInbox.use(
  (inbox) => inbox.deliveries
)

/**
 * The events the endpoint accepted (answered 2xx), decoded, in arrival order; of one contract
 * when `contractId` is given. A redelivered event appears again.
 */
export const events = (
  contractId?: string
): Effect.Effect<ReadonlyArray<OutboundEvent.OutboundEvent>, never, WebhookInbox> =>
  Effect.map(deliveries, (all) =>
    all.flatMap((d) =>
      accepted(d) && d.event !== undefined && (contractId === undefined || d.event.fx_contract_id === contractId)
        ? [d.event]
        : []
    )
  )

/** Deliveries refused for a bad signature or body: an empty list means every delivery verified. */
export const rejected: Effect.Effect<ReadonlyArray<Delivery>, never, WebhookInbox> = Effect.map(deliveries, (all) =>
  all.filter((d) => d.problem !== null)
)

/** Answers every later delivery with `status` (e.g. 503: the endpoint is down; 200: back up). */
export const respondWith = (status: number): Effect.Effect<void, never, WebhookInbox> =>
  WebhookInbox.use((inbox) => inbox.respondWith(status))

/** Answers the next `count` deliveries with `status` (default 500), then as before. */
export const failNext = (count: number, status?: number): Effect.Effect<void, never, WebhookInbox> =>
  WebhookInbox.use((inbox) => inbox.failNext(count, status))

/** Forgets the deliveries received so far. */
export const clear: Effect.Effect<void, never, WebhookInbox> = WebhookInbox.use((inbox) => inbox.clear)

/** No accepted delivery of the event within the bound. */
export class EventNotDelivered extends Data.TaggedError("EventNotDelivered")<{
  readonly eventType: EventType
  readonly contractId: string
  readonly message: string
}> {}

export interface AwaitOptions {
  /** How far the clock may be advanced while waiting (default 1 hour; 0: run the workers only). */
  readonly within?: Duration.Input
  /** Which accepted delivery of that type to wait for: 1 (default) for the first, 2 for the second … */
  readonly occurrence?: number
}

const find = <K extends EventType>(eventType: K, contractId: string, occurrence: number) =>
  Effect.map(events(contractId), (all) =>
    Option.fromNullishOr(all.filter((e): e is EventOf<K> => e.event_type === eventType)[occurrence - 1])
  )

const describe = (all: ReadonlyArray<Delivery>, contractId: string) => {
  const own = all.filter((d) => d.event?.fx_contract_id === contractId || d.body.includes(contractId))
  return own.length === 0
    ? "nothing was delivered for it"
    : `delivered for it: ${own.map((d) => `${d.event?.event_type ?? "?"} (${d.status}${d.problem ? `: ${d.problem}` : ""})`).join(", ")}`
}

/**
 * Waits for the endpoint to accept an event of `eventType` for the contract, and returns it
 * decoded. It runs the workers, then advances the clock from one scheduled instant to the next
 * (a payout retry, a webhook retry, a window end …) up to `within`; failing that, it fails with
 * what was delivered for the contract.
 */
export const awaitEvent = Effect.fn("WebhookInbox.awaitEvent")(function* <K extends EventType>(
  eventType: K,
  contractId: string,
  options: AwaitOptions = {}
): Effect.fn.Return<EventOf<K>, EventNotDelivered, WebhookInbox | Simulation> {
  const simulation = yield* Simulation
  const occurrence = options.occurrence ?? 1
  const start = yield* simulation.now
  const deadline = DateTime.addDuration(start, Duration.fromInputUnsafe(options.within ?? "1 hour"))
  yield* simulation.runWorkers
  for (;;) {
    const found = yield* find(eventType, contractId, occurrence)
    if (Option.isSome(found)) return found.value
    const next = yield* simulation.nextDue
    if (Option.isNone(next) || next.value.epochMilliseconds > deadline.epochMilliseconds) break
    yield* simulation.advanceTo(next.value)
  }
  const all = yield* deliveries
  const bound = Duration.format(Duration.fromInputUnsafe(options.within ?? "1 hour"))
  return yield* new EventNotDelivered({
    eventType,
    contractId,
    message:
      `no ${eventType} accepted for contract ${contractId} within ${bound} of ${DateTime.formatIso(start)} ` +
      `(occurrence ${occurrence}); ${describe(all, contractId)}`
  })
})
