/**
 * `@ratelock/testkit/promise`: the in-memory Ratelock for tests that do not use Effect (plain
 * vitest, `node:test`, jest). Every method returns a promise; requests and responses are the
 * JSON a partner sends and reads (decimal strings, ISO datetimes). A refused API call rejects
 * with an `ApiFailure` (an `Error` with `status`, `code`, `message` and `detail`).
 *
 * ```ts
 * const ratelock = await createRatelock()
 * const contract = await ratelock.activeContract({ contract_type: "forward" })
 * await ratelock.advance("31 days")
 * const expired = await ratelock.webhooks.awaitEvent("contract_expired", contract.id)
 * await ratelock.close()
 * ```
 */
import {
  Contract,
  InboundEvent,
  type OutboundEvent,
  type Partner,
  Quote,
  Requests,
  WebhookEventRecord
} from "@ratelock/core"
import { Sandbox } from "@ratelock/http"
import { DateTime, type Duration, Effect, ManagedRuntime, Schema } from "effect"
import * as Ratelock from "./Ratelock.ts"
import * as Scenario from "./Scenario.ts"
import * as Simulation from "./Simulation.ts"
import * as TestPartner from "./TestPartner.ts"
import * as WebhookInbox from "./WebhookInbox.ts"

export { ApiFailure } from "./ApiFailure.ts"
export type { Options } from "./Ratelock.ts"
export type { ApiKey, TestPartner } from "./TestPartner.ts"

export type QuoteJson = typeof Quote.QuoteResponse.Encoded
export type ContractJson = typeof Contract.ContractResponse.Encoded
export type LockJson = typeof Contract.LockResponse.Encoded
export type InboundAckJson = typeof InboundEvent.InboundAck.Encoded
export type SandboxTransferJson = typeof Sandbox.SandboxTransfer.Encoded
export type SandboxPayoutFailureJson = typeof Sandbox.SandboxPayoutFailure.Encoded
export type WebhookEventJson = typeof WebhookEventRecord.WebhookEventRecord.Encoded
export type EventType = OutboundEvent.OutboundEventType
/** An outbound event as delivered (the parsed body of the delivery). */
export type EventJson<K extends EventType = EventType> = Extract<
  typeof OutboundEvent.OutboundEvent.Encoded,
  { readonly event_type: K }
>

/** One delivery attempt as the partner's endpoint received it. */
export interface DeliveryJson {
  readonly url: string
  readonly environment: Partner.Environment
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly receivedAt: string
  readonly status: number
  readonly problem: string | null
}

export interface Webhooks {
  /** The events the endpoint accepted, as delivered, in arrival order; of one contract if given. */
  readonly events: (contractId?: string) => Promise<ReadonlyArray<EventJson>>
  /** Every delivery attempt, whatever was answered. */
  readonly deliveries: () => Promise<ReadonlyArray<DeliveryJson>>
  /** Waits (running the workers, advancing the clock up to `within`, default 1 hour) for an accepted event. */
  readonly awaitEvent: <K extends EventType>(
    eventType: K,
    contractId: string,
    options?: WebhookInbox.AwaitOptions
  ) => Promise<EventJson<K>>
  /** Answers every later delivery with `status` (503: the endpoint is down; 200: back up). */
  readonly respondWith: (status: number) => Promise<void>
  /** Answers the next `count` deliveries with `status` (default 500). */
  readonly failNext: (count: number, status?: number) => Promise<void>
}

export interface RatelockHarness {
  /** The partner made at start: its API keys, webhook secret and webhook URLs. */
  readonly partner: TestPartner.TestPartner
  /** The origin of in-process URLs (`http://ratelock.test`). */
  readonly baseUrl: string
  /** `fetch` against the API in process (a path alone is resolved against `baseUrl`). */
  readonly fetch: Ratelock.FetchLike
  /** The API as a web handler: `Request` in, `Response` out. */
  readonly handler: (request: Request) => Promise<Response>
  /** The credential headers of the partner's key (sandbox unless asked). */
  readonly headers: (environment?: Partner.Environment) => Record<string, string>
  /** The simulated now, as an ISO string. */
  readonly now: () => Promise<string>
  /** Runs every worker pass at the current instant until nothing is left to do. */
  readonly runWorkers: () => Promise<void>
  /** Moves time forward (`"1 hour"`, `"31 days"`, or milliseconds), running the workers on the way. */
  readonly advance: (duration: Duration.Input) => Promise<void>
  /** Moves time forward to an instant. */
  readonly advanceTo: (instant: string | Date) => Promise<void>
  readonly quote: (overrides?: Partial<Requests.QuoteRequestBody>, timing?: Requests.Timing) => Promise<QuoteJson>
  readonly contract: (overrides?: Scenario.ContractOverrides, timing?: Requests.Timing) => Promise<ContractJson>
  /** A contract funded with all that is due, the workers run: active. */
  readonly activeContract: (overrides?: Scenario.ContractOverrides, timing?: Requests.Timing) => Promise<ContractJson>
  /** The simulated chain receives `amount` (or all that is due) at the contract's funding address. */
  readonly fund: (contractId: string, amount?: string) => Promise<SandboxTransferJson>
  readonly reportFundsInRoute: (
    contractId: string,
    overrides?: Partial<Requests.FundsInRouteBody>
  ) => Promise<InboundAckJson>
  /** The customer transacts now at `rate`: an inbound `contract_exercised`. */
  readonly exercise: (
    contractId: string,
    rate: string,
    overrides?: Partial<Requests.ContractExercisedBody>
  ) => Promise<InboundAckJson>
  readonly failNextPayout: (contractId: string) => Promise<SandboxPayoutFailureJson>
  readonly expireNow: (contractId: string) => Promise<LockJson>
  /** The contract as its customer's lock listing shows it. */
  readonly lock: (contractId: string) => Promise<LockJson>
  readonly webhookEvents: (query?: Scenario.WebhookEventsQuery) => Promise<ReadonlyArray<WebhookEventJson>>
  readonly payoutEvents: (since?: string) => Promise<ReadonlyArray<WebhookEventJson>>
  readonly redeliver: (webhookEventId: string) => Promise<WebhookEventJson>
  /** Valid request bodies at the simulated now, to send with `fetch`. */
  readonly requests: {
    readonly quote: (
      overrides?: Partial<Requests.QuoteRequestBody>,
      timing?: Requests.Timing
    ) => Promise<Requests.QuoteRequestBody>
    readonly contractExercised: (
      contract: { readonly id: string; readonly chain: Requests.ContractExercisedBody["chain"] },
      overrides?: Partial<Requests.ContractExercisedBody>
    ) => Promise<Requests.ContractExercisedBody>
  }
  readonly webhooks: Webhooks
  /** Another partner, with keys and webhook endpoints in both environments. */
  readonly makePartner: (name: string) => Promise<TestPartner.TestPartner>
  /** Releases everything; the harness is unusable afterwards. */
  readonly close: () => Promise<void>
  readonly [Symbol.asyncDispose]: () => Promise<void>
}

/** Starts an in-memory Ratelock. Close it when done (`await ratelock.close()`, or `await using`). */
export const createRatelock = async (options: Ratelock.Options = {}): Promise<RatelockHarness> => {
  const runtime = ManagedRuntime.make(Ratelock.layerWith(options))
  const run = <A, E>(effect: Effect.Effect<A, E, Ratelock.Services>): Promise<A> => runtime.runPromise(effect)
  const encoded =
    <A, I>(schema: Schema.Codec<A, I>) =>
    <E>(effect: Effect.Effect<A, E, Ratelock.Services>): Promise<I> =>
      run(Effect.map(effect, (value) => Schema.encodeSync(schema)(value)))
  const many =
    <A, I>(schema: Schema.Codec<A, I>) =>
    <E>(effect: Effect.Effect<ReadonlyArray<A>, E, Ratelock.Services>): Promise<ReadonlyArray<I>> =>
      run(Effect.map(effect, (values) => values.map((value) => Schema.encodeSync(schema)(value))))
  const parsed = <K extends EventType>(delivery: WebhookInbox.Delivery) => JSON.parse(delivery.body) as EventJson<K>
  const accepted = (d: WebhookInbox.Delivery, contractId?: string) =>
    d.status >= 200 &&
    d.status < 300 &&
    d.event !== undefined &&
    (contractId === undefined || d.event.fx_contract_id === contractId)

  const service = await run(Ratelock.Ratelock.useSync((ratelock) => ratelock))
  const close = () => runtime.dispose()
  return {
    partner: service.partner,
    baseUrl: service.baseUrl,
    fetch: service.fetch,
    handler: service.handler,
    headers: (environment = "sandbox") => TestPartner.credentialHeaders(service.partner[environment]),
    now: () => run(Effect.map(Simulation.now, DateTime.formatIso)),
    runWorkers: () => run(Simulation.runWorkers),
    advance: (duration) => run(Simulation.advance(duration)),
    advanceTo: (instant) => run(Simulation.advanceTo(instant)),
    quote: (overrides, timing) => encoded(Quote.QuoteResponse)(Scenario.quote(overrides, timing)),
    contract: (overrides, timing) => encoded(Contract.ContractResponse)(Scenario.contract(overrides, timing)),
    activeContract: (overrides, timing) =>
      encoded(Contract.ContractResponse)(Scenario.activeContract(overrides, timing)),
    fund: (contractId, amount) => encoded(Sandbox.SandboxTransfer)(Scenario.fund(contractId, amount)),
    reportFundsInRoute: (contractId, overrides) =>
      encoded(InboundEvent.InboundAck)(Scenario.reportFundsInRoute(contractId, overrides)),
    exercise: (contractId, rate, overrides) =>
      encoded(InboundEvent.InboundAck)(Scenario.exercise(contractId, rate, overrides)),
    failNextPayout: (contractId) => encoded(Sandbox.SandboxPayoutFailure)(Scenario.failNextPayout(contractId)),
    expireNow: (contractId) => encoded(Contract.LockResponse)(Scenario.expireNow(contractId)),
    lock: (contractId) => encoded(Contract.LockResponse)(Scenario.lock(contractId)),
    webhookEvents: (query) => many(WebhookEventRecord.WebhookEventRecord)(Scenario.webhookEvents(query)),
    payoutEvents: (since) => many(WebhookEventRecord.WebhookEventRecord)(Scenario.payoutEvents(since)),
    redeliver: (id) => encoded(WebhookEventRecord.WebhookEventRecord)(Scenario.redeliver(id)),
    requests: {
      quote: (overrides, timing) => run(Requests.quote(overrides, timing)),
      contractExercised: (contract, overrides) => run(Requests.contractExercised(contract, overrides))
    },
    webhooks: {
      events: (contractId) =>
        run(Effect.map(WebhookInbox.deliveries, (all) => all.filter((d) => accepted(d, contractId)).map(parsed))),
      deliveries: () =>
        run(
          Effect.map(WebhookInbox.deliveries, (all) =>
            all.map(({ event: _, receivedAt, ...delivery }) => ({
              ...delivery,
              receivedAt: DateTime.formatIso(receivedAt)
            }))
          )
        ),
      awaitEvent: <K extends EventType>(eventType: K, contractId: string, options?: WebhookInbox.AwaitOptions) =>
        run(
          Effect.gen(function* () {
            const event = yield* WebhookInbox.awaitEvent(eventType, contractId, options)
            const delivery = (yield* WebhookInbox.deliveries).find(
              (d) => accepted(d, contractId) && d.event?.event_id === event.event_id
            )
            return parsed<K>(delivery!)
          })
        ),
      respondWith: (status) => run(WebhookInbox.respondWith(status)),
      failNext: (count, status) => run(WebhookInbox.failNext(count, status))
    },
    makePartner: (name) => run(Ratelock.makePartner(name)),
    close,
    [Symbol.asyncDispose]: close
  }
}
