/**
 * The finance group's routes (`api/OperatorFinance.ts`), each one core program: the P&L report and the closes are
 * read (`DailyCloses.pnl`, `DailyCloses.list`); a close now is core's audited `finance.close`
 * (`OperatorActions.closeBook`), its record written with the close. Their JSON is what the CLI prints
 * (`internal/financeFormat.ts`). A close refused for want of market data answers 409 `no_market_data` with core's
 * message.
 */
import {
  type ContractRepo,
  DailyCloses,
  type DailyCloseRepo,
  type HedgeOrderRepo,
  type MarketData,
  type MovementRepo,
  OperatorActions,
  type PayoutRepo
} from "@ratelock/core"
import { Effect, type Layer } from "effect"
import type { HttpRouter } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { OperatorApi } from "../api/OperatorApi.ts"
import { Close } from "../api/OperatorFinance.ts"
import type { OperatorAuth } from "../api/OperatorSecurity.ts"
import type { RequestValidation } from "../api/Validation.ts"
import * as FinanceFormat from "../internal/financeFormat.ts"
import { mapRefusals } from "./OperatorErrors.ts"
import { type ChangeRequirements, post } from "./OperatorPost.ts"

export type Requirements =
  | ChangeRequirements
  | DailyCloseRepo.DailyCloseRepo
  | MarketData.MarketData
  | ContractRepo.ContractRepo
  | PayoutRepo.PayoutRepo
  | HedgeOrderRepo.HedgeOrderRepo
  | MovementRepo.MovementRepo

export const layer: Layer.Layer<
  HttpApiGroup.Service<"ratelock-operator", "finance">,
  never,
  OperatorAuth | RequestValidation | HttpRouter.Request.From<"Requires", Requirements>
> = HttpApiBuilder.group(OperatorApi, "finance", (handlers) =>
  handlers
    .handle("pnl", ({ query }) => mapRefusals(Effect.map(DailyCloses.pnl(query), FinanceFormat.pnlJson)))
    .handle("closes", ({ query }) => mapRefusals(Effect.map(DailyCloses.list(query), FinanceFormat.closesJson)))
    .handle("close", (call) =>
      post(call, Close, 201, Effect.map(OperatorActions.closeBook(call.payload.environment), FinanceFormat.closeJson))
    )
)
