/**
 * The operator API's desk: corridor limits, hedge policies, hedge orders' fills and rejections
 * (and the simulated venue's next outcome), risk scenarios, and a quote's explanation. Each route
 * declares the role it needs (`OperatorRoles.ts`) and, if it changes something, the audited
 * action it takes; its JSON is what the CLI's `--json` prints.
 */
import {
  Corridor,
  CorridorLimits,
  HedgeDesk,
  HedgeOrder,
  HedgePolicy,
  Partner,
  QuoteExplain,
  StoredQuote,
  RiskDesk,
  SimulatedVenueControl
} from "@ratelock/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  Conflict,
  Forbidden,
  InternalError,
  NotFound,
  PayloadTooLarge,
  Unauthorized,
  ValidationFailed
} from "./Errors.ts"
import { OptionalIdempotencyKey } from "./Headers.ts"
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

/** `?environment=` of the desk's lists: both environments unless one is named. */
const EnvironmentQuery = {
  environment: Schema.optionalKey(Partner.Environment).annotate({ description: "Only this environment" })
}

/** The hedge policies with where each pair stands (`ratelock hedge policy show --json`). */
export const HedgePolicies = Schema.Struct({
  items: Schema.Array(Schema.toEncoded(HedgeDesk.PolicyStatusView))
}).annotate({ identifier: "OperatorHedgePolicies" })

/** A decimal as the operator writes it; read by the handler, so a malformed one is refused as core refuses a bad value (422). */
const DecimalText = (description: string) => Schema.String.annotate({ description })

/** A policy as `ratelock hedge policy set` takes it (the pair has a slash: it goes in the body). */
export const HedgePolicyChange = Schema.Struct({
  environment: Partner.Environment,
  pair: Schema.String.annotate({ description: "The market pair in its usual order, e.g. USD/BRL" }),
  target_ratio: Schema.optionalKey(DecimalText("The share of the delta to hedge, 0 to 1 (default 1)")),
  band: DecimalText("BASE units the position may stray from its target before an order is placed (at least 0.01)"),
  instrument: HedgePolicy.Instrument,
  value_days: Schema.optionalKey(Schema.NullOr(Schema.Int)).annotate({
    description: "A forward's calendar days to value, 1 to 365; none for spot"
  })
}).annotate({ identifier: "OperatorHedgePolicyChange" })

const overrideVenue = Schema.optionalKey(Schema.Boolean).annotate({
  description:
    "The order went to another venue than manual (left there when the host changed venue): record the outcome confirmed at that venue"
})

export const HedgeFill = Schema.Struct({
  rate: DecimalText("The rate filled at, QUOTE per BASE, above 0"),
  amount: Schema.optionalKey(DecimalText("BASE units filled, above 0 and at most the order's (default: all of it)")),
  override_venue: overrideVenue
}).annotate({ identifier: "OperatorHedgeFill" })

export const HedgeRejection = Schema.Struct({
  reason: Schema.String.annotate({ description: "Why the order was not executed" }),
  override_venue: overrideVenue
}).annotate({ identifier: "OperatorHedgeRejection" })

/** What `ratelock hedge simulate --json` prints: what was armed, and where this deployment's orders go. */
export const ArmedVenue = Schema.Struct({
  armed: SimulatedVenueControl.Action,
  hedging: Schema.Literals(["off", "manual", "simulated"]).annotate({
    description: "RATELOCK_HEDGING of the process that answered: only simulated sends orders to this venue"
  })
}).annotate({ identifier: "OperatorArmedVenue" })

/** Every scenario the risk report runs (`ratelock risk scenario list --json`). */
export const Scenarios = Schema.Struct({ items: Schema.Array(RiskDesk.ScenarioListing) }).annotate({
  identifier: "OperatorRiskScenarios"
})

/** The names of the scenarios stored (`ratelock risk scenario set --json`). */
export const StoredScenarios = Schema.Struct({ stored: Schema.Array(Schema.String) }).annotate({
  identifier: "OperatorStoredScenarios"
})

const orderParams = { order_id: Schema.String.annotate({ description: "The hedge order's id" }) }

export class DeskGroup extends HttpApiGroup.make("desk")
  .add(
    HttpApiEndpoint.get("limits", "/v1/limits", {
      query: EnvironmentQuery,
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
      .annotate(OpenApi.Summary, "Set a corridor's limits in one environment (those not given stay as they are)"),
    HttpApiEndpoint.get("hedgePolicies", "/v1/hedge/policies", {
      query: EnvironmentQuery,
      success: HedgePolicies,
      error: reading
    })
      .annotate(RequiredRole, "viewer")
      .annotate(OpenApi.Summary, "The hedge policies, each with its pair's position and the order it waits on"),
    HttpApiEndpoint.put("setHedgePolicy", "/v1/hedge/policies", {
      payload: HedgePolicyChange,
      success: Schema.toEncoded(HedgePolicy.HedgePolicyView),
      error: changing
    })
      .annotate(RequiredRole, "risk")
      .annotate(AuditedAction, { action: "hedge.policy.set", targetKind: "hedge_policy" })
      .annotate(
        OpenApi.Summary,
        "Create or replace a market pair's hedge policy in an environment; 422 names every field it breaks"
      ),
    HttpApiEndpoint.post("fillHedgeOrder", "/v1/hedge/orders/:order_id/fill", {
      params: orderParams,
      headers: OptionalIdempotencyKey,
      payload: HedgeFill,
      success: Schema.toEncoded(HedgeOrder.HedgeOrderView),
      error: changing
    })
      .annotate(RequiredRole, "trader")
      .annotate(AuditedAction, { action: "hedge.order.fill", targetKind: "hedge_order" })
      .annotate(
        OpenApi.Summary,
        "Record a trader's fill of a manual hedge order (the rest is decided anew): 404 unknown, 409 no longer open or not manual, 422 a bad rate or amount"
      ),
    HttpApiEndpoint.post("rejectHedgeOrder", "/v1/hedge/orders/:order_id/reject", {
      params: orderParams,
      headers: OptionalIdempotencyKey,
      payload: HedgeRejection,
      success: Schema.toEncoded(HedgeOrder.HedgeOrderView),
      error: changing
    })
      .annotate(RequiredRole, "trader")
      .annotate(AuditedAction, { action: "hedge.order.reject", targetKind: "hedge_order" })
      .annotate(OpenApi.Summary, "Record that a manual hedge order was not executed; the next pass decides anew"),
    HttpApiEndpoint.post("armSimulatedVenue", "/v1/hedge/simulated-venue/arm", {
      headers: OptionalIdempotencyKey,
      payload: Schema.Struct({ action: SimulatedVenueControl.Action }),
      success: ArmedVenue,
      error: changing
    })
      .annotate(RequiredRole, "trader")
      .annotate(AuditedAction, { action: "hedge.simulated_venue.arm", targetKind: "hedge_venue" })
      .annotate(
        OpenApi.Summary,
        "Tell the simulated hedge venue to reject, or to time out, the next new order (armed actions queue up)"
      ),
    HttpApiEndpoint.get("scenarios", "/v1/risk/scenarios", { success: Scenarios, error: reading })
      .annotate(RequiredRole, "viewer")
      .annotate(OpenApi.Summary, "Every stress scenario the risk report runs: the defaults and the operator's"),
    HttpApiEndpoint.put("setScenarios", "/v1/risk/scenarios", {
      // the document's text, validated whole as `ratelock risk scenario set` does
      payload: Schema.String.annotate({
        description:
          'One scenario or an array of them, as JSON: {"name", "description", "spot_shocks": {"USD/MXN": "0.20"}, "vol_shift": "0.05"}'
      }).pipe(HttpApiSchema.asText({ contentType: "application/json" })),
      success: StoredScenarios,
      error: [...changing, PayloadTooLarge]
    })
      .annotate(RequiredRole, "risk")
      .annotate(AuditedAction, { action: "risk.scenarios.set", targetKind: "risk_scenario" })
      .annotate(
        OpenApi.Summary,
        "Store operator stress scenarios (one named like a stored one or a default replaces it); 422 lists every problem, nothing stored"
      ),
    HttpApiEndpoint.get("quote", "/v1/quotes/:quote_id", {
      params: { quote_id: Schema.String },
      success: Schema.toEncoded(StoredQuote.View),
      error: [...reading, NotFound]
    })
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "A stored quote, any partner's: its terms, its price and the snapshot that priced it (what `ratelock simulate lock --quote-id` simulates)"
      ),
    HttpApiEndpoint.get("explainQuote", "/v1/quotes/:quote_id/explain", {
      params: { quote_id: Schema.String },
      success: Schema.toEncoded(QuoteExplain.Explanation),
      error: [...reading, NotFound]
    })
      .annotate(RequiredRole, "viewer")
      .annotate(
        OpenApi.Summary,
        "What priced a quote (its snapshot and model inputs) and whether they reproduce its premium under this deployment's policy"
      )
  )
  .middleware(OperatorAuth)
  .prefix("/operator")
  .annotate(OpenApi.Description, "Limits, hedging, scenarios and quotes: what the desk sets and examines") {}
