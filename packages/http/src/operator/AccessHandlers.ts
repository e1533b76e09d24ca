/**
 * The access routes (`api/OperatorAccess.ts`): the tokens (core's `OperatorTokens` to list them,
 * `OperatorActions` to create and revoke one, each audited with its change) and the audit log
 * (core's `AuditLog.page`). The CLI's database mode calls the same programs, so both print the same.
 */
import { AuditLog, OperatorActions, type OperatorTokenRepo, OperatorTokens } from "@ratelock/core"
import { Effect, type Layer } from "effect"
import type { SecureRandom } from "effect/crypto"
import type { HttpRouter } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { OperatorApi } from "../api/OperatorApi.ts"
import type { OperatorAuth } from "../api/OperatorSecurity.ts"
import type { RequestValidation } from "../api/Validation.ts"
import { mapRefusals } from "./OperatorErrors.ts"
import { type ChangeRequirements, post } from "./OperatorPost.ts"

export type Requirements = ChangeRequirements | OperatorTokenRepo.OperatorTokenRepo | SecureRandom.SecureRandom

export const layer: Layer.Layer<
  HttpApiGroup.Service<"ratelock-operator", "access">,
  never,
  OperatorAuth | RequestValidation | HttpRouter.Request.From<"Requires", Requirements>
> = HttpApiBuilder.group(OperatorApi, "access", (handlers) =>
  handlers
    .handle("tokens", () => mapRefusals(Effect.map(OperatorTokens.list(), (items) => ({ items }))))
    .handle("createToken", (call) =>
      post(
        call,
        OperatorTokens.CreatedToken,
        201,
        OperatorActions.createToken({
          name: call.payload.name,
          role: call.payload.role,
          expiresIn: call.payload.expires_in
        })
      )
    )
    .handle("revokeToken", (call) =>
      post(call, OperatorTokens.RevokedToken, 200, OperatorActions.revokeToken(call.params.token_id))
    )
    .handle("audit", ({ query }) => mapRefusals(AuditLog.page(query)))
)
