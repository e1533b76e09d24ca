/**
 * `ratelock market …`: a snapshot imported from a file, as the feed and the operator API import
 * theirs (validated whole: a refused document stores nothing).
 */
import { MarketSnapshots } from "@ratelock/core"
import { Effect } from "effect"
import { CliError, Command } from "effect/cli"
import * as Format from "../internal/operatorFormat.ts"
import { documentArgument, readDocument } from "./DocumentInput.ts"
import { onStore } from "./OnStore.ts"
import { jsonFlag, print } from "./Output.ts"

const marketImport = Command.make(
  "import",
  {
    file: documentArgument("The snapshot document (JSON)"),
    json: jsonFlag
  },
  (input) =>
    onStore(
      Effect.gen(function* () {
        const imported = yield* MarketSnapshots.importJson(yield* readDocument(input.file))
        yield* print(input.json, Format.importedSnapshotJson(imported), Format.importedSnapshot)
      }).pipe(
        Effect.catchTag("ValidationError", (refused) =>
          Effect.fail(new CliError.UserError({ cause: refused, userMessage: Format.refusedSnapshot(refused.detail) }))
        )
      )
    )
).pipe(Command.withDescription("Validate and store a market snapshot (nothing is stored when any rule fails)"))

const marketShow = Command.make("show", { json: jsonFlag }, (input) =>
  onStore(
    Effect.flatMap(MarketSnapshots.inForce(), (inForce) =>
      print(input.json, Format.marketJson(inForce), () => Format.market(inForce))
    )
  )
).pipe(Command.withDescription("The snapshot in force, its age, and per corridor spot, forwards and ATM vols"))

export const market = Command.make("market").pipe(
  Command.withDescription("Market data: snapshots of curves, spots and volatility smiles"),
  Command.withSubcommands([marketImport, marketShow])
)
