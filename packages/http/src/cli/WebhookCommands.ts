/** `ratelock webhook …`: a new URL always comes with a new signing secret, shown this once. */
import { Partners } from "@ratelock/core"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { onStore } from "./OnStore.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag, partnerFlag } from "./SharedFlags.ts"

const webhookSet = Command.make(
  "set",
  {
    partner: partnerFlag,
    environment: environmentFlag,
    url: Flag.String("url").pipe(Flag.withDescription("The webhook URL")),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(Partners.setWebhook(input.partner, input.environment, input.url), (w) =>
        print(input.json, w, Format.webhookSet)
      )
    )
).pipe(Command.withDescription("Set or replace a webhook URL, with a new signing secret (shown once)"))

export const webhook = Command.make("webhook").pipe(
  Command.withDescription("Webhook URLs and secrets"),
  Command.withSubcommands([webhookSet])
)
