/**
 * `ratelock market …`: a snapshot imported from a file, as the feed and the operator API import
 * theirs (validated whole: a refused document stores nothing, and every rule it breaks is
 * printed). Both act through the operator API when it is configured (`OperatorCall.ts`), else on
 * the database, where an import is the same audited action as the API's.
 */
import { MarketSnapshots, OperatorActions } from "@ratelock/core"
import { Effect } from "effect"
import { Command } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { documentArgument, readDocument, refusedAs } from "./DocumentInput.ts"
import { operatorCall } from "./OperatorCall.ts"
import { jsonFlag, print } from "./Output.ts"

const marketImport = Command.make(
  "import",
  {
    file: documentArgument("The snapshot document (JSON)"),
    json: jsonFlag
  },
  (input) =>
    Effect.gen(function* () {
      const text = yield* readDocument(input.file)
      const imported = yield* operatorCall(
        Effect.map(OperatorActions.importSnapshot(text), Format.importedSnapshotJson).pipe(refusedAs("Snapshot")),
        (api) => api.operator.importSnapshot({ headers: {}, payload: text }).pipe(refusedAs("Snapshot"))
      )
      yield* print(input.json, imported, Format.importedSnapshot)
    })
).pipe(Command.withDescription("Validate and store a market snapshot (nothing is stored when any rule fails)"))

const marketShow = Command.make("show", { json: jsonFlag }, (input) =>
  operatorCall(Effect.map(MarketSnapshots.inForce(), Format.marketJson), (api) => api.operator.market()).pipe(
    Effect.flatMap((shown) => print(input.json, shown, Format.market))
  )
).pipe(Command.withDescription("The snapshot in force, its age, and per corridor spot, forwards and ATM vols"))

export const market = Command.make("market").pipe(
  Command.withDescription("Market data: snapshots of curves, spots and volatility smiles"),
  Command.withSubcommands([marketImport, marketShow])
)
