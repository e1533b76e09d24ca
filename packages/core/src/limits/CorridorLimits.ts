/**
 * The operator's corridor-limit programs over `CorridorLimitRepo` (`ratelock limits set` and
 * `limits show`): set a corridor's limits, and list every corridor's limits with what its locks
 * hold. Figures are decimal strings in the corridor's BASE; hosts only parse and print.
 */
import { BigDecimal, Data, DateTime, Effect, Option, Schema } from "effect"
import { Currency, Direction, directions, marketPair, marketPairKey } from "../kernel/Corridor.ts"
import * as CorridorLimit from "./CorridorLimit.ts"
import { CorridorLimitRepo } from "./CorridorLimitRepo.ts"
import { defaultNotionalLimits, type NotionalLimits } from "../market/MarketData.ts"
import * as Money from "../kernel/Money.ts"
import * as Environments from "../kernel/Environment.ts"
import { Environment } from "../terms/Partner.ts"

export class LimitError extends Data.TaggedError("LimitError")<{ readonly message: string }> {}

/** One corridor as the operator reads it. Every amount is in `currency`, the corridor's BASE, unless named. */
export const CorridorListing = Schema.Struct({
  environment: Environment,
  corridor: Direction,
  currency: Currency,
  /** Set by an operator; null: the default below. */
  max_lock_notional: Schema.NullOr(Schema.String),
  /**
   * The table's limit for the corridor's market pair, in that pair's BASE: for an inverted corridor
   * (`BRL_TO_USD` on USD/BRL) it is converted at the spot of the snapshot that prices each quote.
   */
  default_max_lock_notional: Schema.NullOr(Schema.Struct({ amount: Schema.String, currency: Currency })),
  /** Null: unlimited. */
  max_open_notional: Schema.NullOr(Schema.String),
  /** Null: unlimited. */
  max_net_delta: Schema.NullOr(Schema.String),
  /** Σ N_b of the corridor's contracts in `quote_created`, `funds_in_route` and `active`. */
  open_notional: Schema.String,
  /** What the checks hold under `max_net_delta`: a window put's |delta| is at most its notional. */
  net_delta_bound: Schema.String,
  /** What is left under the tighter of `max_open_notional` and `max_net_delta`; null: unlimited. */
  headroom: Schema.NullOr(Schema.String),
  /** Each capacity limit that is set, with what its locks hold of it (`CorridorLimit.usage`). */
  usage: Schema.Array(
    Schema.Struct({
      limit: Schema.Literals(["max_open_notional", "max_net_delta"]),
      amount: Schema.String,
      held: Schema.String,
      /** `held / amount`, 4 decimals rounded up (1: full); null when the limit is 0: nothing fits. */
      ratio: Schema.NullOr(Schema.String)
    })
  ),
  updated_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "CorridorLimitListing" })
export type CorridorListing = typeof CorridorListing.Type

const decimal = (value: Money.Decimal): string => Money.format(BigDecimal.normalize(value))

const decimalOrNull = (value: Money.Decimal | null): string | null => (value === null ? null : decimal(value))

/** A corridor's listing, with the default `max_lock_notional` of `notionalLimits`. */
export const listing = (
  corridor: CorridorLimit.CorridorLimit,
  notionalLimits: NotionalLimits = defaultNotionalLimits
): CorridorListing => {
  const tableLimit = notionalLimits[marketPairKey(corridor.direction)]
  return {
    environment: corridor.environment,
    corridor: corridor.direction,
    currency: CorridorLimit.unitOf(corridor.direction),
    max_lock_notional: decimalOrNull(corridor.maxLockNotional),
    default_max_lock_notional:
      tableLimit === undefined ? null : { amount: decimal(tableLimit), currency: marketPair(corridor.direction).base },
    max_open_notional: decimalOrNull(corridor.maxOpenNotional),
    max_net_delta: decimalOrNull(corridor.maxNetDelta),
    open_notional: decimal(corridor.openNotional),
    net_delta_bound: decimal(corridor.openNotional),
    headroom: Option.getOrNull(Option.map(CorridorLimit.headroom(corridor), decimal)),
    usage: CorridorLimit.usage(corridor).map((u) => ({
      limit: u.limit,
      amount: decimal(u.amount),
      held: decimal(u.held),
      ratio: Option.getOrNull(Option.map(u.ratio, (r) => Money.formatFixed(r, CorridorLimit.usageScale)))
    })),
    updated_at: corridor.updatedAt === null ? null : DateTime.formatIso(corridor.updatedAt)
  }
}

/**
 * Every corridor of `environment` (or of both), stored or not, in `Corridor.directions` order: its
 * limits, with their defaults, and what its locks hold.
 */
export const show = Effect.fn("CorridorLimits.show")(function* (
  options: { readonly environment?: Environment | undefined; readonly notionalLimits?: NotionalLimits } = {}
) {
  const stored = yield* (yield* CorridorLimitRepo).list()
  const shown = options.environment === undefined ? Environments.all : [options.environment]
  const corridors = shown.flatMap((environment) =>
    directions.map((direction) => {
      const found = stored.find((c) => c.environment === environment && c.direction === direction)
      return listing(found ?? CorridorLimit.unset(environment, direction), options.notionalLimits)
    })
  )
  return { corridors }
})

const limitNames: ReadonlyArray<readonly [keyof CorridorLimit.LimitChange, CorridorLimit.LimitName]> = [
  ["maxLockNotional", "max_lock_notional"],
  ["maxOpenNotional", "max_open_notional"],
  ["maxNetDelta", "max_net_delta"]
]

/**
 * Sets a corridor's limits (each given one; null puts it back to its default) and answers the
 * corridor after it. A limit below what the corridor holds is allowed: no new lock is sold there
 * until enough falls away.
 */
export const set = Effect.fn("CorridorLimits.set")(function* (
  environment: Environment,
  direction: Direction,
  change: CorridorLimit.LimitChange
) {
  const given = limitNames.filter(([key]) => change[key] !== undefined)
  if (given.length === 0) {
    return yield* new LimitError({
      message: "nothing to set: give --max-lock-notional, --max-open-notional or --max-net-delta"
    })
  }
  for (const [key, name] of given) {
    const value = change[key]
    if (value !== null && value !== undefined && Money.isNegative(value)) {
      return yield* new LimitError({ message: `${name} must be 0 or more, not ${Money.format(value)}` })
    }
  }
  const now = yield* DateTime.now
  return listing(yield* (yield* CorridorLimitRepo).set(environment, direction, change, now))
})
