/**
 * The port that judges a webhook URL before it is stored: production URLs must be https to a
 * public address, the sandbox also allows http and loopback. Judging needs the network (the host
 * name is resolved), so the host provides it; core's partner programs only ask.
 */
import { Context, Data, type Effect } from "effect"
import type { Environment } from "../terms/Partner.ts"

export class InvalidWebhookUrl extends Data.TaggedError("InvalidWebhookUrl")<{
  readonly url: string
  readonly environment: Environment
  readonly reason: string
}> {
  override get message() {
    return `${this.environment} webhook URL ${this.url} refused: ${this.reason}`
  }
}

export interface WebhookUrlCheckShape {
  /** The URL as it will be stored (normalised), or why it is refused. */
  readonly check: (url: string, environment: Environment) => Effect.Effect<string, InvalidWebhookUrl>
}

export class WebhookUrlCheck extends Context.Service<WebhookUrlCheck, WebhookUrlCheckShape>()(
  "@ratelock/core/WebhookUrlCheck"
) {}
