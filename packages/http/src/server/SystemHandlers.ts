/**
 * `GET /health` (the process answers) and `GET /ready` (the store answers and is migrated; 503
 * `not_ready` otherwise). Neither needs credentials.
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { envelope, Unavailable } from "../api/Errors.ts"
import { Readiness } from "./Readiness.ts"

export const layer = HttpApiBuilder.group(
  Api,
  "system",
  Effect.fn(function* (handlers) {
    const readiness = yield* Readiness
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        readiness.check.pipe(
          Effect.as({ status: "ready" as const, database: "ok" as const }),
          Effect.catchTag("NotReady", (e) =>
            Effect.andThen(
              Effect.logWarning("not ready", e.message),
              Effect.fail(new Unavailable(envelope("not_ready", "The service is not ready to take requests")))
            )
          )
        )
      )
  })
)
