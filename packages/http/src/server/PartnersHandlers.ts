/**
 * `GET /api/v1/partners/me`: who the credentials belong to, straight from the authentication.
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { CurrentPartner } from "../api/Security.ts"
import type { GroupLayer } from "./GroupLayer.ts"

export const layer: GroupLayer<"partners"> = HttpApiBuilder.group(Api, "partners", (handlers) =>
  handlers.handle("me", () =>
    Effect.map(CurrentPartner, (partner) => ({
      partner_id: partner.partnerId,
      partner_name: partner.partnerName,
      api_key_id: partner.apiKeyId,
      environment: partner.environment
    }))
  )
)
