/** What a command prints: text for a person, or with `--json` the value itself, for a script. */
import { Console } from "effect"
import { Flag } from "effect/cli"

export const jsonFlag = Flag.Boolean("json").pipe(
  Flag.withDescription("Print JSON instead of text"),
  Flag.withDefault(false)
)

export const print = (json: boolean, value: unknown, text: (value: never) => string) =>
  Console.log(json ? JSON.stringify(value, null, 2) : text(value as never))
