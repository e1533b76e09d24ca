/**
 * Webhook routes: the partner's inbound events (core's `Inbound.ingest`, whose `duplicate`
 * acknowledgement makes a replay harmless; in the sandbox, a processed `funds_in_route` with an
 * `amount` then arrives on the simulated chain), the audit list, the payout feed and redelivery.
 */
import {
  type ContractRepo,
  type EventRepo,
  type IdempotencyRepo,
  type IdGenerator,
  Inbound,
  WebhookEventRecord,
  WebhookEvents
} from "@ratelock/core"
import type { SimulatedChain } from "@ratelock/adapters-chain"
import { Effect } from "effect"
import type { Digest } from "effect/crypto"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { CurrentPartner } from "../api/Security.ts"
import { mapErrors } from "./HttpErrors.ts"
import type { GroupLayer } from "./GroupLayer.ts"
import * as Idempotent from "./Idempotent.ts"
import * as SandboxFunding from "../sandbox/SandboxFunding.ts"

export const layer: GroupLayer<
  "webhooks",
  | ContractRepo.ContractRepo
  | SimulatedChain.SimulatedChain
  | EventRepo.EventRepo
  | IdempotencyRepo.IdempotencyRepo
  | IdGenerator.IdGenerator
  | Digest.Digest
> = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  handlers
    .handle("inbound", ({ payload, headers, request }) =>
      Effect.gen(function* () {
        const partner = yield* CurrentPartner
        // the body as received: kept for the audit trail and compared on replays
        const raw = yield* Idempotent.jsonBody(request)
        const ack = yield* Inbound.ingest(partner, {
          idempotencyKey: headers["idempotency-key"],
          event: payload,
          payload: raw
        })
        // sandbox only: the funds reported in route arrive on the simulated chain
        yield* SandboxFunding.afterInbound(partner, payload, ack)
        return ack
      }).pipe(mapErrors)
    )
    .handle("events", ({ query }) =>
      Effect.flatMap(CurrentPartner, (partner) => WebhookEvents.list(partner, query)).pipe(mapErrors)
    )
    .handle("payoutEvents", ({ query }) =>
      Effect.flatMap(CurrentPartner, (partner) => WebhookEvents.listPayoutEvents(partner, query)).pipe(mapErrors)
    )
    .handle("redeliver", (call) =>
      Idempotent.post(call, WebhookEventRecord.WebhookEventRecord, 202, (partner) =>
        WebhookEvents.redeliver(partner, call.params.webhook_event_id)
      ).pipe(mapErrors)
    )
)
