/**
 * The sandbox's webhook inbox: a receiver the service runs itself, so a partner sees signed
 * deliveries arrive before writing an endpoint of its own (the demo partner's sandbox webhook
 * points at it). Each delivery is checked as a partner's code should check it, with core's
 * `WebhookSignature` and the partner's live sandbox secrets: `x-partner-signature` and the
 * Standard Webhooks headers, timestamp included. The newest `keep` deliveries per partner are kept.
 */
import { Array as Arr, DateTime, Effect, Option, Schema } from "effect"
import type { Mac } from "effect/crypto"
import { WebhookInboxNotFound } from "../kernel/ApiError.ts"
import { Datetime, Uuid } from "../kernel/Fields.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import type { PartnerScope } from "../terms/Partner.ts"
import { liveSecrets, PartnerRepo } from "../partners/PartnerRepo.ts"
import type { StoreError } from "../kernel/StoreError.ts"
import * as WebhookSignature from "./WebhookSignature.ts"
import { type InboxDelivery, WebhookInboxRepo } from "./WebhookInboxRepo.ts"

/** Deliveries kept per partner. */
export const keep = 100

/** The headers of a delivery worth showing: the ones our deliveries carry. */
const shown = ["content-type", "x-partner-signature", "webhook-id", "webhook-timestamp", "webhook-signature"]

export const InboxItem = Schema.Struct({
  received_at: Datetime,
  /** `webhook-id`: the event's `event_id`. */
  event_id: Schema.NullOr(Schema.String),
  event_type: Schema.NullOr(Schema.String),
  /** The payload's `fx_contract_id`, when it is one. */
  fx_contract_id: Schema.NullOr(Uuid),
  /** Both signatures verified with the partner's sandbox webhook secrets. */
  signature_verified: Schema.Boolean,
  /** Why not, when they did not. */
  signature_problem: Schema.NullOr(Schema.String),
  headers: Schema.Record(Schema.String, Schema.String),
  /** The body as JSON, or as the text received when it is not JSON. */
  payload: Schema.Json
}).annotate({ identifier: "WebhookInboxItem" })
export type InboxItem = typeof InboxItem.Type

export const InboxPage = Schema.Struct({
  /** Where to point a sandbox webhook to deliver here (`ratelock webhook set … --url`). */
  url: Schema.String,
  /** Newest first. */
  items: Schema.Array(InboxItem)
}).annotate({ identifier: "WebhookInbox" })
export type InboxPage = typeof InboxPage.Type

export const Received = Schema.Struct({ received: Schema.Boolean, signature_verified: Schema.Boolean }).annotate({
  identifier: "WebhookInboxReceipt"
})

/** Why the delivery's signatures do not verify with `secrets`, or null when they do. */
const problemOf = (headers: Readonly<Record<string, string>>, body: string, live: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (!Arr.isReadonlyArrayNonEmpty(live)) return "the partner has no sandbox webhook secret"
    const partner = headers["x-partner-signature"]
    if (partner === undefined) return "missing header x-partner-signature"
    const checks = yield* Effect.all([
      Effect.result(WebhookSignature.verifyPartnerSignature(body, partner, live)),
      Effect.result(WebhookSignature.verify({ headers, body, secrets: live }))
    ] as const)
    const failed = checks.find((check) => check._tag === "Failure")
    return failed?._tag === "Failure" ? failed.failure.message : null
  })

/** Records one delivery to the partner's inbox, with what its signatures showed. */
export const receive = Effect.fn("WebhookInbox.receive")(function* (
  partnerId: string,
  received: Readonly<Record<string, string | undefined>>,
  body: string
): Effect.fn.Return<
  typeof Received.Type,
  WebhookInboxNotFound | StoreError,
  PartnerRepo | WebhookInboxRepo | IdGenerator | Mac.Mac
> {
  const endpoint = yield* (yield* PartnerRepo).findWebhookEndpoint({ partnerId, environment: "sandbox" })
  if (Option.isNone(endpoint)) {
    return yield* new WebhookInboxNotFound({ message: `no sandbox webhook inbox for partner ${partnerId}` })
  }
  const now = yield* DateTime.now
  const headers: Record<string, string> = {}
  for (const name of shown) {
    const value = received[name]
    if (value !== undefined) headers[name] = value
  }
  const signatureProblem = yield* problemOf(headers, body, liveSecrets(endpoint.value, now))
  const delivery: InboxDelivery = {
    id: yield* (yield* IdGenerator).uuid,
    partnerId,
    receivedAt: now,
    headers,
    body,
    signatureProblem
  }
  yield* (yield* WebhookInboxRepo).record(delivery, keep)
  return { received: true, signature_verified: signatureProblem === null }
})

const parsed = (body: string): Schema.Json => {
  try {
    return JSON.parse(body) as Schema.Json
  } catch {
    return body
  }
}

const field = (payload: Schema.Json, name: string): string | null => {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return null
  const value = (payload as Record<string, Schema.Json>)[name]
  return typeof value === "string" ? value : null
}

const isUuid = Schema.is(Uuid)

const toItem = (delivery: InboxDelivery): InboxItem => {
  const payload = parsed(delivery.body)
  return {
    received_at: delivery.receivedAt,
    event_id: delivery.headers["webhook-id"] ?? field(payload, "event_id"),
    event_type: field(payload, "event_type"),
    fx_contract_id: Option.getOrNull(Option.filter(Option.fromNullishOr(field(payload, "fx_contract_id")), isUuid)),
    signature_verified: delivery.signatureProblem === null,
    signature_problem: delivery.signatureProblem,
    headers: delivery.headers,
    payload
  }
}

/** The inbox at `url`, newest first. */
export const list = Effect.fn("WebhookInbox.list")(function* (scope: PartnerScope, url: string, limit: number) {
  const deliveries = yield* (yield* WebhookInboxRepo).list(scope.partnerId, limit)
  return { url, items: deliveries.map(toItem) } satisfies InboxPage
})

/** The path of a partner's inbox, under the API's base path. */
export const path = (partnerId: string) => `/api/v1/sandbox/webhook-inbox/${partnerId}`
