/**
 * `ratelock audit list`: the audit log, newest first, one page at a time, filtered by actor,
 * action, target or instant. Through the operator API when it is configured (`OperatorCall.ts`),
 * else on the database; the flags are checked here first, so a refusal reads the same either way.
 */
import { AuditLog, Fields, OperatorTokens } from "@ratelock/core"
import { DateTime, Effect, Option, Schema } from "effect"
import { CliError, Command, Flag } from "effect/cli"
import { AuditFilter } from "../api/OperatorAccess.ts"
import * as AuditFormat from "../internal/auditFormat.ts"
import { given, operatorCall } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"

const refused = (userMessage: string) => Effect.fail(new CliError.UserError({ cause: userMessage, userMessage }))

const filterFlag = (name: string, what: string) =>
  Flag.String(name).pipe(Flag.withDescription(`Only records ${what} (exactly as recorded)`), Flag.optional)

const filter = (name: string, value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) =>
      Schema.is(AuditFilter)(text) ? Effect.succeed(text) : refused(`--${name} is 1 to 256 characters`)
  })

/** An instant with a zone, or a duration back from now (`24h`, `7d`, `90m`). */
const since = (value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) =>
      Option.match(Schema.decodeUnknownOption(Fields.Datetime)(text), {
        onSome: Effect.succeed,
        onNone: () =>
          Option.match(OperatorTokens.parseExpiresIn(text), {
            onSome: (ago) => Effect.map(DateTime.now, DateTime.subtractDuration(ago)),
            onNone: () =>
              refused(
                `--since is an instant with a zone (2026-11-21T10:00:00Z) or a time back from now (90m, 24h, 7d), not "${text}"`
              )
          })
      })
  })

const limit = (value: Option.Option<number>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (n) =>
      Number.isInteger(n) && n >= 1 && n <= AuditLog.maxLimit
        ? Effect.succeed(n)
        : refused(`--limit is 1 to ${AuditLog.maxLimit}, not ${n}`)
  })

const auditList = Command.make(
  "list",
  {
    actor: filterFlag("actor", "of this operator (a token's name, or cli:<user>@<host>)"),
    action: filterFlag("action", "of this action (limits.set, operator.token.create, ...)"),
    target: filterFlag("target", "on this target's id (a partner's, a corridor's such as production:USD_TO_BRL, ...)"),
    since: Flag.String("since").pipe(
      Flag.withDescription(
        "Only records from then on: an instant (2026-11-21T10:00:00Z) or a time back (90m, 24h, 7d)"
      ),
      Flag.optional
    ),
    cursor: Flag.String("cursor").pipe(
      Flag.withDescription("The next page, older: the cursor the page before ended with"),
      Flag.optional
    ),
    limit: Flag.Int("limit").pipe(
      Flag.withDescription(`At most this many records (1 to ${AuditLog.maxLimit}, default ${AuditLog.defaultLimit})`),
      Flag.optional
    ),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      const query = given({
        actor: yield* filter("actor", input.actor),
        action: yield* filter("action", input.action),
        target: yield* filter("target", input.target),
        since: yield* since(input.since),
        cursor: Option.getOrUndefined(input.cursor),
        limit: yield* limit(input.limit)
      })
      const listed = yield* operatorCall(AuditLog.page(query), (api) => api.access.audit({ query }))
      yield* print(input.json, listed, AuditFormat.page)
    })
).pipe(
  Command.withDescription("The audit log, newest first: who did what to what, when, under which role, and the outcome"),
  Command.withExamples([
    { command: "ratelock audit list --actor alice --since 24h", description: "What alice did in the last day" },
    {
      command: "ratelock audit list --action limits.set --target production:USD_TO_BRL",
      description: "Every change of a corridor's limits"
    }
  ])
)

export const audit = Command.make("audit").pipe(
  Command.withDescription("The audit log of every operator action, through the API or the CLI"),
  Command.withSubcommands([auditList])
)
