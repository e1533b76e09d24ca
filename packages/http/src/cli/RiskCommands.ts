/**
 * `ratelock risk …`: the book of an environment (risk.md) and the stress scenarios it is run
 * through, the operator's beside the defaults.
 */
import { Revaluation, RiskDesk, RiskDeskReport, RiskScenario, RiskScenarioRepo } from "@ratelock/core"
import { Effect, Result } from "effect"
import { CliError, Command, Flag } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import * as RiskFormat from "../internal/riskFormat.ts"
import { documentArgument, readDocument } from "./DocumentInput.ts"
import { onStore } from "./OnStore.ts"
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
    onStore(
      Effect.flatMap(RiskDesk.report(input.environment, { fresh: input.fresh }), (report) =>
        print(input.json, RiskDeskReport.encode(report), () => RiskFormat.report(report))
      )
    )
).pipe(
  Command.withDescription(
    "The book of an environment (production unless named): per pair mtm, greeks and hedge, exposure, stress, payouts due, limits"
  )
)

const scenarioSet = Command.make(
  "set",
  {
    file: documentArgument("A scenario (JSON object) or an array of them"),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.gen(function* () {
        const validated = RiskScenario.validateJson(yield* readDocument(input.file))
        if (Result.isFailure(validated)) {
          return yield* new CliError.UserError({
            cause: validated.failure,
            userMessage: Format.refusedSnapshot(validated.failure, "Scenarios")
          })
        }
        const stored = yield* RiskDesk.setScenarios(validated.success)
        yield* print(
          input.json,
          { stored: stored.map((s) => s.name) },
          () =>
            `Stored ${stored.length} scenario${stored.length === 1 ? "" : "s"}: ${stored.map((s) => s.name).join(", ")}`
        )
      })
    )
).pipe(
  Command.withDescription("Store operator stress scenarios beside the defaults (one named like a default replaces it)")
)

const scenarioList = Command.make("list", { json: jsonFlag }, (input) =>
  onStore(
    Effect.gen(function* () {
      const all = yield* Revaluation.scenarios()
      const operator = new Set((yield* (yield* RiskScenarioRepo.RiskScenarioRepo).list()).map((s) => s.scenario.name))
      yield* print(
        input.json,
        all.map((s) => ({ ...RiskScenario.encode(s), source: operator.has(s.name) ? "operator" : "default" })),
        () => RiskFormat.scenarios(all, operator)
      )
    })
  )
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
