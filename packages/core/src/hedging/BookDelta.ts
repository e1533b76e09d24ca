/**
 * Port for the book's delta per market pair, what the hedger hedges (risk.md: `delta`, BASE
 * units, positive for a book of short puts). The host backs it with the workers' current
 * revaluation of the book; tests with a value they set.
 *
 * A revaluation lists every pair it covers, a pair with no open lock at delta 0 (so its hedge is
 * unwound); a pair it does not list is not known, and the hedger leaves it alone. No revaluation
 * yet: an empty list.
 */
import { Context } from "effect"
import type { DateTime, Effect } from "effect"
import type { Decimal } from "../kernel/Money.ts"
import type { Environment } from "../terms/Partner.ts"
import type { StoreError } from "../kernel/StoreError.ts"

export interface PairDelta {
  /** The market pair in its usual order, `USD/BRL`. */
  readonly pair: string
  /** BASE units. */
  readonly delta: Decimal
  /** The stored snapshot the book was revalued on; null when it is not a stored one. */
  readonly snapshotId: string | null
  /** When the revaluation was made. */
  readonly asOf: DateTime.Utc
}

export interface BookDeltaShape {
  /** The delta of every pair the current revaluation of `environment`'s book covers. */
  readonly deltas: (environment: Environment) => Effect.Effect<ReadonlyArray<PairDelta>, StoreError>
}

export class BookDelta extends Context.Service<BookDelta, BookDeltaShape>()("@ratelock/core/BookDelta") {}
