/**
 * Per-API-key request budget: a token bucket in memory (`ratePerSecond` refill, `burst` capacity).
 * Over budget, a request is answered 429 `rate_limited` with `Retry-After`. Each process keeps its
 * own buckets, scaled by its share of the key's budget (`RateLimitShares`: the whole budget alone,
 * a part of it among replicas on one database), so no request waits on the database.
 */
import { Clock, Context, Effect, Layer } from "effect"
import { RateLimitShares } from "./RateLimitShares.ts"

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

/** A shared budget's shares change every second: waiting longer than this on a small share would mislead. */
const sharedRetryCapSeconds = 3

/**
 * Refills `bucket` up to `now`, then takes one token if there is one. A replica enforcing a `share`
 * of the budget refills at `share` of the rate up to `share` of the burst.
 */
export const take = (
  config: RateLimitShape,
  share: number,
  bucket: Bucket | undefined,
  now: number
): [Verdict, Bucket] => {
  const rate = config.ratePerSecond * share
  const burst = config.burst * share
  const elapsed = bucket === undefined ? 0 : Math.max(0, now - bucket.at) / 1000
  const tokens = Math.min(burst, (bucket?.tokens ?? burst) + elapsed * rate)
  if (tokens >= 1) return [{ allowed: true }, { tokens: tokens - 1, at: now }]
  const wait = Math.ceil((1 - tokens) / rate)
  const retryAfterSeconds = Math.max(1, share < 1 ? Math.min(wait, sharedRetryCapSeconds) : wait)
  return [
    { allowed: false, retryAfterSeconds },
    { tokens, at: now }
  ]
}

export class RateLimiter extends Context.Service<
  RateLimiter,
  { readonly take: (key: string) => Effect.Effect<Verdict> }
>()("@ratelock/http/RateLimiter") {
  /** Buckets per key in this process, configured by `RateLimitConfig`, scaled by `RateLimitShares`. */
  static readonly layer = Layer.effect(
    RateLimiter,
    Effect.gen(function* () {
      const config = yield* RateLimitConfig
      const shares = yield* RateLimitShares
      const buckets = new Map<string, Bucket>()
      return RateLimiter.of({
        take: (key) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const [verdict, bucket] = take(config, shares.requested(key), buckets.get(key), now)
            buckets.set(key, bucket)
            return verdict
          })
      })
    })
  )
}
