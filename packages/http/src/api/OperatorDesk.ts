/**
 * The operator API's desk: corridor limits (and, beside them, hedge policies, hedge orders' fills
 * and rejections, risk scenarios). Each route declares the role it needs (`OperatorRoles.ts`) and,
 * if it changes something, the audited action it takes; its JSON is what the CLI's `--json` prints.
 */
import { Corridor, CorridorLimits, Partner } from "@ratelock/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Conflict, Forbidden, InternalError, NotFound, Unauthorized, ValidationFailed } from "./Errors.ts"
import { AuditedAction, RequiredRole } from "./OperatorRoles.ts"
import { OperatorAuth } from "./OperatorSecurity.ts"

/** What every operator route may answer; a change may also be refused. */
export const reading = [Unauthorized, Forbidden, ValidationFailed, InternalError] as const
export const changing = [...reading, NotFound, Conflict] as const

/** A limit as it is set: a decimal of 0 or more, `null` to put it back to its default, absent to keep it. */
const LimitValue = Schema.optionalKey(Schema.NullOr(Schema.String)).annotate({
  description: "A decimal in the corridor's BASE units; null: back to the default; absent: unchanged"
})

export const CorridorLimitsView = Schema.Struct({ corridors: Schema.Array(CorridorLimits.CorridorListing) }).annotate({
  identifier: "OperatorCorridorLimits"
})

export class DeskGroup extends HttpApiGroup.make("desk")
  .add(
    HttpApiEndpoint.get("limits", "/v1/limits", {
      query: {
        environment: Schema.optionalKey(Partner.Environment).annotate({ description: "Only this environment" })
      },
      success: CorridorLimitsView,
      error: reading
    })
      .annotate(RequiredRole, "viewer")
      .annotate(OpenApi.Summary, "Every corridor's limits, with their defaults, open notional and headroom"),
    HttpApiEndpoint.put("setLimits", "/v1/limits/:environment/:corridor", {
      params: { environment: Partner.Environment, corridor: Corridor.Direction },
      payload: Schema.Struct({
        max_lock_notional: LimitValue,
        max_open_notional: LimitValue,
        max_net_delta: LimitValue
      }),
      success: CorridorLimits.CorridorListing,
      error: changing
    })
      .annotate(RequiredRole, "risk")
      .annotate(AuditedAction, { action: "limits.set", targetKind: "corridor" })
      .annotate(OpenApi.Summary, "Set a corridor's limits in one environment (those not given stay as they are)")
  )
  .middleware(OperatorAuth)
  .prefix("/operator")
  .annotate(OpenApi.Description, "Limits, hedging and scenarios: what the risk desk sets") {}
