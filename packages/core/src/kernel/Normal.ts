/**
 * Standard normal CDF in double precision: Hart (1968) algorithm 5666 as given by West, "Better approximations
 * to cumulative normal functions" (2005). Absolute error ~1e-15, no `erf` needed (JavaScript has none).
 */

/** `coefficients[0]·xⁿ + … + coefficients[n]`, by Horner's rule (the operations the published forms spell out). */
const polynomial = (coefficients: ReadonlyArray<number>, x: number): number => {
  let sum = coefficients[0]!
  for (let i = 1; i < coefficients.length; i++) sum = sum * x + coefficients[i]!
  return sum
}

// Hart's rational approximation of the tail, numerator and denominator, highest degree first.
const hartNumerator = [
  3.52624965998911e-2, 0.700383064443688, 6.37396220353165, 33.912866078383, 112.079291497871, 221.213596169931,
  220.206867912376
]
const hartDenominator = [
  8.83883476483184e-2, 1.75566716318264, 16.064177579207, 86.7807322029461, 296.564248779674, 637.333633378831,
  793.826512519948, 440.413735824752
]

/** Φ(x), by Hart's algorithm (above). */
export const cdf = (x: number): number => {
  const z = Math.abs(x)
  // Below -37 the tail is smaller than the smallest double.
  if (z > 37) return x > 0 ? 1 : 0
  const e = Math.exp(-0.5 * z * z)
  let tail: number
  if (z < 7.07106781186547) {
    tail = (e * polynomial(hartNumerator, z)) / polynomial(hartDenominator, z)
  } else {
    // Continued fraction for the far tail.
    let cf = z + 0.65
    cf = z + 4 / cf
    cf = z + 3 / cf
    cf = z + 2 / cf
    cf = z + 1 / cf
    tail = e / cf / 2.506628274631
  }
  return x > 0 ? 1 - tail : tail
}

// Acklam's coefficients, highest degree first: the tails' numerator and denominator in q, the centre's in r = q².
const acklamTailNumerator = [
  -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783
]
const acklamTailDenominator = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416, 1]
const acklamCentreNumerator = [
  -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1,
  2.506628277459239
]
const acklamCentreDenominator = [
  -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1, 1
]

/**
 * Inverse of the standard normal CDF: Acklam's rational approximation (relative error ~1e-9) refined by one
 * Halley step on `cdf`, which brings it to the accuracy of `cdf` itself. `p` outside (0, 1) gives ±Infinity / NaN.
 */
export const inverseCdf = (p: number): number => {
  if (!(p > 0 && p < 1)) return p === 0 ? Number.NEGATIVE_INFINITY : p === 1 ? Number.POSITIVE_INFINITY : Number.NaN
  const low = 0.02425
  let x: number
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p))
    const tail = polynomial(acklamTailNumerator, q) / polynomial(acklamTailDenominator, q)
    x = p < low ? tail : -tail
  } else {
    const q = p - 0.5
    const r = q * q
    x = (polynomial(acklamCentreNumerator, r) * q) / polynomial(acklamCentreDenominator, r)
  }
  // Halley: e = Φ(x) − p, u = e·√(2π)·exp(x²/2), x ← x − u / (1 + x·u/2)
  const e = cdf(x) - p
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2)
  return x - u / (1 + (x * u) / 2)
}
