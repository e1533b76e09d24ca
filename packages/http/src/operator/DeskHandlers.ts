/**
 * The desk's routes (`api/OperatorDesk.ts`), each one core program: a read, or an audited action
 * of core's `OperatorActions` (its record written with its change, as the CLI's).
 */
import {
  type CorridorLimit,
  type CorridorLimitRepo,
  CorridorLimits,
  HedgeDesk,
  HedgeOrder,
  type HedgeOrderRepo,
  HedgePolicy,
  type HedgePolicyRepo,
  type MarketSnapshotRepo,
  Money,
  OperatorActions,
  QuoteExplain,
  StoredQuote,
  type QuoteRepo,
  RiskDesk,
  type RiskScenarioRepo
} from "@ratelock/core"
import { Effect, type Layer, Option, Schema } from "effect"
import type { HttpRouter } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { ValidationFailed } from "../api/Errors.ts"
import { OperatorApi } from "../api/OperatorApi.ts"
import { ArmedVenue } from "../api/OperatorDesk.ts"
import type { OperatorAuth } from "../api/OperatorSecurity.ts"
import type { RequestValidation } from "../api/Validation.ts"
import { mapRefusals } from "./OperatorErrors.ts"
import { OperatorInfo } from "./OperatorInfo.ts"
import { type ChangeRequirements, post } from "./OperatorPost.ts"

export type Requirements =
  | ChangeRequirements
  | CorridorLimitRepo.CorridorLimitRepo
  | HedgePolicyRepo.HedgePolicyRepo
  | HedgeOrderRepo.HedgeOrderRepo
  | RiskScenarioRepo.RiskScenarioRepo
  | QuoteRepo.QuoteRepo
  | MarketSnapshotRepo.MarketSnapshotRepo

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

/**
 * A decimal field of a hedging body, or core's refusal of it (`invalid_policy`, `invalid_fill`:
 * 422), so a malformed value is answered as an out-of-range one is.
 */
const decimalField = (reason: "invalid_policy" | "invalid_fill", name: string, example: string, text: string) =>
  Option.match(Money.parse(text.trim()), {
    onNone: () =>
      Effect.fail(
        new HedgeDesk.HedgeDeskError({ reason, message: `${name} must be a decimal such as ${example} (got ${text})` })
      ),
    onSome: Effect.succeed
  })

const optionalDecimal = (
  reason: "invalid_policy" | "invalid_fill",
  name: string,
  example: string,
  text: string | undefined
) => (text === undefined ? Effect.succeed(undefined) : decimalField(reason, name, example, text))

/** An order as the routes answer it (already encoded: `HedgeOrder.view`). */
const orderView = Schema.toEncoded(HedgeOrder.HedgeOrderView)

/** The quote's explanation, or 404 `quote_not_found` with core's message. */
const explain = (quoteId: string) => mapRefusals(Effect.map(QuoteExplain.explain(quoteId), QuoteExplain.encode))

export const layer: Layer.Layer<
  HttpApiGroup.Service<"ratelock-operator", "desk">,
  never,
  OperatorAuth | RequestValidation | HttpRouter.Request.From<"Requires", Requirements>
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
    .handle("hedgePolicies", ({ query }) =>
      mapRefusals(
        Effect.map(HedgeDesk.policies(query.environment), (list) => ({ items: list.map(HedgeDesk.statusView) }))
      )
    )
    .handle("setHedgePolicy", ({ payload }) =>
      mapRefusals(
        Effect.gen(function* () {
          const policy = yield* OperatorActions.setHedgePolicy({
            environment: payload.environment,
            pair: payload.pair,
            targetRatio: yield* optionalDecimal("invalid_policy", "target_ratio", "1", payload.target_ratio),
            band: yield* decimalField("invalid_policy", "band", "50000", payload.band),
            instrument: payload.instrument,
            valueDays: payload.value_days ?? undefined
          })
          return HedgePolicy.view(policy)
        })
      )
    )
    .handle("fillHedgeOrder", (call) =>
      post(
        call,
        orderView,
        200,
        Effect.gen(function* () {
          const { payload, params } = call
          const rate = yield* decimalField("invalid_fill", "rate", "5.4012", payload.rate)
          const amount = yield* optionalDecimal("invalid_fill", "amount", "100000", payload.amount)
          const order = yield* OperatorActions.fillHedgeOrder(params.order_id, rate, amount, {
            overrideVenue: payload.override_venue === true
          })
          return HedgeOrder.view(order)
        })
      )
    )
    .handle("rejectHedgeOrder", (call) =>
      post(
        call,
        orderView,
        200,
        Effect.map(
          OperatorActions.rejectHedgeOrder(call.params.order_id, call.payload.reason, {
            overrideVenue: call.payload.override_venue === true
          }),
          HedgeOrder.view
        )
      )
    )
    .handle("armSimulatedVenue", (call) =>
      post(
        call,
        ArmedVenue,
        200,
        Effect.gen(function* () {
          yield* OperatorActions.armSimulatedVenue(call.payload.action)
          return { armed: call.payload.action, hedging: (yield* OperatorInfo).hedging }
        })
      )
    )
    .handle("scenarios", () => mapRefusals(Effect.map(RiskDesk.scenarioList(), (items) => ({ items }))))
    .handle("setScenarios", ({ payload }) =>
      mapRefusals(
        Effect.map(OperatorActions.setScenarios(payload), (stored) => ({ stored: stored.map((s) => s.name) }))
      )
    )
    .handle("quote", ({ params }) => mapRefusals(StoredQuote.read(params.quote_id)))
    .handle("explainQuote", ({ params }) => explain(params.quote_id))
)
