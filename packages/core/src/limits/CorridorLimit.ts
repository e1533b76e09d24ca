/**
 * The limits of one corridor (direction) in one environment (risk.md, Limits), and how much of them
 * its locks hold. All three limits are in the corridor's BASE units; `null` is the default:
 *
 * - `max_lock_notional`: the largest single lock. Default: the pair's limit of the configured table
 *   (`MarketData.notionalLimits`, today's per-corridor limit), converted at the snapshot's spot for an
 *   inverted direction.
 * - `max_open_notional`: the most the corridor's locks may hold together, Σ N_b of its contracts in
 *   `quote_created`, `funds_in_route` and `active` (committed and open). Default: unlimited.
 * - `max_net_delta`: the largest absolute delta of the corridor. Default: unlimited. At quote and
 *   contract creation the service has no revaluation, so it bounds the delta by the notional: a
 *   window put's delta is between 0 and its `N_b`, so the corridor's delta is at most its open
 *   notional, and that bound is what is held under `max_net_delta`. Locks of the opposite direction
 *   are not netted: their deltas can be anywhere between 0 and their notionals, so netting could
 *   understate the delta (docs/decisions.md, Limits).
 *
 * The store keeps the open notional beside the limits and changes it in the same atomic step as the
 * contract insert or transition that changes it (`ContractRepo`), so the check under any concurrency
 * is exact.
 */
import { BigDecimal, Option, Schema } from "effect"
import type { ContractRecord, ContractStatus } from "../terms/Contract.ts"
import { Direction, inBase, type Currency, pair } from "../kernel/Corridor.ts"
import * as Money from "../kernel/Money.ts"
import { Environment } from "../terms/Partner.ts"

export const LimitName = Schema.Literals(["max_lock_notional", "max_open_notional", "max_net_delta"])
export type LimitName = typeof LimitName.Type

/** A corridor's limits (null: the default) and the open notional its locks hold, as stored. */
export const CorridorLimit = Schema.Struct({
  environment: Environment,
  direction: Direction,
  maxLockNotional: Schema.NullOr(Schema.BigDecimal),
  maxOpenNotional: Schema.NullOr(Schema.BigDecimal),
  maxNetDelta: Schema.NullOr(Schema.BigDecimal),
  /** Σ N_b of the corridor's contracts that hold capacity (`holdsCapacity`), kept by the store. */
  openNotional: Schema.BigDecimal,
  /** When an operator last set a limit; null when none ever was. */
  updatedAt: Schema.NullOr(Schema.DateTimeUtc)
}).annotate({ identifier: "CorridorLimit" })
export type CorridorLimit = typeof CorridorLimit.Type

/** A corridor no operator has set a limit on and no lock holds: every limit at its default. */
export const unset = (environment: CorridorLimit["environment"], direction: Direction): CorridorLimit => ({
  environment,
  direction,
  maxLockNotional: null,
  maxOpenNotional: null,
  maxNetDelta: null,
  openNotional: Money.zero,
  updatedAt: null
})

/**
 * A change an operator makes: each limit given is set (null: back to its default), each one absent
 * is kept.
 */
export interface LimitChange {
  readonly maxLockNotional?: Money.Decimal | null | undefined
  readonly maxOpenNotional?: Money.Decimal | null | undefined
  readonly maxNetDelta?: Money.Decimal | null | undefined
}

/** The change applied to a corridor's limits, at `at`. */
export const applyChange = (
  corridor: CorridorLimit,
  change: LimitChange,
  at: CorridorLimit["updatedAt"]
): CorridorLimit => ({
  ...corridor,
  maxLockNotional: change.maxLockNotional === undefined ? corridor.maxLockNotional : change.maxLockNotional,
  maxOpenNotional: change.maxOpenNotional === undefined ? corridor.maxOpenNotional : change.maxOpenNotional,
  maxNetDelta: change.maxNetDelta === undefined ? corridor.maxNetDelta : change.maxNetDelta,
  updatedAt: at
})

/** The currency a corridor's limits are written in: its BASE. */
export const unitOf = (direction: Direction): Currency => pair(direction).base

/** The statuses whose contracts hold their corridor's capacity: committed (awaiting funds) and open. */
export const holdingStatuses: ReadonlyArray<ContractStatus> = ["quote_created", "funds_in_route", "active"]

export const holdsCapacity = (status: ContractStatus): boolean => holdingStatuses.includes(status)

/** The decimals a lock's notional is counted with: the token unit's, never less than the lock's notional. */
const countedScale = 6

/**
 * What a lock takes of its corridor's limits: its notional in BASE (N_b; a QUOTE notional divided by
 * the locked rate), rounded up to 6 decimals so the sums stay short and never understate.
 */
export const lockNotional = (lock: {
  readonly direction: Direction
  readonly notionalCurrency: Currency
  readonly notionalAmount: Money.Decimal
  readonly lockedRate: Money.Decimal
}): Money.Decimal =>
  BigDecimal.normalize(
    Money.roundUp(inBase(lock.notionalAmount, lock.notionalCurrency, lock.direction, lock.lockedRate), countedScale)
  )

/**
 * How a committed transition changes its corridor's open notional: `+N_b` into a holding status,
 * `−N_b` out of one (failed, defaulted, exercised, expired, …), zero otherwise. The status before is
 * the history entry at `expectedVersion`, the version the change was computed from.
 */
export const transitionUsage = (change: {
  readonly contract: ContractRecord
  readonly expectedVersion: number
}): Money.Decimal => {
  const before = change.contract.history[change.expectedVersion - 1]?.status
  const held = before !== undefined && holdsCapacity(before)
  const holds = holdsCapacity(change.contract.status)
  if (held === holds) return Money.zero
  const notional = lockNotional(change.contract)
  return holds ? notional : BigDecimal.negate(notional)
}

/**
 * The open notional the corridor may hold: the least of `max_open_notional` and `max_net_delta` (the
 * delta bounded by the notional); none when both are unlimited.
 */
export const capacity = (corridor: CorridorLimit): Option.Option<Money.Decimal> => {
  const set = [corridor.maxOpenNotional, corridor.maxNetDelta].filter((l): l is Money.Decimal => l !== null)
  return set.length === 0 ? Option.none() : Option.some(set.reduce((a, b) => Money.min(a, b)))
}

/** What is left of `capacity`; none when unlimited; negative when a limit was lowered below what is held. */
export const headroom = (corridor: CorridorLimit): Option.Option<Money.Decimal> =>
  Option.map(capacity(corridor), (c) => Money.subtract(c, corridor.openNotional))

/** The decimals of a usage ratio (hundredths of a per cent). */
export const usageScale = 4

/** How much of one limit a corridor's locks hold. */
export interface Usage {
  readonly limit: Exclude<LimitName, "max_lock_notional">
  /** The limit, in the corridor's BASE units. */
  readonly amount: Money.Decimal
  /** What is held under it: the open notional (under `max_net_delta`, the delta bound it is). */
  readonly held: Money.Decimal
  /**
   * `held / amount`, rounded up to `usageScale` decimals so it never understates (1 is full; above 1
   * when a limit was lowered below what is held); none when the limit is 0, where nothing fits at all.
   */
  readonly ratio: Option.Option<Money.Decimal>
}

/**
 * The usage of each of the corridor's capacity limits that is set (`max_lock_notional` bounds one lock
 * and holds nothing): `max_open_notional`, then `max_net_delta`.
 */
export const usage = (corridor: CorridorLimit): ReadonlyArray<Usage> =>
  (
    [
      ["max_open_notional", corridor.maxOpenNotional],
      ["max_net_delta", corridor.maxNetDelta]
    ] as const
  ).flatMap(([limit, amount]) =>
    amount === null
      ? []
      : [
          {
            limit,
            amount,
            held: corridor.openNotional,
            ratio: Money.isZero(amount)
              ? Option.none()
              : Option.some(Money.roundUp(Money.divide(corridor.openNotional, amount), usageScale))
          }
        ]
  )

/**
 * The limit a new lock of `notional` (`lockNotional`) would breach, if any: first the lock's own
 * (`lockLimit`: the corridor's `max_lock_notional`, or the default the caller knows), then the
 * corridor's. A lock that brings the corridor exactly to its limit breaches nothing.
 */
export const breached = (
  corridor: CorridorLimit,
  notional: Money.Decimal,
  lockLimit: Option.Option<Money.Decimal> = Option.fromNullishOr(corridor.maxLockNotional)
): Option.Option<LimitName> => {
  if (Option.isSome(lockLimit) && Money.greaterThan(notional, lockLimit.value)) return Option.some("max_lock_notional")
  const after = Money.sum(corridor.openNotional, notional)
  if (corridor.maxOpenNotional !== null && Money.greaterThan(after, corridor.maxOpenNotional)) {
    return Option.some("max_open_notional")
  }
  if (corridor.maxNetDelta !== null && Money.greaterThan(after, corridor.maxNetDelta)) {
    return Option.some("max_net_delta")
  }
  return Option.none()
}

/**
 * What a partner is told when a lock does not fit its corridor: no figure, since the corridor's use
 * is the sum of every partner's locks.
 */
export const capacityMessage = (direction: Direction): string =>
  `the ${direction} corridor cannot take this notional now; a smaller notional may fit, or retry later`
