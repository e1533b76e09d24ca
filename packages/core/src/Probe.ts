import { Effect } from "effect"
export const one = Effect.succeed(1)
