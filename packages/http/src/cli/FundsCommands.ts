/** `ratelock funds …`: what reached a funding address but funded nothing is the operator's to refund. */
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { UnmatchedFunds } from "@ratelock/core"
import { onStore } from "./OnStore.ts"
import { jsonFlag, print } from "./Output.ts"
import { listLimitFlag } from "./SharedFlags.ts"

const fundsUnmatched = Command.make(
  "unmatched",
  {
    contract: Flag.String("contract").pipe(Flag.withDescription("Only this contract's"), Flag.optional),
    limit: listLimitFlag,
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(
        UnmatchedFunds.list({ contractId: Option.getOrUndefined(input.contract), limit: input.limit }),
        (transfers) => print(input.json, transfers, Format.unmatchedFunds)
      )
    )
).pipe(
  Command.withDescription(
    "Funds that did not fund a contract (after it stopped awaiting funds, or of another token), oldest first: to refund"
  )
)

export const funds = Command.make("funds").pipe(
  Command.withDescription("Funds received on funding addresses"),
  Command.withSubcommands([fundsUnmatched])
)
