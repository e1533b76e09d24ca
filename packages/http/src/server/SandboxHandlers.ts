/**
 * Sandbox helper routes (`/api/v1/sandbox/...`, beyond the spec): fund a contract on the
 * simulated chain, end its window now, make its next payout fail. Sandbox keys only
 * (`SandboxOnly`); each POST is idempotent under an optional `Idempotency-Key`.
 */
import type { SimulatedChain } from "@ratelock/adapters-chain"
import {
  Contract,
  type ContractRepo,
  type EventRepo,
  type IdempotencyRepo,
  type IdGenerator,
  type WebhookInboxRepo
} from "@ratelock/core"
import { Effect } from "effect"
import type { Digest } from "effect/crypto"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { SandboxPayoutFailure, type SandboxOnly, SandboxTransfer } from "../api/Sandbox.ts"
import { CurrentPartner } from "../api/Security.ts"
import * as SandboxFunding from "../sandbox/SandboxFunding.ts"
import * as SandboxInbox from "../sandbox/SandboxInbox.ts"
import * as SandboxOutcomes from "../sandbox/SandboxOutcomes.ts"
import type { GroupLayer } from "./GroupLayer.ts"
import { mapErrors } from "./HttpErrors.ts"
import * as Idempotent from "./Idempotent.ts"

export const layer: GroupLayer<
  "sandbox",
  | ContractRepo.ContractRepo
  | EventRepo.EventRepo
  | SimulatedChain.SimulatedChain
  | IdempotencyRepo.IdempotencyRepo
  | IdGenerator.IdGenerator
  | Digest.Digest
  | WebhookInboxRepo.WebhookInboxRepo,
  SandboxOnly
> = HttpApiBuilder.group(Api, "sandbox", (handlers) =>
  handlers
    .handle("fund", (call) =>
      Idempotent.post(call, SandboxTransfer, 202, (partner) =>
        SandboxFunding.fund(partner, call.params.fx_contract_id, call.payload?.amount)
      ).pipe(mapErrors)
    )
    .handle("expire", (call) =>
      Idempotent.post(call, Contract.LockResponse, 200, (partner) =>
        SandboxOutcomes.expire(partner, call.params.fx_contract_id)
      ).pipe(mapErrors)
    )
    .handle("failNextPayout", (call) =>
      Idempotent.post(call, SandboxPayoutFailure, 202, (partner) =>
        SandboxOutcomes.failNextPayout(partner, call.params.fx_contract_id)
      ).pipe(mapErrors)
    )
    .handle("webhookInbox", ({ query, request }) =>
      Effect.flatMap(CurrentPartner, (partner) => SandboxInbox.list(partner.partnerId, request, query.limit)).pipe(
        mapErrors
      )
    )
)
