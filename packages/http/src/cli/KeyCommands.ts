/** `ratelock key …`: rotation is issue-then-revoke, so a partner never has to go without a live key. */
import { Partners } from "@ratelock/core"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { onStore } from "./OnStore.ts"
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
    onStore(
      Effect.flatMap(Partners.createKey(input.partner, input.environment), (key) =>
        print(input.json, key, Format.issuedKey)
      )
    )
).pipe(Command.withDescription("Issue another API key (rotation: the old one stays live until revoked)"))

const keyRevoke = Command.make(
  "revoke",
  { key: Flag.String("key").pipe(Flag.withDescription("The API key id")), json: jsonFlag },
  (input) => onStore(Effect.flatMap(Partners.revokeKey(input.key), (r) => print(input.json, r, Format.revokedKey)))
).pipe(Command.withDescription("Revoke an API key at once"))

export const key = Command.make("key").pipe(
  Command.withDescription("Issue and revoke API keys"),
  Command.withSubcommands([keyCreate, keyRevoke])
)
