/** A document the operator hands a command (a snapshot, scenarios): a file, or standard input. */
import { Effect } from "effect"
import { CliError } from "effect/cli"
import { readFile } from "node:fs/promises"
import { text as readAll } from "node:stream/consumers"

/** A file's text, or standard input's for `-`. */
export const readDocument = (path: string) =>
  Effect.tryPromise({
    try: () => (path === "-" ? readAll(process.stdin) : readFile(path, "utf8")),
    catch: (cause) => new CliError.UserError({ cause, userMessage: `Cannot read ${path}: ${String(cause)}` })
  })
