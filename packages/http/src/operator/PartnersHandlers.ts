/**
 * The partners' routes (`api/OperatorPartners.ts`): the list is core's `Partners.listPartners`;
 * every change is an audited action of core's `OperatorActions` (its record written with its
 * change, as the CLI's on the database), its refusals answered as `OperatorErrors.ts` maps them.
 */
import {
  type ChainGateway,
  Environment,
  OperatorActions,
  type Partner,
  type PartnerRepo,
  Partners,
  type WebhookUrlCheck
} from "@ratelock/core"
import type { Layer } from "effect"
import type { SecureRandom } from "effect/crypto"
import type { HttpRouter } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { OperatorApi } from "../api/OperatorApi.ts"
import { CreatedPartner, IssuedKey, RevokedKey } from "../api/OperatorPartners.ts"
import type { OperatorAuth } from "../api/OperatorSecurity.ts"
import type { RequestValidation } from "../api/Validation.ts"
import { mapRefusals } from "./OperatorErrors.ts"
import { type ChangeRequirements, post } from "./OperatorPost.ts"

export type Requirements =
  | ChangeRequirements
  | PartnerRepo.PartnerRepo
  | WebhookUrlCheck.WebhookUrlCheck
  | ChainGateway.ChainGateway
  | SecureRandom.SecureRandom

/** The body's URLs by environment (its keys were checked to be environments). */
const webhookUrls = (urls: Readonly<Record<string, string>> = {}): Partial<Record<Partner.Environment, string>> =>
  Object.fromEntries(
    Environment.all.flatMap((environment) =>
      urls[environment] === undefined ? [] : [[environment, urls[environment]]]
    )
  )

export const layer: Layer.Layer<
  HttpApiGroup.Service<"ratelock-operator", "partners">,
  never,
  OperatorAuth | RequestValidation | HttpRouter.Request.From<"Requires", Requirements>
> = HttpApiBuilder.group(OperatorApi, "partners", (handlers) =>
  handlers
    .handle("partners", () => mapRefusals(Partners.listPartners()))
    .handle("createPartner", (call) =>
      post(
        call,
        CreatedPartner,
        201,
        OperatorActions.createPartner({ name: call.payload.name, webhookUrls: webhookUrls(call.payload.webhook_urls) })
      )
    )
    .handle("setRefundAddress", ({ params, payload }) =>
      mapRefusals(
        OperatorActions.setRefundAddress(params.partner_id, params.environment, params.chain, payload.address)
      )
    )
    .handle("createKey", (call) =>
      post(call, IssuedKey, 201, OperatorActions.createKey(call.params.partner_id, call.payload.environment))
    )
    .handle("revokeKey", (call) => post(call, RevokedKey, 200, OperatorActions.revokeKey(call.params.key_id)))
    .handle("setWebhook", ({ params, payload }) =>
      mapRefusals(OperatorActions.setWebhook(params.partner_id, params.environment, payload.url))
    )
)
