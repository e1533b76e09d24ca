/**
 * `ratelock operator token …`: the bearer tokens of the operator API (/metrics, /operator/...);
 * a secret is shown once at creation and never listed.
 */
import { OperatorTokens } from "@ratelock/core"
import { Effect } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { onStore } from "./OnStore.ts"
import { jsonFlag, print } from "./Output.ts"

const tokenCreate = Command.make(
  "create",
  {
    name: Flag.String("name").pipe(Flag.withDescription("What the token is for (prometheus, alice, ...)")),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.flatMap(OperatorTokens.create({ name: input.name, role: "admin" }), (t) =>
        print(input.json, t, Format.createdToken)
      )
    )
).pipe(
  Command.withDescription("Create an operator API token (Authorization: Bearer); it is shown once"),
  Command.withExamples([
    { command: "ratelock operator token create --name prometheus", description: "A token for the scraper" }
  ])
)

const tokenList = Command.make("list", { json: jsonFlag }, (input) =>
  onStore(Effect.flatMap(OperatorTokens.list(), (tokens) => print(input.json, tokens, Format.tokenList)))
).pipe(Command.withDescription("List operator tokens (live or revoked); never their secrets"))

const tokenRevoke = Command.make(
  "revoke",
  {
    token: Argument.String("token_id").pipe(Argument.withDescription("The token's id (from token list)")),
    json: jsonFlag
  },
  (input) =>
    onStore(Effect.flatMap(OperatorTokens.revoke(input.token), (r) => print(input.json, r, Format.revokedToken)))
).pipe(Command.withDescription("Revoke an operator token: refused by the operator API from its next request"))

const operatorToken = Command.make("token").pipe(
  Command.withDescription("Tokens of the operator API (/metrics, /operator/...)"),
  Command.withSubcommands([tokenCreate, tokenList, tokenRevoke])
)

export const operator = Command.make("operator").pipe(
  Command.withDescription("The operator API's access"),
  Command.withSubcommands([operatorToken])
)
