/**
 * `ratelock webhook …`: a new URL always comes with a new signing secret, shown this once. It acts
 * through the operator API when it is configured (`OperatorCall.ts`), else on the database as an
 * audited action.
 */
import { OperatorActions } from "@ratelock/core"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { operatorCall } from "./OperatorCall.ts"
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
    operatorCall(OperatorActions.setWebhook(input.partner, input.environment, input.url), (api) =>
      api.partners.setWebhook({
        params: { partner_id: input.partner, environment: input.environment },
        payload: { url: input.url }
      })
    ).pipe(Effect.flatMap((set) => print(input.json, set, Format.webhookSet)))
).pipe(Command.withDescription("Set or replace a webhook URL, with a new signing secret (shown once)"))

export const webhook = Command.make("webhook").pipe(
  Command.withDescription("Webhook URLs and secrets"),
  Command.withSubcommands([webhookSet])
)
