/**
 * `PartnerAuth` on the server: the three credential headers to an authenticated partner, then the
 * key's request budget (api-decisions.md, "Authentication and tenancy").
 *
 * - A header missing, an unknown or malformed key id, a wrong secret, a revoked key, an
 *   environment other than `sandbox`/`production`: 401 `unauthorized`, one message for all.
 * - Right id and secret, but the key belongs to the other environment: 403 `environment_mismatch`.
 * - An environment with no chain on this deployment: 403 `environment_disabled`.
 * - Over the key's budget: 429 `rate_limited` with `Retry-After`.
 *
 * A key read from the store is kept for one second (so a revocation applies within a second,
 * and a busy key costs one store read a second, not one per request); the name of its partner is
 * kept for a minute (partners are insert-only: no operation renames or removes one). Unknown key
 * ids are never kept, so made-up ids cannot fill the memory.
 */
import { ApiKeySecret, Environment, type Partner, PartnerRepo, TraceContext } from "@ratelock/core"
import { DateTime, Effect, Layer, Metric, Option, Redacted } from "effect"
import { Digest } from "effect/crypto"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { envelope, Forbidden, Unauthorized } from "../api/Errors.ts"
import {
  type AuthenticatedPartner,
  CurrentPartner,
  environmentHeader,
  keyIdHeader,
  PartnerAuth
} from "../api/Security.ts"
import { ChainAvailability } from "./ChainAvailability.ts"
import { RateLimiter } from "./RateLimiter.ts"
import * as Metrics from "../Metrics.ts"

const unauthorized = () =>
  new Unauthorized(
    envelope(
      "unauthorized",
      "Missing or invalid credentials: send X-Partner-Key-Id, X-Partner-Key-Secret and X-Partner-Environment"
    )
  )

const isEnvironment = (s: string | undefined): s is Partner.Environment =>
  s !== undefined && (Environment.all as ReadonlyArray<string>).includes(s)

/** How long a partner's name is kept in memory. */
const partnerNameMillis = 60_000

/** How long a key read from the store is trusted: the longest a revocation can take to apply. */
const apiKeyMillis = 1_000

/** Compared against when the key id is unknown, so that answer takes as long as a wrong secret. */
const decoyHash = "0".repeat(64)

export const rateLimited = (retryAfterSeconds: number) =>
  HttpServerResponse.jsonUnsafe(
    envelope("rate_limited", `Too many requests for this API key; retry after ${retryAfterSeconds} s`),
    { status: 429, headers: { "retry-after": String(retryAfterSeconds) } }
  )

export const layer = Layer.effect(
  PartnerAuth,
  Effect.gen(function* () {
    const partners = yield* PartnerRepo.PartnerRepo
    const digest = yield* Digest.Digest
    const limiter = yield* RateLimiter
    const chains = yield* ChainAvailability
    const names = new Map<string, { readonly name: string; readonly until: number }>()
    const keys = new Map<string, { readonly key: PartnerRepo.ApiKeyRecord; readonly until: number }>()

    /** The API key, from memory when read less than a second ago. */
    const apiKey = Effect.fnUntraced(function* (keyId: string, now: number) {
      const kept = keys.get(keyId)
      if (kept !== undefined && kept.until > now) return Option.some(kept.key)
      // store failures are not the partner's fault: a 500 from the envelope middleware
      const found = yield* Effect.orDie(partners.findApiKey(keyId))
      if (Option.isSome(found)) keys.set(keyId, { key: found.value, until: now + apiKeyMillis })
      else keys.delete(keyId)
      return found
    })

    /** The partner's name, from memory when read less than a minute ago; none when there is no such partner. */
    const partnerName = Effect.fnUntraced(function* (partnerId: string, now: number) {
      const kept = names.get(partnerId)
      if (kept !== undefined && kept.until > now) return Option.some(kept.name)
      const found = yield* Effect.orDie(partners.findPartner(partnerId))
      if (Option.isSome(found)) names.set(partnerId, { name: found.value.name, until: now + partnerNameMillis })
      return Option.map(found, (partner) => partner.name)
    })

    const authenticate = Effect.fnUntraced(function* (
      secret: string
    ): Effect.fn.Return<AuthenticatedPartner, Unauthorized | Forbidden, HttpServerRequest.HttpServerRequest> {
      const request = yield* HttpServerRequest.HttpServerRequest
      const keyId = request.headers[keyIdHeader]
      const environment = request.headers[environmentHeader]
      if (keyId === undefined || keyId === "" || secret === "" || !isEnvironment(environment)) {
        return yield* unauthorized()
      }
      const now = yield* DateTime.now
      const key = Option.getOrUndefined(yield* apiKey(keyId, now.epochMilliseconds))
      const matches = yield* Effect.provideService(
        ApiKeySecret.matches(secret, key?.secretHash ?? decoyHash),
        Digest.Digest,
        digest
      )
      const revoked = key?.revokedAt != null && DateTime.isLessThanOrEqualTo(key.revokedAt, now)
      if (key === undefined || !matches || revoked) return yield* unauthorized()
      if (key.environment !== environment) {
        return yield* new Forbidden(
          envelope("environment_mismatch", `this API key belongs to ${key.environment}, not ${environment}`)
        )
      }
      if (!chains[environment]) {
        return yield* new Forbidden(
          envelope("environment_disabled", `${environment} is not enabled on this deployment`)
        )
      }
      const name = yield* partnerName(key.partnerId, now.epochMilliseconds)
      if (Option.isNone(name)) return yield* unauthorized()
      return {
        partnerId: key.partnerId,
        environment,
        partnerName: name.value,
        apiKeyId: key.id
      } satisfies AuthenticatedPartner
    })

    return PartnerAuth.of({
      partnerKeySecret: (httpEffect, { credential }) =>
        Effect.gen(function* () {
          const partner = yield* authenticate(Redacted.value(credential))
          // the request's span (when traced) says whose it is: ids only, never the key
          yield* Effect.annotateCurrentSpan(TraceContext.attributes(partner))
          const verdict = yield* limiter.take(partner.apiKeyId)
          if (!verdict.allowed) {
            yield* Metric.update(
              Metric.withAttributes(Metrics.rateLimited, {
                partner_id: partner.partnerId,
                environment: partner.environment
              }),
              1
            )
            return rateLimited(verdict.retryAfterSeconds)
          }
          return yield* Effect.provideService(httpEffect, CurrentPartner, partner)
        })
    })
  })
)
