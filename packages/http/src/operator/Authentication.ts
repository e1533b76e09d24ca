/**
 * `OperatorAuth` on the server: `Authorization: Bearer <operator token>` to the live token it is
 * (core's `OperatorTokens.authenticate`, read from the store on every request, so a revocation
 * applies at once: operators call seldom). Missing, malformed, unknown, expired or revoked: 401
 * `unauthorized` with `WWW-Authenticate: Bearer`, one message for all. A partner's API key secret
 * (`rlk_…`) is never an operator token.
 *
 * Then the role: a token whose role does not reach the route's (`OperatorRoles.ts`) is answered
 * 403 `forbidden`, naming the role needed, and the refusal is written to the audit log. A token
 * let through acts as its operator (`OperatorActor`); every answer carries the request's id.
 */
import {
  Audit,
  type AuditRepo,
  IdGenerator,
  OperatorActor,
  OperatorRole,
  type OperatorTokenRepo,
  OperatorTokens
} from "@ratelock/core"
import { Effect, Layer, Option, Redacted } from "effect"
import type { Digest } from "effect/crypto"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { envelope } from "../api/Errors.ts"
import { actionOf, requiredRole } from "../api/OperatorRoles.ts"
import { CurrentOperator, OperatorAuth } from "../api/OperatorSecurity.ts"
import { actorOf, requestId, requestIdHeader } from "./Actor.ts"

export const unauthorized = () =>
  HttpServerResponse.jsonUnsafe(
    envelope("unauthorized", "Missing or invalid operator token: send Authorization: Bearer <operator token>"),
    { status: 401, headers: { "www-authenticate": 'Bearer realm="ratelock-operator"' } }
  )

/** 403: the role the route needs, and the one the token has. */
export const forbidden = (needed: OperatorRole.OperatorRole, token: OperatorTokens.TokenListing) =>
  HttpServerResponse.jsonUnsafe(
    {
      error: {
        code: "forbidden",
        message: `This route needs the ${needed} role; the token "${token.name}" has the ${token.role} role`,
        required_role: needed
      }
    },
    { status: 403 }
  )

export const layer: Layer.Layer<
  OperatorAuth,
  never,
  OperatorTokenRepo.OperatorTokenRepo | Digest.Digest | AuditRepo.AuditRepo | IdGenerator.IdGenerator
> = Layer.effect(
  OperatorAuth,
  Effect.gen(function* () {
    const context = yield* Effect.context<
      OperatorTokenRepo.OperatorTokenRepo | Digest.Digest | AuditRepo.AuditRepo | IdGenerator.IdGenerator
    >()
    const ids = yield* IdGenerator.IdGenerator
    return OperatorAuth.of({
      operatorToken: (httpEffect, { credential, endpoint }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const id = yield* requestId(request, ids)
          const operator = yield* OperatorTokens.authenticate(Redacted.value(credential)).pipe(
            Effect.provideContext(context),
            // a store that fails is not the caller's fault: a 500 from the envelope middleware
            Effect.orDie
          )
          if (Option.isNone(operator)) return unauthorized()
          const token = operator.value
          const actor = yield* actorOf(token, id)
          const needed = requiredRole(endpoint)
          if (!OperatorRole.allows(token.role, needed)) {
            const { action, targetKind } = actionOf(endpoint)
            yield* Audit.forbidden({ action, target: { kind: targetKind, id: null } }, needed).pipe(
              Effect.provideService(OperatorActor.OperatorActor, actor),
              Effect.provideContext(context),
              Effect.orDie
            )
            return HttpServerResponse.setHeader(forbidden(needed, token), requestIdHeader, id)
          }
          const response = yield* httpEffect.pipe(
            Effect.provideService(CurrentOperator, token),
            Effect.provideService(OperatorActor.OperatorActor, actor)
          )
          return HttpServerResponse.setHeader(response, requestIdHeader, id)
        })
    })
  })
)
