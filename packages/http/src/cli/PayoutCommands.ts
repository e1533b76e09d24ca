/**
 * `ratelock payouts …`: the payouts not landed, stuck or failed, one payout's versions beside what
 * the chain asks, and an operator's bump (a higher fee now, within the cap) or cancellation.
 */
import { PayoutDesk, Payouts } from "@ratelock/core"
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Format from "../internal/payoutFormat.ts"
import { onChains, onStore } from "./OnStore.ts"
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
  (input) =>
    onStore(
      Effect.flatMap(
        PayoutDesk.list({
          filter: Option.getOrUndefined(input.status),
          environment: Option.getOrUndefined(input.environment),
          limit: input.limit
        }),
        (payouts) => print(input.json, payouts, Format.list)
      )
    )
).pipe(Command.withDescription("Payouts not landed yet (or stuck, or failed), oldest first, with why each waits"))

const payoutsShow = Command.make("show", { contractId: contractArgument, json: jsonFlag }, (input) =>
  onChains(Effect.flatMap(PayoutDesk.show(input.contractId), (detail) => print(input.json, detail, Format.detail)))
).pipe(Command.withDescription("One payout: every version signed (hash, nonce, fees) and what the chain asks now"))

const replaceCommand = (mode: "bump" | "cancel", description: string) =>
  Command.make(mode, { contractId: contractArgument, json: jsonFlag }, (input) =>
    onChains(
      Effect.flatMap(Payouts.replaceNow(input.contractId, mode), (payout) =>
        print(input.json, { contract_id: payout.contractId, transaction_hash: payout.transactionHash }, () =>
          Format.replaced(mode, payout)
        )
      )
    )
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
