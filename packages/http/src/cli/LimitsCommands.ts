/**
 * `ratelock limits …`: each corridor's limits per environment. `set` changes only the limits it is
 * given, so a flag is three-way: absent (kept), `none` (back to the default) or a decimal. Both act
 * through the operator API when it is configured (`OperatorCall.ts`), else on the database.
 */
import { Corridor, CorridorLimits, Money, OperatorActions } from "@ratelock/core"
import { Effect, Option } from "effect"
import { CliError, Command, Flag } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { given, operatorCall } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag } from "./SharedFlags.ts"

/** A limit flag: absent (kept), `none` (back to its default), or a decimal of 0 or more. */
const limitFlag = (name: string, what: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(`${what}, in the corridor's BASE units; "none" puts it back to its default`),
    Flag.optional
  )

const limitValue = (name: string, value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) => {
      if (text === "none") return Effect.succeed(null)
      return Option.match(Money.parse(text), {
        onNone: () =>
          Effect.fail(
            new CliError.UserError({
              cause: text,
              userMessage: `--${name} must be a decimal such as 1000000 or 2500.50, or none: not ${text}`
            })
          ),
        onSome: (decimal) => Effect.succeed(decimal)
      })
    }
  })

const limitsSet = Command.make(
  "set",
  {
    environment: environmentFlag,
    corridor: Flag.Literals("corridor", Corridor.directions).pipe(
      Flag.withDescription("The corridor (direction), e.g. USD_TO_BRL")
    ),
    maxLockNotional: limitFlag("max-lock-notional", "The largest single lock"),
    maxOpenNotional: limitFlag("max-open-notional", "The most the corridor's open and committed locks may hold"),
    maxNetDelta: limitFlag("max-net-delta", "The largest absolute delta (held as its bound, the open notional)"),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      const change = {
        maxLockNotional: yield* limitValue("max-lock-notional", input.maxLockNotional),
        maxOpenNotional: yield* limitValue("max-open-notional", input.maxOpenNotional),
        maxNetDelta: yield* limitValue("max-net-delta", input.maxNetDelta)
      }
      // the body names only the limits given: absent keeps, null puts back the default
      const wire = (name: string, value: Money.Decimal | null | undefined) =>
        value === undefined ? {} : { [name]: value === null ? null : Money.format(value) }
      const set = yield* operatorCall(OperatorActions.setLimits(input.environment, input.corridor, change), (api) =>
        api.desk.setLimits({
          params: { environment: input.environment, corridor: input.corridor },
          payload: {
            ...wire("max_lock_notional", change.maxLockNotional),
            ...wire("max_open_notional", change.maxOpenNotional),
            ...wire("max_net_delta", change.maxNetDelta)
          }
        })
      )
      yield* print(input.json, set, Format.corridorLimitSet)
    })
).pipe(
  Command.withDescription("Set a corridor's limits in one environment (the others stay as they are)"),
  Command.withExamples([
    {
      command: "ratelock limits set --environment production --corridor USD_TO_BRL --max-open-notional 20000000",
      description: "Sell at most 20,000,000 USD of open USD_TO_BRL locks in production"
    },
    {
      command: "ratelock limits set --environment production --corridor USD_TO_BRL --max-lock-notional none",
      description: "Back to the default largest lock"
    }
  ])
)

const limitsShow = Command.make(
  "show",
  {
    environment: environmentFlag.pipe(Flag.optional),
    json: jsonFlag
  },
  (input) => {
    const environment = Option.getOrUndefined(input.environment)
    return operatorCall(CorridorLimits.show({ environment }), (api) =>
      api.desk.limits({ query: given({ environment }) })
    ).pipe(Effect.flatMap((shown) => print(input.json, shown, Format.corridorLimits)))
  }
).pipe(Command.withDescription("Every corridor's limits, with their defaults, its open notional and headroom"))

export const limits = Command.make("limits").pipe(
  Command.withDescription("Corridor limits: the largest lock, open notional and net delta per environment"),
  Command.withSubcommands([limitsSet, limitsShow])
)
