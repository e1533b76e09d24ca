/**
 * The route groups of the Partner API, built from core's schemas. Every partner route needs the
 * three credential headers; every one can answer 422, 429 and (never expected) 500.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  Contract,
  ContractRequest,
  Fields,
  InboundEvent,
  ListQuery,
  Page,
  Partner,
  Quote,
  QuoteRequest,
  WebhookEventRecord,
  WebhookInbox
} from "@ratelock/core"
import {
  BadRequest,
  Conflict,
  InternalError,
  NotFound,
  PayloadTooLarge,
  TooManyRequests,
  Unavailable,
  ValidationFailed
} from "./Errors.ts"
import { OptionalIdempotencyKey, RequiredIdempotencyKey } from "./Headers.ts"
import * as Sandbox from "./Sandbox.ts"
import { PartnerAuth } from "./Security.ts"

const always = [ValidationFailed, TooManyRequests, InternalError] as const
const posting = [...always, PayloadTooLarge, Conflict] as const

/**
 * What makes a group the partners': its routes behind their credentials, under /api/v1. Piped
 * after the last `add`, as `middleware` and `prefix` reach only the endpoints already added.
 */
const partnerRoutes =
  (description: string) =>
  <Id extends string, Endpoints extends HttpApiEndpoint.Constraint>(group: HttpApiGroup.HttpApiGroup<Id, Endpoints>) =>
    group.middleware(PartnerAuth).prefix("/api/v1").annotate(OpenApi.Description, description)

export class PartnersGroup extends HttpApiGroup.make("partners")
  .add(
    HttpApiEndpoint.get("me", "/partners/me", { success: Partner.PartnerIdentity, error: always }).annotate(
      OpenApi.Summary,
      "Who am I: the partner and key behind these credentials"
    )
  )
  .pipe(partnerRoutes("The partner and API key behind the credentials")) {}

export class QuotesGroup extends HttpApiGroup.make("quotes")
  .add(
    HttpApiEndpoint.post("create", "/fx/quotes", {
      headers: OptionalIdempotencyKey,
      payload: QuoteRequest.QuoteRequest,
      success: Quote.QuoteResponse.pipe(HttpApiSchema.status(201)),
      error: posting
    }).annotate(OpenApi.Summary, "Price a rate lock"),
    HttpApiEndpoint.get("list", "/fx/quotes", {
      query: ListQuery.ListQuotesQuery,
      success: Page.PaginatedQuotes,
      error: always
    }).annotate(OpenApi.Summary, "List quotes, newest first"),
    HttpApiEndpoint.get("get", "/fx/quotes/:quote_id", {
      params: { quote_id: Fields.Uuid },
      success: Quote.QuoteResponse,
      error: [...always, NotFound]
    }).annotate(OpenApi.Summary, "Get a quote")
  )
  .pipe(partnerRoutes("Priced rate locks, valid for a short time")) {}

/** What contract creation answers besides 201, with the codes of its 4xx (docs/partner-api.md, Errors). */
const contractCreationErrors = [
  "Errors:",
  "- 404 `quote_not_found`: no such quote of yours in this environment.",
  "- 409 `quote_expired`: the quote is past its `expires_at`.",
  "- 409 `quote_not_accepted`: the quote could not be priced (`status: failed`).",
  "- 409 `quote_already_accepted`: the quote already has a contract.",
  "- 409 `corridor_capacity_exceeded`: the lock would take its corridor past a limit (its capacity went since the quote was priced); nothing is written, the quote can still become a contract before it expires if capacity comes back.",
  "- 409 `idempotency_key_reused`, `idempotency_key_in_use`: see Idempotency."
].join("\n")

export class ContractsGroup extends HttpApiGroup.make("contracts")
  .add(
    HttpApiEndpoint.post("create", "/fx/contracts", {
      headers: OptionalIdempotencyKey,
      payload: ContractRequest.ContractRequest,
      success: Contract.ContractResponse.pipe(HttpApiSchema.status(201)),
      error: [...posting, NotFound, Unavailable]
    })
      .annotate(OpenApi.Summary, "Turn a quote into a binding contract")
      .annotate(OpenApi.Description, contractCreationErrors),
    HttpApiEndpoint.get("locks", "/fx/customers/:customer_reference_id/locks", {
      params: { customer_reference_id: Fields.BoundedString(256) },
      query: ListQuery.ListLocksQuery,
      success: Page.PaginatedLocks,
      error: always
    }).annotate(OpenApi.Summary, "A customer's locks, newest first")
  )
  .pipe(partnerRoutes("Binding rate locks made from quotes")) {}

export const ListPayoutEventsQuery = Schema.Struct({
  since: Schema.optionalKey(Fields.Datetime),
  limit: ListQuery.ListWebhookEventsQuery.fields.limit,
  cursor: ListQuery.ListWebhookEventsQuery.fields.cursor
}).annotate({ identifier: "ListPayoutEventsQuery" })

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("inbound", "/fx/webhooks/inbound", {
      headers: RequiredIdempotencyKey,
      payload: InboundEvent.InboundEvent,
      success: InboundEvent.InboundAck,
      error: [...posting, BadRequest, NotFound]
    }).annotate(OpenApi.Summary, "Report funds in route or a customer's exercise"),
    HttpApiEndpoint.get("events", "/fx/webhook-events", {
      query: ListQuery.ListWebhookEventsQuery,
      success: Page.PaginatedWebhookEvents,
      error: always
    }).annotate(OpenApi.Summary, "Audit list of inbound and outbound events, newest first"),
    HttpApiEndpoint.get("payoutEvents", "/fx/payout-events", {
      query: ListPayoutEventsQuery,
      success: Page.PaginatedWebhookEvents,
      error: always
    }).annotate(OpenApi.Summary, "Outbound payout deliveries, oldest first, for backfill"),
    HttpApiEndpoint.post("redeliver", "/fx/webhook-events/:webhook_event_id/redeliver", {
      params: { webhook_event_id: Fields.Uuid },
      headers: OptionalIdempotencyKey,
      success: WebhookEventRecord.WebhookEventRecord.pipe(HttpApiSchema.status(202)),
      error: [...posting, NotFound]
    }).annotate(OpenApi.Summary, "Queue a fresh delivery attempt of an outgoing event")
  )
  .pipe(partnerRoutes("Inbound events from the partner, and the audit of events both ways")) {}

const sandboxContract = { fx_contract_id: Fields.Uuid }

/**
 * Sandbox helpers, beyond the spec: drive a contract's life without a real chain. They exist only
 * for sandbox keys (`SandboxOnly`: a production key gets 404 `not_found`).
 */
export class SandboxGroup extends HttpApiGroup.make("sandbox")
  .add(
    HttpApiEndpoint.post("fund", "/sandbox/contracts/:fx_contract_id/fund", {
      params: sandboxContract,
      headers: OptionalIdempotencyKey,
      // optional: with `Schema.Null` among the payloads an empty body is read as null (what is still due)
      payload: [Sandbox.SandboxFundRequest, Schema.Null],
      success: Sandbox.SandboxTransfer.pipe(HttpApiSchema.status(202)),
      error: [...posting, BadRequest, NotFound]
    }).annotate(
      OpenApi.Summary,
      "Sandbox: the simulated chain receives a transfer to the contract's funding address (default: what is still due)"
    ),
    HttpApiEndpoint.post("expire", "/sandbox/contracts/:fx_contract_id/expire", {
      params: sandboxContract,
      headers: OptionalIdempotencyKey,
      success: Contract.LockResponse,
      error: [...posting, NotFound]
    }).annotate(OpenApi.Summary, "Sandbox: end an active contract's window now (contract_expired follows)"),
    HttpApiEndpoint.post("failNextPayout", "/sandbox/contracts/:fx_contract_id/fail-next-payout", {
      params: sandboxContract,
      headers: OptionalIdempotencyKey,
      success: Sandbox.SandboxPayoutFailure.pipe(HttpApiSchema.status(202)),
      error: [...posting, NotFound]
    }).annotate(OpenApi.Summary, "Sandbox: the simulated chain rejects the contract's next payout transaction"),
    HttpApiEndpoint.get("webhookInbox", "/sandbox/webhook-inbox", {
      query: { limit: ListQuery.ListWebhookEventsQuery.fields.limit },
      success: WebhookInbox.InboxPage,
      error: [...always, NotFound]
    }).annotate(
      OpenApi.Summary,
      "Sandbox: what your sandbox webhook delivered to the service's own inbox, newest first, with whether each signature verified"
    )
  )
  // innermost first: authentication (added by partnerRoutes) runs, then the sandbox check, then decoding
  .middleware(Sandbox.SandboxOnly)
  .pipe(partnerRoutes("Sandbox keys only: drive a contract's life on the simulated chain")) {}

/**
 * The receiving end of the sandbox's webhook inbox: where a sandbox webhook can point (the demo
 * partner's does). No credentials: like any webhook receiver it trusts the signatures instead,
 * and records whether they verified.
 */
export class SandboxInboxGroup extends HttpApiGroup.make("sandboxInbox")
  .add(
    HttpApiEndpoint.post("receive", "/sandbox/webhook-inbox/:partner_id", {
      params: { partner_id: Fields.Uuid },
      payload: Schema.Json,
      success: WebhookInbox.Received,
      error: [ValidationFailed, PayloadTooLarge, InternalError, NotFound]
    }).annotate(
      OpenApi.Summary,
      "Sandbox: the webhook inbox's receiver (point a sandbox webhook here; the signatures are checked and the delivery kept)"
    )
  )
  .prefix("/api/v1")
  .annotate(OpenApi.Description, "The sandbox's own webhook receiver, without credentials") {}

const Health = Schema.Struct({ status: Schema.Literal("ok") })
const Ready = Schema.Struct({ status: Schema.Literal("ready"), database: Schema.Literal("ok") })

export class SystemGroup extends HttpApiGroup.make("system", { topLevel: true })
  .add(
    HttpApiEndpoint.get("health", "/health", { success: Health }).annotate(OpenApi.Summary, "Liveness"),
    HttpApiEndpoint.get("ready", "/ready", { success: Ready, error: Unavailable }).annotate(
      OpenApi.Summary,
      "Readiness: database reachable, migrations applied"
    )
  )
  .annotate(OpenApi.Description, "Health checks, without credentials") {}
