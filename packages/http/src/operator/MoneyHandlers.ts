/**
 * The money group's routes (`api/OperatorMoney.ts`): the unmatched funds read from the store, and
 * every change an audited action of core's `OperatorActions` (its record written with its change,
 * a payout's bump with the version it stores, before the broadcast), in the JSON the CLI prints
 * (`internal/moneyViews.ts`). Refusals answer 404, 409 or 422 with core's message.
 */
import {
  type ChainGateway,
  type ContractRepo,
  type MovementRepo,
  OperatorActions,
  type PayoutRepo,
  type ReconciliationRepo,
  UnmatchedFunds
} from "@ratelock/core"
import { Effect, Option, type Layer } from "effect"
import type { HttpRouter } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { envelope, ValidationFailed } from "../api/Errors.ts"
import { OperatorApi } from "../api/OperatorApi.ts"
import { InflowRecorded, Reconciled, RefundRecorded, ReplacedPayout } from "../api/OperatorMoney.ts"
import type { OperatorAuth } from "../api/OperatorSecurity.ts"
import type { RequestValidation } from "../api/Validation.ts"
import * as MoneyViews from "../internal/moneyViews.ts"
import { mapRefusals } from "./OperatorErrors.ts"
import { type ChangeRequirements, post } from "./OperatorPost.ts"

export type Requirements =
  | ChangeRequirements
  | ContractRepo.ContractRepo
  | MovementRepo.MovementRepo
  | PayoutRepo.PayoutRepo
  | ReconciliationRepo.ReconciliationRepo
  | ChainGateway.ChainGateway

/** The body's amount: a decimal above 0, else 422 with the message the CLI gives for `--amount`. */
const inflowAmount = (text: string) =>
  Option.match(MoneyViews.inflowAmount(text), {
    onSome: Effect.succeed,
    onNone: () =>
      Effect.fail(
        new ValidationFailed({
          ...envelope("invalid_amount", MoneyViews.notAnInflowAmount("amount", text)),
          detail: []
        })
      )
  })

/** A payout's bump or cancellation: its version stored with the audit record, then broadcast. */
const replaced = (contractId: string, mode: "bump" | "cancel") =>
  Effect.map(OperatorActions.replacePayout(contractId, mode), MoneyViews.replacedJson)

export const layer: Layer.Layer<
  HttpApiGroup.Service<"ratelock-operator", "money">,
  never,
  OperatorAuth | RequestValidation | HttpRouter.Request.From<"Requires", Requirements>
> = HttpApiBuilder.group(OperatorApi, "money", (handlers) =>
  handlers
    .handle("unmatchedFunds", ({ query }) =>
      mapRefusals(
        Effect.map(
          UnmatchedFunds.list({ contractId: query.contract_id, limit: query.limit ?? 100 }),
          MoneyViews.unmatchedJson
        )
      )
    )
    .handle("refund", (call) =>
      post(
        call,
        RefundRecorded,
        201,
        Effect.map(
          OperatorActions.refund({ transferId: call.payload.transfer_id, to: call.payload.to }),
          MoneyViews.refundJson
        )
      )
    )
    .handle("bumpPayout", (call) => post(call, ReplacedPayout, 200, replaced(call.params.contract_id, "bump")))
    .handle("cancelPayout", (call) => post(call, ReplacedPayout, 200, replaced(call.params.contract_id, "cancel")))
    .handle("reconcile", (call) =>
      post(
        call,
        Reconciled,
        200,
        Effect.map(OperatorActions.reconcile({ environment: call.payload.environment }), MoneyViews.reconciledJson)
      )
    )
    .handle("recordInflow", (call) =>
      Effect.flatMap(inflowAmount(call.payload.amount), (amount) =>
        post(
          call,
          InflowRecorded,
          201,
          Effect.map(
            OperatorActions.recordInflow({
              environment: call.payload.environment,
              chain: call.payload.chain,
              wallet: call.payload.wallet ?? "hot_wallet",
              currency: call.payload.currency,
              amount,
              as: call.payload.as
            }),
            MoneyViews.inflowJson
          )
        )
      )
    )
)
