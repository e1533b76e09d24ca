/**
 * A command's failure as the operator reads it: Effect's CLI prints a `UserError`'s message as it
 * is, so every failure is turned into one short message (no stack, no SQL).
 */
import { Effect } from "effect"
import { CliError } from "effect/cli"

/** Anything a command can fail with, as one message for the operator (no stack, no SQL). */
const userMessage = (error: unknown): string => {
  const tagged = error as { readonly _tag?: string; readonly message?: string }
  switch (tagged._tag) {
    case "ConfigError":
      return `Invalid configuration: ${String(error)}`
    case "SqlError":
    case "StoreError":
    case "MigrationError":
      return `Database error: ${tagged.message ?? String(error)}`
    default:
      return tagged.message ?? String(error)
  }
}

export const forOperator = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.mapError((error) => new CliError.UserError({ cause: error, userMessage: userMessage(error) })))
