/**
 * Persistence port for corridor limits (`CorridorLimit`): the limits an operator sets per environment
 * and corridor, and the open notional the corridor's locks hold. The open notional is not written
 * here: `ContractRepo.insert` adds a new lock's notional, refusing it past a limit, and
 * `ContractRepo.commit` moves it as contracts enter or leave the holding statuses, each in the same
 * atomic step as the contract's own write.
 */
import { Context } from "effect"
import type { DateTime, Effect } from "effect"
import type { Direction } from "../kernel/Corridor.ts"
import type { CorridorLimit, LimitChange } from "./CorridorLimit.ts"
import type { Environment } from "../terms/Partner.ts"
import type { StoreError } from "../kernel/StoreError.ts"

export interface CorridorLimitRepoShape {
  /** The corridor's limits and open notional; `CorridorLimit.unset` when nothing was ever stored for it. */
  readonly find: (environment: Environment, direction: Direction) => Effect.Effect<CorridorLimit, StoreError>
  /** Every corridor something is stored for (a limit, or locks held), by environment then direction. */
  readonly list: () => Effect.Effect<ReadonlyArray<CorridorLimit>, StoreError>
  /** Applies an operator's change at `at` and answers the corridor after it; its open notional is kept. */
  readonly set: (
    environment: Environment,
    direction: Direction,
    change: LimitChange,
    at: DateTime.Utc
  ) => Effect.Effect<CorridorLimit, StoreError>
}

export class CorridorLimitRepo extends Context.Service<CorridorLimitRepo, CorridorLimitRepoShape>()(
  "@ratelock/core/CorridorLimitRepo"
) {}
