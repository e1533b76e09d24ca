/**
 * Persistence port for the book's current revaluation (issue 17): the workers revalue the book
 * every `Revaluation.Settings.interval` and after each new snapshot, and store the figures per
 * environment here; the risk report, the operator API, the gauges and the hedger's `BookDelta`
 * read them instead of revaluing a large book on every call.
 */
import { Context, Schema } from "effect"
import type { DateTime, Effect, Option } from "effect"
import { Environment } from "../terms/Partner.ts"
import * as RiskReport from "./RiskReport.ts"
import type { StoreError } from "../kernel/StoreError.ts"

export const StoredRevaluation = Schema.Struct({
  environment: Environment,
  /** When the revaluation was computed (its `as_of` is the instant the book was valued at). */
  computedAt: Schema.DateTimeUtc,
  /** The stored snapshot it priced from; null: the built-in illustrative one. */
  snapshotId: Schema.NullOr(Schema.String),
  report: RiskReport.BookReport
}).annotate({ identifier: "StoredRevaluation" })
export type StoredRevaluation = typeof StoredRevaluation.Type

/** A worker's hold on the next revaluation: its owner and the lease's end, which tell one hold from the next. */
export interface RevaluationLease {
  readonly owner: string
  readonly until: DateTime.Utc
}

export interface RiskRevaluationRepoShape {
  /** Replaces the environment's revaluation, unless a newer one (by `computedAt`) is stored. */
  readonly save: (revaluation: StoredRevaluation) => Effect.Effect<void, StoreError>
  readonly latest: (environment: Environment) => Effect.Effect<Option.Option<StoredRevaluation>, StoreError>
  /**
   * Takes the one lease on revaluing the book, if nobody holds it at `now` (or the holder's lease
   * ended): true when `lease` now holds it. Concurrent claims never both succeed, so of several
   * workers finding the book due, one revalues it and the others go on with their other passes.
   */
  readonly claim: (lease: RevaluationLease, now: DateTime.Utc) => Effect.Effect<boolean, StoreError>
  /** Lets the lease go at `now`, if `lease` still holds it (a later claim's lease stays). */
  readonly release: (lease: RevaluationLease, now: DateTime.Utc) => Effect.Effect<void, StoreError>
}

export class RiskRevaluationRepo extends Context.Service<RiskRevaluationRepo, RiskRevaluationRepoShape>()(
  "@ratelock/core/RiskRevaluationRepo"
) {}
