/**
 * `OperatorAuth` on the server: `Authorization: Bearer <operator token>` to the live token it is
 * (core's `OperatorTokens.authenticate`, read from the store on every request, so a revocation
 * applies at once: operators call seldom). Missing, malformed, unknown or revoked: 401
 * `unauthorized` with `WWW-Authenticate: Bearer`, one message for all. A partner's API key secret
 * (`rlk_…`) is never an operator token.
 */
import { OperatorTokenRepo, OperatorTokens } from "@ratelock/core"
import { Effect, Layer, Option, Redacted } from "effect"
import { Digest } from "effect/crypto"
import { HttpServerResponse } from "effect/http"
import { envelope } from "../api/Errors.ts"
import { CurrentOperator, OperatorAuth } from "../api/OperatorSecurity.ts"

export const unauthorized = () =>
  HttpServerResponse.jsonUnsafe(
    envelope("unauthorized", "Missing or invalid operator token: send Authorization: Bearer <operator token>"),
    { status: 401, headers: { "www-authenticate": 'Bearer realm="ratelock-operator"' } }
  )

export const layer: Layer.Layer<OperatorAuth, never, OperatorTokenRepo.OperatorTokenRepo | Digest.Digest> =
  Layer.effect(
    OperatorAuth,
    Effect.gen(function* () {
      const tokens = yield* OperatorTokenRepo.OperatorTokenRepo
      const digest = yield* Digest.Digest
      return OperatorAuth.of({
        operatorToken: (httpEffect, { credential }) =>
          Effect.gen(function* () {
            const operator = yield* OperatorTokens.authenticate(Redacted.value(credential)).pipe(
              Effect.provideService(OperatorTokenRepo.OperatorTokenRepo, tokens),
              Effect.provideService(Digest.Digest, digest),
              // a store that fails is not the caller's fault: a 500 from the envelope middleware
              Effect.orDie
            )
            if (Option.isNone(operator)) return unauthorized()
            return yield* Effect.provideService(httpEffect, CurrentOperator, operator.value)
          })
      })
    })
  )
