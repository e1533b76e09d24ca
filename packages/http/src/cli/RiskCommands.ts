/**
 * `ratelock risk …`: the book of an environment (risk.md) and the stress scenarios it is run
 * through, the operator's beside the defaults. Each acts through the operator API when it is
 * configured (`OperatorCall.ts`), else on the database; `scenario set` is the same audited action
 * either way, its document validated whole inside it.
 */
import { OperatorActions, RiskDesk, RiskDeskReport } from "@ratelock/core"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as RiskFormat from "../internal/riskFormat.ts"
import { documentArgument, readDocument, refusedAs } from "./DocumentInput.ts"
import { operatorCall } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"
import { environmentFlag } from "./SharedFlags.ts"

const riskReport = Command.make(
  "report",
  {
    environment: environmentFlag.pipe(Flag.withDefault("production" as const)),
    fresh: Flag.Boolean("fresh").pipe(
      Flag.withDescription("Revalue the book now instead of reading the workers' latest revaluation"),
      Flag.withDefault(false)
    ),
    json: jsonFlag
  },
  (input) =>
    operatorCall(Effect.map(RiskDesk.report(input.environment, { fresh: input.fresh }), RiskDeskReport.encode), (api) =>
      api.operator.risk({
        query: { environment: input.environment, ...(input.fresh ? { fresh: "true" as const } : {}) }
      })
    ).pipe(Effect.flatMap((report) => print(input.json, report, RiskFormat.report)))
).pipe(
  Command.withDescription(
    "The book of an environment (production unless named): per pair mtm, greeks and hedge, exposure, stress, payouts due, limits"
  )
)

const plural = (n: number) => (n === 1 ? "" : "s")

const scenarioSet = Command.make(
  "set",
  {
    file: documentArgument("A scenario (JSON object) or an array of them"),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      const text = yield* readDocument(input.file)
      const stored = yield* operatorCall(
        Effect.map(OperatorActions.setScenarios(text), (list) => ({ stored: list.map((s) => s.name) })).pipe(
          refusedAs("Scenarios")
        ),
        (api) => api.desk.setScenarios({ payload: text }).pipe(refusedAs("Scenarios"))
      )
      yield* print(
        input.json,
        stored,
        (s: typeof stored) => `Stored ${s.stored.length} scenario${plural(s.stored.length)}: ${s.stored.join(", ")}`
      )
    })
).pipe(
  Command.withDescription("Store operator stress scenarios beside the defaults (one named like a default replaces it)")
)

const scenarioList = Command.make("list", { json: jsonFlag }, (input) =>
  operatorCall(
    Effect.map(RiskDesk.scenarioList(), (items) => ({ items })),
    (api) => api.desk.scenarios()
  ).pipe(Effect.flatMap((shown) => print(input.json, shown, RiskFormat.scenarios)))
).pipe(Command.withDescription("Every stress scenario the report runs: the defaults and the operator's"))

export const risk = Command.make("risk").pipe(
  Command.withDescription("The book: revaluation, greeks, stress and limits (risk.md)"),
  Command.withSubcommands([
    riskReport,
    Command.make("scenario").pipe(
      Command.withDescription("Stress scenarios"),
      Command.withSubcommands([scenarioSet, scenarioList])
    )
  ])
)
