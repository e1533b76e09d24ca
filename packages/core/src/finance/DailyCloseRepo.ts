/**
 * Persistence port for the daily closes, and the reads of the books a close takes: the contracts' ledger over a
 * period (with each entry's corridor, to say which pair earned it) and every ledger's balances.
 *
 * A close is written whole or not at all (its locks with it, in one transaction) and never changed: the stores
 * refuse an update or a delete of one. An environment has at most one close per scheduled cut, however many
 * workers reach the cut at once.
 */
import { Context } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { Direction } from "../kernel/Corridor.ts"
import type { StoreError } from "../kernel/StoreError.ts"
import type { LedgerEntry } from "../lifecycle/Ledger.ts"
import type { Environment } from "../terms/Partner.ts"
import type { CloseSummary, DailyClose, LedgerBalance } from "./DailyClose.ts"

/** A contract ledger entry with the corridor of its contract. */
export interface ContractFlow extends LedgerEntry {
  readonly direction: Direction
}

/** A worker's hold on closing: its owner and the lease's end. */
export interface CloseLease {
  readonly owner: string
  readonly until: DateTime.Utc
}

export interface DailyCloseRepoShape {
  /**
   * Stores the close with its locks, all or nothing. False, and nothing written, when the environment has a close
   * for the same `scheduled_for` (a scheduled close is one per cut; an operator's, `scheduled_for` null, always
   * stores).
   */
  readonly insert: (close: DailyClose) => Effect.Effect<boolean, StoreError>
  readonly find: (id: string) => Effect.Effect<Option.Option<DailyClose>, StoreError>
  /** The environment's latest close (by `closed_at`, then id), whole. */
  readonly latest: (environment: Environment) => Effect.Effect<Option.Option<DailyClose>, StoreError>
  /** Whether the environment has a close for the scheduled cut. */
  readonly hasScheduled: (environment: Environment, cut: DateTime.Utc) => Effect.Effect<boolean, StoreError>
  /** The environment's closes with `closed_at` in `[from, to]` (either end open when absent), oldest first. */
  readonly list: (query: {
    readonly environment: Environment
    readonly from?: DateTime.Utc | undefined
    readonly to?: DateTime.Utc | undefined
  }) => Effect.Effect<ReadonlyArray<CloseSummary>, StoreError>
  /** Takes the one lease on closing if nobody holds it at `now` (or the holder's ended): true when `lease` holds it. */
  readonly claim: (lease: CloseLease, now: DateTime.Utc) => Effect.Effect<boolean, StoreError>
  /** Lets the lease go, if `lease` still holds it. */
  readonly release: (lease: CloseLease, now: DateTime.Utc) => Effect.Effect<void, StoreError>
  /** The environment's contract ledger entries with `after < at ≤ until` (no lower bound when `after` is absent), in booking order. */
  readonly contractFlows: (query: {
    readonly environment: Environment
    readonly after?: DateTime.Utc | undefined
    readonly until: DateTime.Utc
  }) => Effect.Effect<ReadonlyArray<ContractFlow>, StoreError>
  /**
   * Per ledger (contracts, treasury, hedges), account and currency, the sum of the environment's entries booked at
   * or before `until`, zero balances left out; sorted by ledger, account, currency.
   */
  readonly trialBalance: (query: {
    readonly environment: Environment
    readonly until: DateTime.Utc
  }) => Effect.Effect<ReadonlyArray<LedgerBalance>, StoreError>
}

export class DailyCloseRepo extends Context.Service<DailyCloseRepo, DailyCloseRepoShape>()(
  "@ratelock/core/DailyCloseRepo"
) {}
