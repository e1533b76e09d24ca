/**
 * `ratelock finance …`: the daily closes of an environment's book and the P&L explained between them. A close now is
 * core's audited `finance.close`; the closes and the P&L are read as the operator API answers them
 * (`GET /operator/v1/finance/closes|pnl`). Each acts through the operator API when it is configured
 * (`OperatorCall.ts`), else on the database, and prints the route's JSON: as it is with `--json`, as a table or
 * CSV made from it otherwise (`internal/financeFormat.ts`). The days are checked here first, by the route's own
 * rules, so a refusal reads the same either way.
 */
import { DailyCloses, OperatorActions, PnlReport } from "@ratelock/core"
import { Console, Effect, Option, Schema } from "effect"
import { CliError, Command, Flag } from "effect/cli"
import { inOrder } from "../api/OperatorFinance.ts"
import * as FinanceFormat from "../internal/financeFormat.ts"
import { given, operatorCall } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag } from "./SharedFlags.ts"

const refused = (userMessage: string) => Effect.fail(new CliError.UserError({ cause: userMessage, userMessage }))

const dayFlag = (name: string, what: string) =>
  Flag.String(name).pipe(Flag.withDescription(`${what}, a UTC date such as 2026-12-01`), Flag.optional)

const spanFlags = {
  environment: environmentFlag,
  from: dayFlag("from", "The first day (default: 30 days before --to)"),
  to: dayFlag("to", "The last day (default: today)")
}

const isDay = Schema.is(PnlReport.Day)

/** The days given, each a date, `--from` on or before `--to`: what the routes accept. */
const span = (input: { readonly from: Option.Option<string>; readonly to: Option.Option<string> }) =>
  Effect.gen(function* () {
    const days = { from: Option.getOrUndefined(input.from), to: Option.getOrUndefined(input.to) }
    for (const [name, day] of Object.entries(days)) {
      if (day !== undefined && !isDay(day))
        return yield* refused(`--${name} is a UTC date such as 2026-12-01, not "${day}"`)
    }
    if (!inOrder(days)) return yield* refused(`--from ${days.from} is after --to ${days.to}`)
    return days
  })

const financeClose = Command.make("close", { environment: environmentFlag, json: jsonFlag }, (input) =>
  operatorCall(Effect.map(OperatorActions.closeBook(input.environment), FinanceFormat.closeJson), (api) =>
    api.finance.close({ headers: {}, payload: { environment: input.environment } })
  ).pipe(Effect.flatMap((closed) => print(input.json, closed, FinanceFormat.close)))
).pipe(
  Command.withDescription(
    "Close the book of an environment now, at the market data in force: the close recorded (its id, time and snapshot) and its P&L since the close before"
  )
)

const financeCloses = Command.make("closes", { ...spanFlags, json: jsonFlag }, (input) =>
  Effect.gen(function* () {
    const query = given({ environment: input.environment, ...(yield* span(input)) })
    const listed = yield* operatorCall(Effect.map(DailyCloses.list(query), FinanceFormat.closesJson), (api) =>
      api.finance.closes({ query })
    )
    yield* print(input.json, listed, FinanceFormat.closes)
  })
).pipe(Command.withDescription("The closes of an environment in the days asked, oldest first, each with its P&L"))

const financePnl = Command.make(
  "pnl",
  {
    ...spanFlags,
    by: Flag.Literals("by", PnlReport.By.literals).pipe(
      Flag.withDescription("The rows: day (the explain of each day), pair (per market pair) or partner"),
      Flag.withDefault("day" as const)
    ),
    json: jsonFlag,
    csv: Flag.Boolean("csv").pipe(
      Flag.withDescription("Print the rows as CSV with a header, every decimal exact"),
      Flag.withDefault(false)
    )
  },
  (input) =>
    Effect.gen(function* () {
      if (input.json && input.csv) return yield* refused("--json and --csv: one or the other")
      const query = given({ environment: input.environment, ...(yield* span(input)), by: input.by })
      const report = yield* operatorCall(Effect.map(DailyCloses.pnl(query), FinanceFormat.pnlJson), (api) =>
        api.finance.pnl({ query })
      )
      yield* input.csv ? Console.log(FinanceFormat.pnlCsv(report)) : print(input.json, report, FinanceFormat.pnl)
    })
).pipe(
  Command.withDescription(
    "The P&L of the periods between closes that end in the days asked, USD: realised and unrealised, each explained line and what is left unexplained, then the totals"
  ),
  Command.withExamples([
    { command: "ratelock finance pnl --environment production", description: "The last 30 days, day by day" },
    {
      command: "ratelock finance pnl --environment production --from 2026-11-01 --to 2026-11-30 --by pair --csv",
      description: "November per market pair, for a spreadsheet"
    }
  ])
)

export const finance = Command.make("finance").pipe(
  Command.withDescription("The daily closes of the book and the P&L explained between them"),
  Command.withSubcommands([financeClose, financeCloses, financePnl])
)
