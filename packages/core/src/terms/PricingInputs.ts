/**
 * What priced a quote, kept with it so any premium can be examined and reproduced: the market
 * snapshot it came from and the exact model inputs the engine took. Model numbers are float64 and
 * are kept as such (a JSON number round-trips a double exactly); the spot is the partner's
 * `market_rate`, an exact decimal.
 */
import { Schema } from "effect"
import * as Money from "../kernel/Money.ts"

export const PricingInputs = Schema.Struct({
  /** The partner's `market_rate` the forwards are derived from (QUOTE per 1 BASE). */
  spot: Money.DecimalString,
  /** The forward at the window's start and end, QUOTE per 1 BASE. */
  forward_t1: Schema.Finite,
  forward_t2: Schema.Finite,
  /** Continuous ACT/365F rates over `[now, t2]`: domestic (QUOTE) and foreign (BASE). */
  rate_domestic: Schema.Finite,
  rate_foreign: Schema.Finite,
  /** The smile vol at `(t2, strike)`, annualised. */
  sigma: Schema.Finite,
  /** The window's start and end in ACT/365F years from the pricing instant. */
  t1: Schema.Finite,
  t2: Schema.Finite,
  /** The engine, its version (a change of method is a new version) and its lattice steps. */
  engine: Schema.String,
  engine_version: Schema.String,
  steps: Schema.Int
}).annotate({ identifier: "PricingInputs" })
export type PricingInputs = typeof PricingInputs.Type
