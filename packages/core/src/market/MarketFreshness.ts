/**
 * Which snapshot a quote prices from (market-data.md, "Freshness and the sandbox"), written once for every host:
 *
 * - production prices only from the latest snapshot whose `as_of` is at most `maxAge` before `now` (default
 *   900 s, `RATELOCK_MARKET_MAX_AGE_SECONDS`); otherwise the quote fails `market_data_stale`;
 * - the sandbox prices from the latest snapshot whatever its age, else from the built-in illustrative snapshot
 *   observed at `now` (so a fresh install quotes at once).
 *
 * Pure: the latest snapshot and the clock are parameters.
 */
import { DateTime, Duration, Option } from "effect"
import * as MarketSnapshot from "./MarketSnapshot.ts"
import type { Environment } from "../terms/Partner.ts"

/** A stored snapshot: its id and its document. */
export interface StoredSnapshot {
  readonly id: string
  readonly snapshot: MarketSnapshot.MarketSnapshot
}

/** The snapshot a quote prices from, or why there is none. */
export type InForce =
  | {
      readonly _tag: "InForce"
      /** The stored snapshot's id; null for a snapshot that is not stored (the built-in illustrative one). */
      readonly snapshotId: string | null
      readonly snapshot: MarketSnapshot.MarketSnapshot
    }
  | { readonly _tag: "Stale"; readonly message: string }

export const defaultMaxAge: Duration.Duration = Duration.seconds(900)

/**
 * The id a quote priced from the built-in illustrative snapshot records: none, since no stored
 * snapshot priced it. The document is `MarketSnapshot.illustrative`, observed at the quote's own
 * pricing instant.
 */
export const illustrativeSnapshotId = null

export const inForceOf = (stored: StoredSnapshot): InForce => ({
  _tag: "InForce",
  snapshotId: stored.id,
  snapshot: stored.snapshot
})

/** The illustrative snapshot observed at `now`: it discounts from `now` exactly as pricing.md's static table. */
export const illustrative = (now: DateTime.Utc): InForce => ({
  _tag: "InForce",
  snapshotId: illustrativeSnapshotId,
  snapshot: MarketSnapshot.illustrativeAt(now)
})

/** How old a snapshot is at `now` (negative when its `as_of` is a little ahead: clock skew). */
export const age = (snapshot: MarketSnapshot.MarketSnapshot, now: DateTime.Utc): Duration.Duration =>
  Duration.millis(now.epochMilliseconds - snapshot.as_of.epochMilliseconds)

/** `true` when production may price from the snapshot at `now`: its age is at most `maxAge`. */
export const isFresh = (snapshot: MarketSnapshot.MarketSnapshot, now: DateTime.Utc, maxAge: Duration.Duration) =>
  now.epochMilliseconds - snapshot.as_of.epochMilliseconds <= Duration.toMillis(maxAge)

const seconds = (d: Duration.Duration) => `${Math.floor(Duration.toMillis(d) / 1000)} s`

/** An age in seconds, and in whole days too once it is a day or more (a months-old snapshot reads at a glance). */
const ageText = (d: Duration.Duration) => {
  const days = Math.floor(Duration.toMillis(d) / 86_400_000)
  return days >= 1 ? `${seconds(d)} (${days} days)` : seconds(d)
}

/** Why `what` (a snapshot) is too old to price from at `now`: its `as_of`, its age and the maximum allowed. */
export const staleMessage = (
  snapshot: MarketSnapshot.MarketSnapshot,
  now: DateTime.Utc,
  maxAge: Duration.Duration,
  what = "the latest market data snapshot"
) =>
  `${what} (as_of ${DateTime.formatIso(snapshot.as_of)}) is ${ageText(age(snapshot, now))} old, more than the ${seconds(maxAge)} allowed`

/**
 * A snapshot given as a value (not stored, no sandbox): in force at `now` when at most `maxAge` old, else
 * `Stale`, in every environment. `Duration.infinity` accepts any age (history, tests).
 */
export const given = (input: {
  readonly snapshot: MarketSnapshot.MarketSnapshot
  readonly snapshotId: string | null
  readonly now: DateTime.Utc
  readonly maxAge: Duration.Duration
}): InForce =>
  isFresh(input.snapshot, input.now, input.maxAge)
    ? { _tag: "InForce", snapshotId: input.snapshotId, snapshot: input.snapshot }
    : { _tag: "Stale", message: staleMessage(input.snapshot, input.now, input.maxAge, "the market data snapshot") }

/** The snapshot in force for `environment` at `now`, given the latest stored one. */
export const inForce = (input: {
  readonly latest: Option.Option<StoredSnapshot>
  readonly environment: Environment
  readonly now: DateTime.Utc
  readonly maxAge?: Duration.Duration | undefined
}): InForce => {
  const { latest, now } = input
  if (input.environment === "sandbox")
    return Option.match(latest, { onNone: () => illustrative(now), onSome: inForceOf })
  const maxAge = input.maxAge ?? defaultMaxAge
  if (Option.isNone(latest)) {
    return { _tag: "Stale", message: "no market data snapshot has been imported" }
  }
  const { snapshot } = latest.value
  if (!isFresh(snapshot, now, maxAge)) {
    return { _tag: "Stale", message: staleMessage(snapshot, now, maxAge) }
  }
  return inForceOf(latest.value)
}
