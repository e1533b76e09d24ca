/**
 * `ratelock payouts …`: the payouts not landed, stuck or failed, one payout's versions beside what
 * the chain asks, and an operator's bump (a higher fee now, within the cap) or cancellation. Each
 * acts through the operator API when it is configured (`OperatorCall.ts`), else on the database.
 */
import { OperatorActions, PayoutDesk } from "@ratelock/core"
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as MoneyViews from "../internal/moneyViews.ts"
import * as Format from "../internal/payoutFormat.ts"
import { given, operatorCall, operatorCallOnChains } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag, listLimitFlag } from "./SharedFlags.ts"

const contractArgument = Argument.String("contract-id").pipe(Argument.withDescription("The contract whose payout"))

const payoutsList = Command.make(
  "list",
  {
    status: Flag.Literals("status", PayoutDesk.PayoutFilter.literals).pipe(
      Flag.withDescription("pending (not landed: default), stuck (fees above the cap, an empty hot wallet) or failed"),
      Flag.optional
    ),
    environment: environmentFlag.pipe(Flag.optional),
    limit: listLimitFlag,
    json: jsonFlag
  },
  (input) => {
    const query = {
      filter: Option.getOrUndefined(input.status),
      environment: Option.getOrUndefined(input.environment),
      limit: input.limit
    }
    return operatorCall(
      Effect.map(PayoutDesk.list(query), (items) => ({ items })),
      (api) =>
        api.operator.payouts({
          query: given({ status: query.filter, environment: query.environment, limit: query.limit })
        })
    ).pipe(Effect.flatMap((payouts) => print(input.json, payouts, Format.list)))
  }
).pipe(Command.withDescription("Payouts not landed yet (or stuck, or failed), oldest first, with why each waits"))

const payoutsShow = Command.make("show", { contractId: contractArgument, json: jsonFlag }, (input) =>
  operatorCallOnChains(PayoutDesk.show(input.contractId), (api) =>
    api.operator.payout({ params: { contract_id: input.contractId } })
  ).pipe(Effect.flatMap((detail) => print(input.json, detail, Format.detail)))
).pipe(Command.withDescription("One payout: every version signed (hash, nonce, fees) and what the chain asks now"))

const replaceCommand = (mode: "bump" | "cancel", description: string) =>
  Command.make(mode, { contractId: contractArgument, json: jsonFlag }, (input) =>
    operatorCallOnChains(
      Effect.map(OperatorActions.replacePayout(input.contractId, mode), MoneyViews.replacedJson),
      (api) => {
        const params = { params: { contract_id: input.contractId }, headers: {} }
        return mode === "bump" ? api.money.bumpPayout(params) : api.money.cancelPayout(params)
      }
    ).pipe(Effect.flatMap((payout) => print(input.json, payout, (p: typeof payout) => Format.replaced(mode, p))))
  ).pipe(Command.withDescription(description))

export const payouts = Command.make("payouts").pipe(
  Command.withDescription("Payouts on chain: what is late and why, and the operator's bump and cancel"),
  Command.withSubcommands([
    payoutsList,
    payoutsShow,
    replaceCommand(
      "bump",
      "Replace a payout not mined yet now, at a higher fee (at least 12.5 % more, within RATELOCK_<CHAIN>_MAX_FEE_GWEI)"
    ),
    replaceCommand(
      "cancel",
      "Cancel a payout not mined yet (EVM: a 0-value transaction at its nonce); once mined, it is sent again as a new one"
    )
  ])
)
