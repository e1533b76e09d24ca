/**
 * A document the operator hands a command (a snapshot, scenarios): a file, or standard input for
 * `-`. The argument's help and the reading are kept together, as one promises what the other does.
 */
import { Effect } from "effect"
import { Argument, CliError } from "effect/cli"
import { readFile } from "node:fs/promises"
import { text as readAll } from "node:stream/consumers"

/** The command's `file` argument, `what` saying which document it is. */
export const documentArgument = (what: string) =>
  Argument.String("file").pipe(Argument.withDescription(`${what}, or - for standard input`))

/** A file's text, or standard input's for `-`. */
export const readDocument = (path: string) =>
  Effect.tryPromise({
    try: () => (path === "-" ? readAll(process.stdin) : readFile(path, "utf8")),
    catch: (cause) => new CliError.UserError({ cause, userMessage: `Cannot read ${path}: ${String(cause)}` })
  })
