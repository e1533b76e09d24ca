/**
 * Sandbox helper routes (`/api/v1/sandbox/...`, beyond the spec): fund a contract on the
 * simulated chain, end its window now, make its next payout fail. Sandbox keys only
 * (`SandboxOnly`); each POST is idempotent under an optional `Idempotency-Key`.
 */
import type { SimulatedChain } from "@ratelock/adapters-chain"
import {
  Contract,
  type ContractRepo,
  type IdempotencyRepo,
  type IdGenerator,
  type WebhookInboxRepo
} from "@ratelock/core"
import { Effect } from "effect"
import type { Digest } from "effect/crypto"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { SandboxPayoutFailure, type SandboxOnly, SandboxTransfer } from "../api/Sandbox.ts"
import { type AuthenticatedPartner, CurrentPartner } from "../api/Security.ts"
import * as SandboxFunding from "../sandbox/SandboxFunding.ts"
import * as SandboxInbox from "../sandbox/SandboxInbox.ts"
import * as SandboxOutcomes from "../sandbox/SandboxOutcomes.ts"
import type { GroupLayer } from "./GroupLayer.ts"
import { mapErrors } from "./HttpErrors.ts"
import * as Idempotent from "./Idempotent.ts"

interface Call {
  readonly params: { readonly fx_contract_id: string }
  readonly headers: { readonly "idempotency-key"?: string | undefined }
  readonly request: HttpServerRequest.HttpServerRequest
  readonly endpoint: { readonly path: string }
}

/** Runs a helper once per `Idempotency-Key`, as the other POSTs do. */
const respond = <E, R>(
  call: Call,
  rendered: (partner: AuthenticatedPartner) => Effect.Effect<IdempotencyRepo.StoredResponse, E, R>
) =>
  Effect.flatMap(CurrentPartner, (partner) =>
    Idempotent.respond(
      partner,
      call.headers["idempotency-key"],
      { request: call.request, route: Idempotent.routeOf(call.endpoint.path, call.params) },
      rendered(partner)
    )
  ).pipe(mapErrors)

export const layer: GroupLayer<
  "sandbox",
  | ContractRepo.ContractRepo
  | SimulatedChain.SimulatedChain
  | IdempotencyRepo.IdempotencyRepo
  | IdGenerator.IdGenerator
  | Digest.Digest
  | WebhookInboxRepo.WebhookInboxRepo,
  SandboxOnly
> = HttpApiBuilder.group(Api, "sandbox", (handlers) =>
  handlers
    .handle("fund", (call) =>
      respond(call, (partner) =>
        Idempotent.render(
          SandboxTransfer,
          202,
          SandboxFunding.fund(partner, call.params.fx_contract_id, call.payload?.amount)
        )
      )
    )
    .handle("expire", (call) =>
      respond(call, (partner) =>
        Idempotent.render(Contract.LockResponse, 200, SandboxOutcomes.expire(partner, call.params.fx_contract_id))
      )
    )
    .handle("failNextPayout", (call) =>
      respond(call, (partner) =>
        Idempotent.render(
          SandboxPayoutFailure,
          202,
          SandboxOutcomes.failNextPayout(partner, call.params.fx_contract_id)
        )
      )
    )
    .handle("webhookInbox", ({ query, request }) =>
      Effect.flatMap(CurrentPartner, (partner) => SandboxInbox.list(partner.partnerId, request, query.limit)).pipe(
        mapErrors
      )
    )
)
