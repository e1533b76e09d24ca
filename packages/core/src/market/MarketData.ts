/**
 * Port for market data: the snapshot a quote prices from in the partner's environment (with its id, under
 * `MarketFreshness`'s rules), the notional limits (configuration, not market data), and mid rates for crossing
 * a payout into a settlement fiat that is neither side of the corridor.
 *
 * Layers: `layerDefaults` (the built-in illustrative snapshot observed at the clock's now, in every
 * environment: tests and the testkit), `layerSnapshot` (one fixed snapshot, refused once older than
 * `MarketFreshness`'s maximum age), and `layerLatest` (the latest
 * stored snapshot, read through a function the host backs with its store).
 */
import { Context, DateTime, type Duration, Effect, Layer, Option } from "effect"
import type { Currency } from "../kernel/Corridor.ts"
import * as MarketFreshness from "./MarketFreshness.ts"
import * as MarketSnapshot from "./MarketSnapshot.ts"
import * as Money from "../kernel/Money.ts"
import type { Environment } from "../terms/Partner.ts"
import type { StoreError } from "../kernel/StoreError.ts"

/** Largest notional per market pair (`USD/BRL`), in that pair's BASE units (USD). Configuration. */
export type NotionalLimits = Readonly<Record<string, Money.Decimal>>

export interface MarketDataShape {
  /** The snapshot a quote in `environment` prices from now, or why there is none (production only). */
  readonly inForce: (environment: Environment) => Effect.Effect<MarketFreshness.InForce, StoreError>
  readonly notionalLimits: NotionalLimits
  /** Mid rate `quote` per 1 `base` at `at`, when known. */
  readonly midRate: (
    base: Currency,
    quote: Currency,
    at: DateTime.Utc
  ) => Effect.Effect<Option.Option<Money.Decimal>, StoreError>
}

/** pricing.md's illustrative table (the source of `MarketSnapshot.illustrative` and of the default limits). */
export interface StaticTable {
  readonly rates: Readonly<Partial<Record<Currency, number>>>
  /** Keyed by market pair `BASE/QUOTE` in its usual order (`USD/BRL`). */
  readonly pairs: Readonly<
    Record<string, { readonly volatility: number; readonly reference: string; readonly notionalLimitBase: string }>
  >
}

export const defaultTable = (): StaticTable => ({
  rates: { USD: 0.0375, EUR: 0.02, BRL: 0.1425, MXN: 0.07, NGN: 0.27 },
  pairs: {
    "EUR/USD": { volatility: 0.075, reference: "1.17", notionalLimitBase: "5000000" },
    "USD/BRL": { volatility: 0.14, reference: "5.40", notionalLimitBase: "5000000" },
    "USD/MXN": { volatility: 0.12, reference: "18.50", notionalLimitBase: "5000000" },
    "USD/NGN": { volatility: 0.2, reference: "1500", notionalLimitBase: "1000000" },
    "EUR/BRL": { volatility: 0.15, reference: "6.32", notionalLimitBase: "5000000" },
    "BRL/MXN": { volatility: 0.13, reference: "3.43", notionalLimitBase: "25000000" }
  }
})

/** A table's notional limits. */
export const notionalLimitsOf = (table: StaticTable): NotionalLimits =>
  Object.fromEntries(Object.entries(table.pairs).map(([pair, entry]) => [pair, Money.unsafe(entry.notionalLimitBase)]))

export const defaultNotionalLimits: NotionalLimits = notionalLimitsOf(defaultTable())

export interface LatestOptions {
  /** The latest stored snapshot, or none (the host's `MarketSnapshotRepo.latest()`). */
  readonly latest: Effect.Effect<Option.Option<MarketFreshness.StoredSnapshot>, StoreError>
  /** Production's maximum snapshot age (default `MarketFreshness.defaultMaxAge`, 900 s). */
  readonly maxAge?: Duration.Duration | undefined
  readonly notionalLimits?: NotionalLimits | undefined
}

/**
 * Market data from the latest stored snapshot, read on every call (a new snapshot is in force at once):
 * quotes under `MarketFreshness.inForce`; mid rates from the latest snapshot whatever its age, else the
 * illustrative one (a payout already owed is converted at the best rate known rather than refused).
 */
export const fromLatest = (options: LatestOptions): MarketDataShape => ({
  inForce: (environment) =>
    Effect.gen(function* () {
      const latest = yield* options.latest
      const now = yield* DateTime.now
      return MarketFreshness.inForce({ latest, environment, now, maxAge: options.maxAge })
    }),
  notionalLimits: options.notionalLimits ?? defaultNotionalLimits,
  midRate: (base, quote) =>
    Effect.map(options.latest, (latest) =>
      MarketSnapshot.midRate(
        Option.match(latest, { onNone: () => MarketSnapshot.illustrative, onSome: (s) => s.snapshot }),
        base,
        quote
      )
    )
})

export interface SnapshotOptions {
  /** The snapshot's stored id, when it is stored somewhere; else quotes record none. */
  readonly id?: string | undefined
  readonly notionalLimits?: NotionalLimits | undefined
  /**
   * The snapshot's maximum age at the clock's now, in every environment (default
   * `MarketFreshness.defaultMaxAge`, 900 s, production's rule); older, quotes fail `market_data_stale`.
   * `Duration.infinity` prices from it whatever its age (history, tests).
   */
  readonly maxAge?: Duration.Duration | undefined
}

/**
 * Every environment prices from `snapshot` (as `id`) while it is at most `maxAge` old at the clock's now,
 * else quotes fail `market_data_stale` saying how old it is: a snapshot given as a value has no sandbox
 * fallback, and an old one would price wrong without a word (its curves and smile run from its `as_of`).
 * Mid rates (a payout already owed) come from it whatever its age, as `fromLatest`'s do.
 */
export const fromSnapshot = (
  snapshot: MarketSnapshot.MarketSnapshot,
  options: SnapshotOptions = {}
): MarketDataShape => {
  // a snapshot given as a value is stored nowhere unless the caller names its stored id
  const snapshotId = options.id ?? null
  const maxAge = options.maxAge ?? MarketFreshness.defaultMaxAge
  return {
    inForce: () => Effect.map(DateTime.now, (now) => MarketFreshness.given({ snapshot, snapshotId, now, maxAge })),
    notionalLimits: options.notionalLimits ?? defaultNotionalLimits,
    midRate: (base, quote) => Effect.succeed(MarketSnapshot.midRate(snapshot, base, quote))
  }
}

/** Every environment prices from the illustrative snapshot observed at the clock's now (pricing.md's table). */
export const illustrative = (notionalLimits: NotionalLimits = defaultNotionalLimits): MarketDataShape => ({
  inForce: () => Effect.map(DateTime.now, MarketFreshness.illustrative),
  notionalLimits,
  midRate: (base, quote) => Effect.succeed(MarketSnapshot.midRate(MarketSnapshot.illustrative, base, quote))
})

export class MarketData extends Context.Service<MarketData, MarketDataShape>()("@ratelock/core/MarketData") {
  /** The latest stored snapshot under the freshness rules (the host backs `latest` with its store). */
  static readonly layerLatest = (options: LatestOptions) =>
    Layer.succeed(MarketData, MarketData.of(fromLatest(options)))

  /**
   * One fixed snapshot in every environment while it is fresh (`maxAge`, default 900 s; older, quotes fail
   * `market_data_stale`): embedded pricing on your own data. `maxAge: Duration.infinity` for any age.
   */
  static readonly layerSnapshot = (snapshot: MarketSnapshot.MarketSnapshot, options?: SnapshotOptions) =>
    Layer.succeed(MarketData, MarketData.of(fromSnapshot(snapshot, options)))

  /** The illustrative defaults of pricing.md, observed at the clock's now, in every environment. */
  static readonly layerDefaults = Layer.succeed(MarketData, MarketData.of(illustrative()))
}
