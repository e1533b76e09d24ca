/**
 * Closed forms shared by the public pricers and the lattice: Garman–Kohlhagen (single and on a lattice layer)
 * and the zero-volatility limit.
 * `omega` is +1 for a call and -1 for a put, so one formula serves both.
 */
import { cdf } from "../../kernel/Normal.ts"

/** What the per-node closed forms need to know about the option. */
export interface OptionTerms {
  readonly strike: number
  readonly domesticRate: number
  readonly foreignRate: number
  readonly volatility: number
  readonly omega: number
}

/** Payoff of exercising now. */
export const intrinsic = (omega: number, spot: number, strike: number): number => Math.max(omega * (spot - strike), 0)

/**
 * Garman–Kohlhagen value for `years > 0`. When `volatility·√years` is zero the distribution collapses onto the
 * forward, so the value is the discounted forward payoff (the σ → 0 limit) instead of `0/0`.
 */
export const garmanKohlhagen = (
  omega: number,
  spot: number,
  strike: number,
  domesticRate: number,
  foreignRate: number,
  volatility: number,
  years: number
): number => {
  const dfDomestic = Math.exp(-domesticRate * years)
  const dfForeign = Math.exp(-foreignRate * years)
  const stdDev = volatility * Math.sqrt(years)
  if (!(stdDev > 0)) return Math.max(omega * (spot * dfForeign - strike * dfDomestic), 0)
  const d1 = (Math.log(spot / strike) + (domesticRate - foreignRate) * years) / stdDev + 0.5 * stdDev
  const d2 = d1 - stdDev
  return omega * (spot * dfForeign * cdf(omega * d1) - strike * dfDomestic * cdf(omega * d2))
}

/**
 * Zero-volatility value of an option exercisable at any time in `[from, to]`: the path is the forward curve, so
 * the holder picks the best instant. The discounted payoff `ω(S·e^{-r_f t} − K·e^{-r_d t})` is a difference of
 * two exponentials with at most one stationary point, so the maximum is at an end or at that point.
 */
export const deterministicWindow = (
  omega: number,
  spot: number,
  strike: number,
  domesticRate: number,
  foreignRate: number,
  from: number,
  to: number
): number => {
  const at = (t: number) => omega * (spot * Math.exp(-foreignRate * t) - strike * Math.exp(-domesticRate * t))
  let best = Math.max(0, at(from), at(to))
  // d/dt = 0 ⇔ r_f·S·e^{-r_f t} = r_d·K·e^{-r_d t}
  const ratio = (domesticRate * strike) / (foreignRate * spot)
  if (domesticRate !== foreignRate && ratio > 0 && Number.isFinite(ratio)) {
    const t = Math.log(ratio) / (domesticRate - foreignRate)
    if (t > from && t < to) best = Math.max(best, at(t))
  }
  return best
}

/**
 * Garman–Kohlhagen with `tau` to expiry at every node of a lattice layer (node k at `base·ratio^k`, k ≤ layer):
 * `"value"` stores it, `"exercise"` stores the larger of it and exercising, `"subtract"` takes it off the stored
 * values. `d1` moves by a constant per node, and beyond |d| > 8.3 the normal CDF is 0 or 1 to double precision,
 * so only nodes near the strike pay for `exp`, and the far out-of-the-money end of the layer is a fill.
 */
export const europeanLayer = (
  v: Float64Array,
  layer: number,
  base: number,
  ratio: number,
  terms: OptionTerms,
  tau: number,
  mode: "value" | "exercise" | "subtract"
): void => {
  const { strike, domesticRate: rd, foreignRate: rf, volatility, omega } = terms
  const stdDev = volatility * Math.sqrt(tau)
  const dfForeign = Math.exp(-rf * tau)
  const strikePv = strike * Math.exp(-rd * tau)
  let d1 = (Math.log(base / strike) + (rd - rf) * tau) / stdDev + 0.5 * stdDev
  const dStep = Math.log(ratio) / stdDev
  let s = base
  for (let k = 0; k <= layer; k++) {
    const d2 = d1 - stdDev
    // Out of the money beyond |d| > 8.3 with nothing to exercise: this node and every one after it (ω·d1, ω·d2
    // and ω(s − K) only fall along the layer) would store 0, or subtract 0. Stop here.
    if (omega * d1 < -8.3 && !(omega * d2 > 8.3) && (mode !== "exercise" || !(omega * (s - strike) > 0))) {
      if (mode !== "subtract") v.fill(0, k, layer + 1)
      return
    }
    let value: number
    if (omega * d2 > 8.3) value = omega * (s * dfForeign - strikePv)
    else if (omega * d1 < -8.3) value = 0
    else value = omega * (s * dfForeign * cdf(omega * d1) - strikePv * cdf(omega * d2))
    if (mode === "subtract") value = v[k]! - value
    else if (mode === "exercise") {
      const x = omega * (s - strike)
      if (x > value) value = x
    }
    v[k] = value
    s *= ratio
    d1 += dStep
  }
}
