/**
 * The sandbox webhook inbox's receiver: no credentials (a webhook receiver trusts signatures),
 * the raw body and headers handed to core's `WebhookInbox.receive`.
 */
import type { IdGenerator, PartnerRepo, WebhookInboxRepo } from "@ratelock/core"
import type { Mac } from "effect/crypto"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import * as SandboxInbox from "../sandbox/SandboxInbox.ts"
import type { GroupLayer } from "./GroupLayer.ts"
import { mapErrors } from "./HttpErrors.ts"

export const layer: GroupLayer<
  "sandboxInbox",
  PartnerRepo.PartnerRepo | WebhookInboxRepo.WebhookInboxRepo | IdGenerator.IdGenerator | Mac.Mac
> = HttpApiBuilder.group(Api, "sandboxInbox", (handlers) =>
  handlers.handle("receive", ({ params, request }) => SandboxInbox.receive(params.partner_id, request).pipe(mapErrors))
)
