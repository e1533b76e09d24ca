/**
 * `ratelock operator token …`: the bearer tokens of the operator API (/metrics, /operator/...),
 * each with a name, a role and perhaps an expiry; a secret is shown once at creation and never
 * listed. Through the operator API when it is configured (`OperatorCall.ts`, an admin's token),
 * else on the database: how a new deployment gets its first token.
 */
import { OperatorActions, OperatorRole, OperatorTokens } from "@ratelock/core"
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Format from "../internal/tokenFormat.ts"
import { given, operatorCall } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"

const tokenCreate = Command.make(
  "create",
  {
    name: Flag.String("name").pipe(Flag.withDescription("Who or what holds it (alice, prometheus, ...)")),
    // no default: what a token may do is always chosen, never an admin by omission
    role: Flag.Literals("role", OperatorRole.roles).pipe(
      Flag.withDescription(
        "What it may do: viewer (every read), trader (+ hedge fills), risk (+ market data, limits, policies, scenarios), admin (everything)"
      )
    ),
    expiresIn: Flag.String("expires-in").pipe(
      Flag.withDescription("How long it lives: 30d, 12h, 90m (at most 10 years); without it, until revoked"),
      Flag.optional
    ),
    json: jsonFlag
  },
  (input) => {
    const expiresIn = Option.getOrUndefined(input.expiresIn)
    return operatorCall(OperatorActions.createToken({ name: input.name, role: input.role, expiresIn }), (api) =>
      api.access.createToken({
        headers: {},
        payload: given({ name: input.name, role: input.role, expires_in: expiresIn })
      })
    ).pipe(Effect.flatMap((created) => print(input.json, created, Format.createdToken)))
  }
).pipe(
  Command.withDescription("Create an operator API token (Authorization: Bearer) with a role; it is shown once"),
  Command.withExamples([
    {
      command: "ratelock operator token create --name prometheus --role viewer",
      description: "A token for the scraper: it reads, changes nothing"
    },
    {
      command: "ratelock operator token create --name alice --role trader --expires-in 30d",
      description: "A trader's token for a month"
    }
  ])
)

const tokenList = Command.make("list", { json: jsonFlag }, (input) =>
  operatorCall(
    Effect.map(OperatorTokens.list(), (items) => ({ items })),
    (api) => api.access.tokens()
  ).pipe(Effect.flatMap((list) => print(input.json, list, (view: typeof list) => Format.tokenList(view))))
).pipe(
  Command.withDescription(
    "List operator tokens (live, expired or revoked): role, expiry, last use; never their secrets"
  )
)

const tokenRevoke = Command.make(
  "revoke",
  {
    token: Argument.String("token_id").pipe(Argument.withDescription("The token's id (from token list)")),
    json: jsonFlag
  },
  (input) =>
    operatorCall(OperatorActions.revokeToken(input.token), (api) =>
      api.access.revokeToken({ headers: {}, params: { token_id: input.token } })
    ).pipe(Effect.flatMap((revoked) => print(input.json, revoked, Format.revokedToken)))
).pipe(Command.withDescription("Revoke an operator token: refused by the operator API from its next request"))

const operatorToken = Command.make("token").pipe(
  Command.withDescription("Tokens of the operator API (/metrics, /operator/...), each with a name and a role"),
  Command.withSubcommands([tokenCreate, tokenList, tokenRevoke])
)

export const operator = Command.make("operator").pipe(
  Command.withDescription("The operator API's access"),
  Command.withSubcommands([operatorToken])
)
