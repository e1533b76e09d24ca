/**
 * The early-exercise boundary of an American put: the stopping rule the paths use for a customer who exercises
 * when it pays, with no foresight (`Paths.StopRule`).
 */
import * as Pricing from "../../pricing/Pricing.ts"
import type { PricingInputs } from "../../terms/PricingInputs.ts"

/** The spot below which a put struck at `strike` is worth more exercised than held as a European to `years`. */
export const exerciseBoundary = (inputs: PricingInputs, strike: number, years: number): number => {
  const held = (s: number) =>
    Pricing.garmanKohlhagen({
      spot: s,
      strike,
      domesticRate: inputs.rate_domestic,
      foreignRate: inputs.rate_foreign,
      volatility: inputs.sigma,
      years,
      kind: "put"
    })
  const gain = (s: number) => strike - s - held(s)
  let lo = strike * 1e-6
  let hi = strike
  if (!(gain(lo) >= 0)) return 0
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2
    if (gain(mid) >= 0) lo = mid
    else hi = mid
  }
  return lo
}
