/**
 * Port for delivering a signed webhook: one POST, with a timeout.
 */
import { Context, Schema } from "effect"
import type { Duration, Effect } from "effect"
import type { Environment } from "../terms/Partner.ts"

export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  message: Schema.String
}) {}

export interface WebhookRequest {
  readonly url: string
  /** Whose endpoint it is: production endpoints must be public https hosts, sandbox ones may be loopback. */
  readonly environment: Environment
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly timeout: Duration.Duration
}

export interface WebhookTransportShape {
  /** Resolves with the HTTP status of the reply; fails on network errors and timeouts. */
  readonly post: (request: WebhookRequest) => Effect.Effect<{ readonly status: number }, TransportError>
}

export class WebhookTransport extends Context.Service<WebhookTransport, WebhookTransportShape>()(
  "@ratelock/core/WebhookTransport"
) {}
