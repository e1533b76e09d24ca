/**
 * Persistence port for hedge orders and the ledger entries of their fills. An order is stored
 * `intended` before it is sent, only while its pair's lease is held, and at most one order per
 * pair waits for an outcome (`intended` or `sent`) at any time: so a decision is never made twice,
 * whatever crashes or runs concurrently.
 */
import { Context } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { HedgeOrder, HedgeOrderStatus } from "./HedgeOrder.ts"
import type { PairLease } from "./HedgePolicyRepo.ts"
import type { HedgeLedgerEntry } from "./HedgeLedger.ts"
import type { Decimal } from "../kernel/Money.ts"
import type { Environment } from "../terms/Partner.ts"
import type { StoreError } from "../kernel/StoreError.ts"

/** What a compare-and-set update expects to find. */
export type Expected = Pick<HedgeOrder, "status" | "updatedAt">

export interface ListFilter {
  readonly environment?: Environment | undefined
  readonly pair?: string | undefined
  /** Only orders in these statuses (all when absent). */
  readonly statuses?: ReadonlyArray<HedgeOrderStatus> | undefined
  /** Only orders created at or after this instant. */
  readonly since?: DateTime.Utc | undefined
  readonly limit: number
}

export interface HedgeOrderRepoShape {
  /**
   * Stores a new `intended` order, only if `lease` still holds its pair and no order of the pair
   * is outstanding; answers whether it was stored.
   */
  readonly insertIntended: (order: HedgeOrder, lease: PairLease) => Effect.Effect<boolean, StoreError>
  /**
   * Saves the order only if the stored row is still `expected` (same status and `updatedAt`),
   * with `ledger` (a fill's entries, which must balance per currency) in the same step; answers
   * whether it was written.
   */
  readonly update: (
    order: HedgeOrder,
    expected: Expected,
    ledger?: ReadonlyArray<HedgeLedgerEntry>
  ) => Effect.Effect<boolean, StoreError>
  readonly find: (id: string) => Effect.Effect<Option.Option<HedgeOrder>, StoreError>
  /** The pair's orders still waiting for an outcome (`intended`, `sent`): at most one. */
  readonly outstanding: (environment: Environment, pair: string) => Effect.Effect<ReadonlyArray<HedgeOrder>, StoreError>
  /** The pair's hedge position: the signed sum of its filled amounts (BASE units, buys positive). */
  readonly position: (environment: Environment, pair: string) => Effect.Effect<Decimal, StoreError>
  /** Orders, newest first (`createdAt`, then id), at most `limit`. */
  readonly list: (filter: ListFilter) => Effect.Effect<ReadonlyArray<HedgeOrder>, StoreError>
  /** The ledger entries of an order's fill, in booking order. */
  readonly ledgerEntries: (orderId: string) => Effect.Effect<ReadonlyArray<HedgeLedgerEntry>, StoreError>
}

export class HedgeOrderRepo extends Context.Service<HedgeOrderRepo, HedgeOrderRepoShape>()(
  "@ratelock/core/HedgeOrderRepo"
) {}
