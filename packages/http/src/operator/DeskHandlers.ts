/**
 * The desk's routes (`api/OperatorDesk.ts`), each one core program: a read, or an audited action
 * of core's `OperatorActions` (its record written with its change, as the CLI's).
 */
import {
  type AuditRepo,
  type CorridorLimit,
  type CorridorLimitRepo,
  CorridorLimits,
  type IdGenerator,
  Money,
  OperatorActions,
  type StoreTransaction
} from "@ratelock/core"
import { Effect, type Layer } from "effect"
import type { HttpRouter } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { ValidationFailed } from "../api/Errors.ts"
import { OperatorApi } from "../api/OperatorApi.ts"
import type { OperatorAuth } from "../api/OperatorSecurity.ts"
import { mapRefusals } from "./OperatorErrors.ts"

export type Requirements =
  | CorridorLimitRepo.CorridorLimitRepo
  | AuditRepo.AuditRepo
  | StoreTransaction.StoreTransaction
  | IdGenerator.IdGenerator

/** A limit of the body: absent (kept), null (back to its default), or a decimal of 0 or more. */
const limitValue = (name: string, value: string | null | undefined) => {
  if (value === undefined || value === null) return Effect.succeed(value)
  const parsed = Money.parse(value)
  if (parsed._tag === "Some") return Effect.succeed(parsed.value)
  return Effect.fail(
    new ValidationFailed({
      error: {
        code: "invalid_limits",
        message: `${name} must be a decimal such as 1000000 or 2500.50, or null: not ${value}`
      },
      detail: []
    })
  )
}

export const layer: Layer.Layer<
  HttpApiGroup.Service<"ratelock-operator", "desk">,
  never,
  OperatorAuth | HttpRouter.Request.From<"Requires", Requirements>
> = HttpApiBuilder.group(OperatorApi, "desk", (handlers) =>
  handlers
    .handle("limits", ({ query }) => mapRefusals(CorridorLimits.show({ environment: query.environment })))
    .handle("setLimits", ({ params, payload }) =>
      Effect.gen(function* () {
        const change: CorridorLimit.LimitChange = {
          maxLockNotional: yield* limitValue("max_lock_notional", payload.max_lock_notional),
          maxOpenNotional: yield* limitValue("max_open_notional", payload.max_open_notional),
          maxNetDelta: yield* limitValue("max_net_delta", payload.max_net_delta)
        }
        return yield* mapRefusals(OperatorActions.setLimits(params.environment, params.corridor, change))
      })
    )
)
