/**
 * A document the operator hands a command (a snapshot, scenarios): a file, or standard input for
 * `-`, and its refusal. The argument's help and the reading are kept together, as one promises
 * what the other does.
 */
import type { ApiError } from "@ratelock/core"
import { Effect, Predicate } from "effect"
import { Argument, CliError } from "effect/cli"
import { ValidationFailed } from "../api/Errors.ts"
import { refusedDocument } from "../internal/operatorFormat.ts"
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

/** Core's refusal of a document on the database, or the operator API's 422 of it: both carry every problem. */
const isRefusal = (error: unknown): error is { readonly detail: ReadonlyArray<ApiError.ValidationIssue> } =>
  Predicate.isTagged(error, "ValidationError") || error instanceof ValidationFailed

/**
 * A command's refusal of its document printed as every problem with its path (`what refused,
 * nothing stored: …`), the same lines whether the database or the operator API refused it.
 */
export const refusedAs =
  (what: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | CliError.UserError, R> =>
    Effect.mapError(self, (error) =>
      isRefusal(error)
        ? new CliError.UserError({ cause: error, userMessage: refusedDocument(error.detail, what) })
        : error
    )
