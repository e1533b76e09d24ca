/** `ratelock funds …`: what reached a funding address but funded nothing is the operator's to refund. */
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { hostname, userInfo } from "node:os"
import * as Format from "../internal/operatorFormat.ts"
import { Money, Refunds, UnmatchedFunds } from "@ratelock/core"
import { onChains, onStore } from "./OnStore.ts"
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

/** Who acts from this machine, straight on the database: recorded on what they ask for. */
export const cliActor = () => `cli:${userInfo().username}@${hostname()}`

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
  (input) =>
    onChains(
      Effect.flatMap(
        Refunds.refundTransfer({
          transferId: input.transferId,
          to: Option.getOrUndefined(input.to),
          requestedBy: cliActor()
        }),
        (refund) =>
          print(
            input.json,
            {
              id: refund.id,
              key: refund.key,
              contract_id: refund.contractId,
              amount: Money.format(refund.amount),
              currency: refund.currency,
              destination: refund.destination
            },
            () =>
              `Refund ${refund.id} of ${Money.format(refund.amount)} ${refund.currency} recorded against ${refund.key}; ` +
              `the workers send it to ${refund.destination ?? "the partner's refund address"} from the hot wallet (\`ratelock treasury show\`).`
          )
      )
    )
).pipe(
  Command.withDescription(
    "Refunds from the hot wallet, at most once, to --to or the partner's refund address: an unmatched transfer of the contract's token, whole; or, named by a transfer that funded it, what the books still owe the partner on a contract (a surplus, a defaulted contract's partial funds)"
  )
)

export const funds = Command.make("funds").pipe(
  Command.withDescription("Funds received on funding addresses"),
  Command.withSubcommands([fundsUnmatched, fundsRefund])
)
