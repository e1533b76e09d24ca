/**
 * The outbound deliveries in the OpenAPI document's top-level `webhooks` (OpenAPI 3.1): one POST
 * per event type of core's `OutboundEvent`, its body the event's component schema (the schema the
 * deliveries are encoded with, added by `Api` as an additional schema), its headers those of
 * `WebhookSignature.OutboundHeaders` (what the delivery worker signs and sends) and, when the
 * service is traced, `traceparent`. `payout_failed` says what each `failure_code` means, from
 * core's one list (`OutboundEvent.payoutFailureCodes`).
 */
import { Deliveries, OutboundEvent, RetryPolicy, WebhookSignature } from "@ratelock/core"
import { Duration, Schema, SchemaAST } from "effect"

/** The events `Api` adds to the document's components. */
export const eventSchemas = OutboundEvent.OutboundEvent.members

const summaries: Record<OutboundEvent.OutboundEventType, string> = {
  funds_received: "Funding confirmed on-chain: the contract is active",
  payout_settled: "The payout was confirmed on-chain (or was zero)",
  payout_failed: "A payout attempt failed; will_retry says whether another follows",
  contract_expired: "The window passed without exercise"
}

type Header = Exclude<keyof WebhookSignature.OutboundHeaders, "content-type">

const headerDescriptions: Record<Header, string> = {
  "x-partner-signature": "Lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook secret as issued",
  "webhook-id": "Standard Webhooks: the event_id, the same on every attempt",
  "webhook-timestamp": "Standard Webhooks: unix seconds of this attempt",
  "webhook-signature":
    "Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> per live secret, newest first, space-separated"
}

const { deliveryRetries, deliveryHorizon } = RetryPolicy.defaults
const description = [
  "Ratelock POSTs the event to the partner's webhook URL of the environment, signed with both schemes.",
  `Any 2xx within ${Duration.format(Deliveries.timeout)} acknowledges it; anything else is retried after about`,
  `${deliveryRetries.map(Duration.format).join(", ")} (± 10 %), for up to ${Duration.format(deliveryHorizon)},`,
  "with the same event_id. Deliveries of one contract arrive one at a time, in order (sequence)."
].join(" ")

/** What a delivery of an event says beyond `description`: the meaning of each payout failure code. */
const details: Partial<Record<OutboundEvent.OutboundEventType, string>> = {
  payout_failed: [
    "payout.failure_code says why the attempt failed (payout.failure_message says it for people):",
    "",
    ...Object.entries(OutboundEvent.payoutFailureCodes).map(([code, meaning]) => `- \`${code}\`: ${meaning}`)
  ].join("\n")
}

const parameters = [
  ...Object.entries(headerDescriptions).map(([name, text]) => ({
    name,
    in: "header",
    required: true,
    description: text,
    schema: Schema.toJsonSchemaDocument(WebhookSignature.OutboundHeaders.fields[name as Header]).schema
  })),
  {
    name: "traceparent",
    in: "header",
    required: false,
    description:
      "W3C Trace Context of this attempt, sent when the service exports traces (OpenTelemetry): a receiver's own tracing may continue the trace. Not signed; it decides nothing.",
    schema: { type: "string", pattern: "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$" }
  }
]

export const outboundWebhooks = (spec: Record<string, unknown>): Record<string, unknown> => {
  const webhooks: Record<string, unknown> = {}
  for (const event of eventSchemas) {
    const eventType = event.fields.event_type.literal
    webhooks[eventType] = {
      post: {
        operationId: `outbound.${eventType}`,
        tags: ["outbound"],
        summary: summaries[eventType],
        description: [description, details[eventType]].filter((text) => text !== undefined).join("\n\n"),
        parameters,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { $ref: `#/components/schemas/${SchemaAST.resolveIdentifier(event.ast)}` }
            }
          }
        },
        responses: {
          "2XX": { description: "Acknowledged: the delivery is done" },
          default: { description: "Not acknowledged: the delivery is retried" }
        },
        security: []
      }
    }
  }
  const tags = [
    ...((spec.tags ?? []) as Array<unknown>),
    { name: "outbound", description: "Events Ratelock delivers to the partner's webhook URL" }
  ]
  return { ...spec, tags, webhooks }
}
