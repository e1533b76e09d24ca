/**
 * Per-API-key request budget: a token bucket in memory (`ratePerSecond` refill, `burst` capacity).
 * Over budget, a request is answered 429 `rate_limited` with `Retry-After`. Each process keeps its
 * own buckets: with N instances a key gets up to N times the budget.
 */
import { Clock, Context, Effect, Layer } from "effect"

export interface RateLimitShape {
  readonly ratePerSecond: number
  readonly burst: number
}

export const RateLimitConfig = Context.Reference<RateLimitShape>("@ratelock/http/RateLimitConfig", {
  defaultValue: () => ({ ratePerSecond: 50, burst: 100 })
})

export type Verdict = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number }

interface Bucket {
  readonly tokens: number
  readonly at: number
}

/** Refills `bucket` up to `now`, then takes one token if there is one. */
export const take = (config: RateLimitShape, bucket: Bucket | undefined, now: number): [Verdict, Bucket] => {
  const elapsed = bucket === undefined ? 0 : Math.max(0, now - bucket.at) / 1000
  const tokens = Math.min(config.burst, (bucket?.tokens ?? config.burst) + elapsed * config.ratePerSecond)
  if (tokens >= 1) return [{ allowed: true }, { tokens: tokens - 1, at: now }]
  const retryAfterSeconds = Math.max(1, Math.ceil((1 - tokens) / config.ratePerSecond))
  return [
    { allowed: false, retryAfterSeconds },
    { tokens, at: now }
  ]
}

export class RateLimiter extends Context.Service<
  RateLimiter,
  { readonly take: (key: string) => Effect.Effect<Verdict> }
>()("@ratelock/http/RateLimiter") {
  /** Buckets per key in this process, configured by `RateLimitConfig`. */
  static readonly layer = Layer.effect(
    RateLimiter,
    Effect.gen(function* () {
      const config = yield* RateLimitConfig
      const buckets = new Map<string, Bucket>()
      return RateLimiter.of({
        take: (key) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const [verdict, bucket] = take(config, buckets.get(key), now)
            buckets.set(key, bucket)
            return verdict
          })
      })
    })
  )
}
