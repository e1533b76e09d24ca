/**
 * `ratelock key …`: rotation is issue-then-revoke, so a partner never has to go without a live key.
 * Both act through the operator API when it is configured (`OperatorCall.ts`), else on the
 * database as an audited action.
 */
import { OperatorActions } from "@ratelock/core"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { operatorCall } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag, partnerFlag } from "./SharedFlags.ts"

const keyCreate = Command.make(
  "create",
  {
    partner: partnerFlag,
    environment: environmentFlag,
    json: jsonFlag
  },
  (input) =>
    operatorCall(OperatorActions.createKey(input.partner, input.environment), (api) =>
      api.partners.createKey({
        params: { partner_id: input.partner },
        headers: {},
        payload: { environment: input.environment }
      })
    ).pipe(Effect.flatMap((key) => print(input.json, key, Format.issuedKey)))
).pipe(Command.withDescription("Issue another API key (rotation: the old one stays live until revoked)"))

const keyRevoke = Command.make(
  "revoke",
  { key: Flag.String("key").pipe(Flag.withDescription("The API key id")), json: jsonFlag },
  (input) =>
    operatorCall(OperatorActions.revokeKey(input.key), (api) =>
      api.partners.revokeKey({ params: { key_id: input.key }, headers: {} })
    ).pipe(Effect.flatMap((revoked) => print(input.json, revoked, Format.revokedKey)))
).pipe(Command.withDescription("Revoke an API key at once"))

export const key = Command.make("key").pipe(
  Command.withDescription("Issue and revoke API keys"),
  Command.withSubcommands([keyCreate, keyRevoke])
)
