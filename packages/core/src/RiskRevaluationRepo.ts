/**
 * Persistence port for the book's current revaluation (issue 17): the workers revalue the book
 * every `RiskDesk.Settings.interval` and after each new snapshot, and store the figures per
 * environment here; the risk report, the operator API, the gauges and the hedger's `BookDelta`
 * read them instead of revaluing a large book on every call.
 */
import { Context, Schema } from "effect"
import type { Effect, Option } from "effect"
import { Environment } from "./Partner.ts"
import * as RiskReport from "./RiskReport.ts"
import type { StoreError } from "./StoreError.ts"

export const StoredRevaluation = Schema.Struct({
  environment: Environment,
  /** When the revaluation was computed (its `as_of` is the instant the book was valued at). */
  computedAt: Schema.DateTimeUtc,
  /** The stored snapshot it priced from; null: the built-in illustrative one. */
  snapshotId: Schema.NullOr(Schema.String),
  report: RiskReport.BookReport
}).annotate({ identifier: "StoredRevaluation" })
export type StoredRevaluation = typeof StoredRevaluation.Type

export interface RiskRevaluationRepoShape {
  /** Replaces the environment's revaluation, unless a newer one (by `computedAt`) is stored. */
  readonly save: (revaluation: StoredRevaluation) => Effect.Effect<void, StoreError>
  readonly latest: (environment: Environment) => Effect.Effect<Option.Option<StoredRevaluation>, StoreError>
}

export class RiskRevaluationRepo extends Context.Service<RiskRevaluationRepo, RiskRevaluationRepoShape>()(
  "@ratelock/core/RiskRevaluationRepo"
) {}
