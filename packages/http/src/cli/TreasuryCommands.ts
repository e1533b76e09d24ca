/**
 * `ratelock treasury …`: the hot wallets as the workers last read them, against their thresholds
 * and the payouts due (`Treasury.view`, the JSON of `GET /operator/v1/treasury`).
 */
import { Treasury } from "@ratelock/core"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Format from "../internal/treasuryFormat.ts"
import { onStore } from "./OnStore.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag } from "./SharedFlags.ts"

const treasuryShow = Command.make(
  "show",
  {
    environment: environmentFlag.pipe(Flag.withDescription("Only this environment (default: both)"), Flag.optional),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(Treasury.view({ environment: Option.getOrUndefined(input.environment) }), (view) =>
        print(input.json, view, Format.treasury)
      )
    )
).pipe(
  Command.withDescription(
    "Per environment, chain and asset: the hot wallet's balance as last read, its threshold (RATELOCK_<CHAIN>_HOT_WALLET_MIN_<ASSET>), the payouts due and whether it can pay them; stuck payouts"
  )
)

export const treasury = Command.make("treasury").pipe(
  Command.withDescription("The hot wallets that pay the payouts"),
  Command.withSubcommands([treasuryShow])
)
