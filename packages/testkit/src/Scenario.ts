/**
 * What a partner does and reads, as typed programs over the API served in process: quotes and
 * contracts, funding on the simulated chain (all that is due, or part of it), the customer's
 * exercise at a live rate, a payout made to fail, and the partner's own reads (locks, webhook
 * events, the payout feed). Each is one or a few real API calls with the partner's sandbox key
 * (another key with `actingAs`): routes, validation and errors are the service's own. A call that
 * is refused fails with an `ApiFailure` (status and error code).
 *
 * These only act: the workers run when the test runs them (`Simulation.runWorkers`,
 * `Simulation.advance`, `WebhookInbox.awaitEvent`). `activeContract` is the exception: it funds
 * the contract and runs the workers, so the contract it returns is active.
 */
import { Contract, ContractRepo, InboundEvent, Page, Quote, Requests, WebhookEventRecord } from "@ratelock/core"
import { Sandbox } from "@ratelock/http"
import { Context, Effect, Option, type Schema } from "effect"
import { ApiFailure } from "./ApiFailure.ts"
import { call, type CallOptions } from "./internal/call.ts"
import { Ratelock } from "./Ratelock.ts"
import { Simulation } from "./Simulation.ts"
import type { ApiKey } from "./TestPartner.ts"

/** The key the scenario helpers act with; unset: the partner's sandbox key. */
export const ActingKey = Context.Reference<ApiKey | undefined>("@ratelock/testkit/Scenario/ActingKey", {
  defaultValue: () => undefined
})

/** Runs `effect` with the scenario helpers acting with `key` (another partner, production). */
export const actingAs =
  (key: ApiKey) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.provideService(effect, ActingKey, key)

const request = <A>(method: "GET" | "POST", path: string, schema: Schema.Decoder<A>, options: CallOptions = {}) =>
  Effect.gen(function* () {
    const ratelock = yield* Ratelock
    const key = (yield* ActingKey) ?? ratelock.partner.sandbox
    return yield* call(ratelock.fetch, key, method, path, schema, options)
  })

const post = <A>(path: string, schema: Schema.Decoder<A>, body?: unknown) =>
  Effect.flatMap(Ratelock, (ratelock) =>
    Effect.flatMap(ratelock.idempotencyKey, (idempotencyKey) => request("POST", path, schema, { body, idempotencyKey }))
  )

/** Overrides of a contract: the quote's fields, and the contract's own reference. */
export type ContractOverrides = Partial<Requests.QuoteRequestBody> & {
  readonly partner_transaction_reference?: string | null
}

/** `POST /fx/quotes` with a valid request (`Requests.quote`), field by field overridable. */
export const quote = Effect.fn("Scenario.quote")(function* (
  overrides: Partial<Requests.QuoteRequestBody> = {},
  timing: Requests.Timing = {}
): Effect.fn.Return<Quote.QuoteResponse, ApiFailure, Ratelock> {
  return yield* post("/api/v1/fx/quotes", Quote.QuoteResponse, yield* Requests.quote(overrides, timing))
})

/** A quote, then `POST /fx/contracts` for it at once. */
export const contract = Effect.fn("Scenario.contract")(function* (
  overrides: ContractOverrides = {},
  timing: Requests.Timing = {}
): Effect.fn.Return<Contract.ContractResponse, ApiFailure, Ratelock> {
  const { partner_transaction_reference, ...quoteFields } = overrides
  const priced = yield* quote(quoteFields, timing)
  const body = Requests.contract(
    priced.id,
    partner_transaction_reference === undefined ? {} : { partner_transaction_reference }
  )
  return yield* post("/api/v1/fx/contracts", Contract.ContractResponse, body)
})

/**
 * The sandbox helper `POST /sandbox/contracts/{id}/fund`: the simulated chain receives `amount`
 * (a decimal string), or all that is still due, at the contract's funding address. The funding
 * worker counts it on its next pass.
 */
export const fund = Effect.fn("Scenario.fund")(function* (
  contractId: string,
  amount?: string
): Effect.fn.Return<Sandbox.SandboxTransfer, ApiFailure, Ratelock> {
  return yield* post(
    `/api/v1/sandbox/contracts/${contractId}/fund`,
    Sandbox.SandboxTransfer,
    amount === undefined ? undefined : { amount }
  )
})

/** A contract, funded with all that is due, and the workers run: it is `active` (or this fails). */
export const activeContract = Effect.fn("Scenario.activeContract")(function* (
  overrides: ContractOverrides = {},
  timing: Requests.Timing = {}
): Effect.fn.Return<Contract.ContractResponse, ApiFailure, Ratelock | Simulation | ContractRepo.ContractRepo> {
  const created = yield* contract(overrides, timing)
  yield* fund(created.id)
  yield* (yield* Simulation).runWorkers
  const status = (yield* lock(created.id)).status
  if (status !== "active") {
    return yield* Effect.die(
      new Error(`Ratelock testkit: contract ${created.id} is ${status} after funding, not active`)
    )
  }
  return created
})

/** An inbound `funds_in_route` (in the sandbox, with an `amount` the simulated chain receives it). */
export const reportFundsInRoute = Effect.fn("Scenario.reportFundsInRoute")(function* (
  contractId: string,
  overrides: Partial<Requests.FundsInRouteBody> = {}
): Effect.fn.Return<InboundEvent.InboundAck, ApiFailure, Ratelock> {
  return yield* post(
    "/api/v1/fx/webhooks/inbound",
    InboundEvent.InboundAck,
    Requests.fundsInRoute(contractId, overrides)
  )
})

/** The stored contract, whoever's it is (for its chain and customer); the API decides what the caller sees. */
const record = (contractId: string) => Effect.orDie(ContractRepo.ContractRepo.use((repo) => repo.findById(contractId)))

/**
 * The customer transacts now at `rate` (the live mid-market rate): an inbound
 * `contract_exercised` on the contract's chain, paid to `Requests.payoutWallets`; any field can be
 * overridden (`executed_at`, `payout_wallet_address`, `chain` …). The payout runs on the workers.
 */
export const exercise = Effect.fn("Scenario.exercise")(function* (
  contractId: string,
  rate: string,
  overrides: Partial<Requests.ContractExercisedBody> = {}
): Effect.fn.Return<InboundEvent.InboundAck, ApiFailure, Ratelock | ContractRepo.ContractRepo> {
  // an unknown id goes out as it is: the API answers 404
  const chain = Option.match(yield* record(contractId), { onNone: () => "polygon" as const, onSome: (c) => c.chain })
  const body = yield* Requests.contractExercised({ id: contractId, chain }, { live_execution_rate: rate, ...overrides })
  return yield* post("/api/v1/fx/webhooks/inbound", InboundEvent.InboundAck, body)
})

/** The sandbox helper: the simulated chain rejects the contract's next payout transaction. */
export const failNextPayout = Effect.fn("Scenario.failNextPayout")(function* (
  contractId: string
): Effect.fn.Return<Sandbox.SandboxPayoutFailure, ApiFailure, Ratelock> {
  return yield* post(`/api/v1/sandbox/contracts/${contractId}/fail-next-payout`, Sandbox.SandboxPayoutFailure)
})

/** The sandbox helper: ends an active contract's window now (`contract_expired` follows). */
export const expireNow = Effect.fn("Scenario.expireNow")(function* (
  contractId: string
): Effect.fn.Return<Contract.LockResponse, ApiFailure, Ratelock> {
  return yield* post(`/api/v1/sandbox/contracts/${contractId}/expire`, Contract.LockResponse)
})

/** `GET /fx/quotes/{id}`. */
export const getQuote = (quoteId: string): Effect.Effect<Quote.QuoteResponse, ApiFailure, Ratelock> =>
  request("GET", `/api/v1/fx/quotes/${quoteId}`, Quote.QuoteResponse)

/** Every lock of a customer, newest first (`GET /fx/customers/{id}/locks`, all pages). */
export const locks = Effect.fn("Scenario.locks")(function* (
  customerReferenceId: string
): Effect.fn.Return<ReadonlyArray<Contract.LockResponse>, ApiFailure, Ratelock> {
  const all: Array<Contract.LockResponse> = []
  let cursor: string | null = null
  do {
    const query: string = cursor === null ? "limit=100" : `limit=100&cursor=${encodeURIComponent(cursor)}`
    const page: typeof Page.PaginatedLocks.Type = yield* request(
      "GET",
      `/api/v1/fx/customers/${encodeURIComponent(customerReferenceId)}/locks?${query}`,
      Page.PaginatedLocks
    )
    all.push(...page.items)
    cursor = page.next_cursor
  } while (cursor !== null)
  return all
})

/**
 * The contract as its customer's lock listing shows it (status included); a contract the acting
 * key cannot see (another partner's, the other environment's, unknown) fails with 404.
 */
export const lock = Effect.fn("Scenario.lock")(function* (
  contractId: string
): Effect.fn.Return<Contract.LockResponse, ApiFailure, Ratelock | ContractRepo.ContractRepo> {
  const customer = Option.map(yield* record(contractId), (c) => c.customerReferenceId)
  const listed = Option.isSome(customer) ? yield* locks(customer.value) : []
  const found = listed.find((l) => l.id === contractId)
  if (found !== undefined) return found
  return yield* new ApiFailure({
    method: "GET",
    path: "/api/v1/fx/customers/{customer_reference_id}/locks",
    status: 404,
    code: "contract_not_found",
    message: `contract ${contractId} is not among its customer's locks for this key`,
    detail: []
  })
})

export interface WebhookEventsQuery {
  readonly fx_contract_id?: string
  readonly direction?: "incoming" | "outgoing"
}

/** The webhook-event audit listing, newest first (`GET /fx/webhook-events`, all pages). */
export const webhookEvents = Effect.fn("Scenario.webhookEvents")(function* (
  query: WebhookEventsQuery = {}
): Effect.fn.Return<ReadonlyArray<WebhookEventRecord.WebhookEventRecord>, ApiFailure, Ratelock> {
  return yield* pages("/api/v1/fx/webhook-events", { ...query })
})

/** The payout feed, oldest first (`GET /fx/payout-events`, all pages), from `since` if given. */
export const payoutEvents = Effect.fn("Scenario.payoutEvents")(function* (
  since?: string
): Effect.fn.Return<ReadonlyArray<WebhookEventRecord.WebhookEventRecord>, ApiFailure, Ratelock> {
  return yield* pages("/api/v1/fx/payout-events", since === undefined ? {} : { since })
})

const pages = Effect.fnUntraced(function* (path: string, query: Readonly<Record<string, string>>) {
  const all: Array<WebhookEventRecord.WebhookEventRecord> = []
  let cursor: string | null = null
  do {
    const params: URLSearchParams = new URLSearchParams({ ...query, limit: "100" })
    if (cursor !== null) params.set("cursor", cursor)
    const page: typeof Page.PaginatedWebhookEvents.Type = yield* request(
      "GET",
      `${path}?${params}`,
      Page.PaginatedWebhookEvents
    )
    all.push(...page.items)
    cursor = page.next_cursor
  } while (cursor !== null)
  return all
})

/** `POST /fx/webhook-events/{id}/redeliver`: a fresh attempt of an outgoing event, same `event_id`. */
export const redeliver = Effect.fn("Scenario.redeliver")(function* (
  webhookEventId: string
): Effect.fn.Return<WebhookEventRecord.WebhookEventRecord, ApiFailure, Ratelock> {
  return yield* post(`/api/v1/fx/webhook-events/${webhookEventId}/redeliver`, WebhookEventRecord.WebhookEventRecord)
})
