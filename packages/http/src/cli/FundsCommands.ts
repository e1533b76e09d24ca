/**
 * `ratelock funds …`: what reached a funding address but funded nothing is the operator's to refund.
 * Both act through the operator API when it is configured (`OperatorCall.ts`), else on the
 * database, where a refund is requested by the CLI's actor (`OnStore.ts`).
 */
import { OperatorActions, UnmatchedFunds } from "@ratelock/core"
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as MoneyViews from "../internal/moneyViews.ts"
import * as Format from "../internal/operatorFormat.ts"
import { given, operatorCall, operatorCallOnChains } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"
import { listLimitFlag } from "./SharedFlags.ts"

const fundsUnmatched = Command.make(
  "unmatched",
  {
    contract: Flag.String("contract").pipe(Flag.withDescription("Only this contract's"), Flag.optional),
    limit: listLimitFlag,
    json: jsonFlag
  },
  (input) => {
    const contractId = Option.getOrUndefined(input.contract)
    return operatorCall(
      Effect.map(UnmatchedFunds.list({ contractId, limit: input.limit }), MoneyViews.unmatchedJson),
      (api) =>
        api.money.unmatchedFunds({
          query: given({ contract_id: contractId, limit: input.limit })
        })
    ).pipe(Effect.flatMap((view) => print(input.json, view, Format.unmatchedFunds)))
  }
).pipe(
  Command.withDescription(
    "Funds that did not fund a contract (after it stopped awaiting funds, or of another token), oldest first: to refund"
  )
)

const fundsRefund = Command.make(
  "refund",
  {
    transferId: Argument.String("transfer-id").pipe(
      Argument.withDescription("The transfer: its transaction hash, or HASH:INDEX (as `funds unmatched` lists it)")
    ),
    to: Flag.String("to").pipe(
      Flag.withDescription("Where to send it (default: the partner's refund address on the chain)"),
      Flag.optional
    ),
    json: jsonFlag
  },
  (input) => {
    const to = Option.getOrUndefined(input.to)
    return operatorCallOnChains(
      Effect.map(OperatorActions.refund({ transferId: input.transferId, to }), MoneyViews.refundJson),
      (api) =>
        api.money.refund({
          headers: {},
          payload: given({ transfer_id: input.transferId, to })
        })
    ).pipe(Effect.flatMap((refund) => print(input.json, refund, Format.refund)))
  }
).pipe(
  Command.withDescription(
    "Refunds from the hot wallet, at most once, to --to or the partner's refund address: an unmatched transfer of the contract's token, whole; or, named by a transfer that funded it, what the books still owe the partner on a contract (a surplus, a defaulted contract's partial funds)"
  )
)

export const funds = Command.make("funds").pipe(
  Command.withDescription("Funds received on funding addresses"),
  Command.withSubcommands([fundsUnmatched, fundsRefund])
)
