/**
 * `SandboxOnly` on the server: the sandbox helpers answer a production key as an unknown route
 * would (404 `not_found`), before its request is decoded, so nothing tells it they exist.
 */
import { Effect, Layer } from "effect"
import { envelope, NotFound } from "../api/Errors.ts"
import { SandboxOnly } from "../api/Sandbox.ts"
import { CurrentPartner } from "../api/Security.ts"

export const layer: Layer.Layer<SandboxOnly> = Layer.succeed(
  SandboxOnly,
  SandboxOnly.of((httpEffect) =>
    Effect.gen(function* () {
      const partner = yield* CurrentPartner
      if (partner.environment !== "sandbox") return yield* new NotFound(envelope("not_found", "No such route"))
      return yield* httpEffect
    })
  )
)
