/**
 * What every simulation says and refuses with: the model's drift, the customer's behaviours at exercise, and the
 * errors of a lock the service would not price or a series it cannot read.
 */
import { Data, Schema } from "effect"

/** What every result says of its drift. */
export const riskNeutralDrift =
  "risk-neutral: spot drifts along the snapshot's forward curve (its two discount curves); no view of real-world drift is taken"

/**
 * When the customer transacts: `best` (the moment of the window that pays the most, with hindsight: the service's
 * worst case), `end` (at `window_end`), `uniform` (a uniformly random moment of the window: a need-driven customer),
 * `at` a given instant of the window.
 */
export const Exercise = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("best") }),
  Schema.Struct({ _tag: Schema.Literal("end") }),
  Schema.Struct({ _tag: Schema.Literal("uniform") }),
  Schema.Struct({ _tag: Schema.Literal("at"), at: Schema.DateTimeUtc })
])
export type Exercise = typeof Exercise.Type

/** What each behaviour reports, said in every result (`best` above all: hindsight, not a stopping rule). */
export const exerciseMeaning: { readonly [T in Exercise["_tag"]]: string } = {
  best: "the moment of the window that pays the most, with hindsight: the service's worst case. It over-counts foresight against the window engine's optimal stopping; model.stoppingRuleValue is a rule without foresight, at most the engine's value",
  end: "at window_end",
  uniform:
    "at a uniformly random point of the window's daily grid (one draw per antithetic pair): a need-driven customer",
  at: "at the given instant"
}

/** A lock the snapshot or the pricer will not price: the pricer's failure code and message. */
export class SimulationRefused extends Data.TaggedError("SimulationRefused")<{
  readonly code: string
  readonly message: string
}> {}

/** What is wrong with a spot series or a backtest's template. */
export class SeriesError extends Data.TaggedError("SeriesError")<{
  readonly reason:
    | "empty"
    | "bad_line"
    | "non_numeric"
    | "unsorted"
    | "gap"
    | "tenor_past_end"
    | "off_snapshot"
    | "bad_template"
  /** The CSV line (1-based), when one line is at fault. */
  readonly line: number | null
  readonly message: string
}> {}
