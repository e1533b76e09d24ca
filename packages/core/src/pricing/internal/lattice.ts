/**
 * Cox–Ross–Rubinstein lattice for an option exercisable from t1 (`exerciseFrom`) until expiry T: a window
 * option, American when t1 ≤ 0, with optional Broadie–Detemple smoothing of the last step and a European control
 * variate at t1. Callers guarantee `years > 0`, `volatility > 0`, `steps ≥ 1`.
 *
 * Putting t1 on the grid: the grid is the uniform `i·dt`, `dt = T/N`. When t1 falls strictly inside a step, that
 * step is split at t1 into two sub-steps (N+1 steps in all), so t1 is a node whatever its value and the step
 * count stays about N even for t1 of an hour. Each sub-step keeps the spacing `h = σ√dt` (nodes still
 * recombine), takes the up-probability `q` with `q(1−q) = p(1−p)·δ/dt` (log-variance proportional to its length
 * δ) and shifts the layer so the step is a martingale. As `δ → dt` a sub-step is the CRR step, as `δ → 0` a null
 * step, so values are continuous in t1. Only two steps are irregular, so their O(h³) skew keeps the order.
 */
import { europeanLayer, garmanKohlhagen } from "./european.ts"

export interface LatticeInput {
  readonly spot: number
  readonly strike: number
  readonly domesticRate: number
  readonly foreignRate: number
  readonly volatility: number
  /** t1 in years; `≤ 0` is American, `≥ years` European. */
  readonly exerciseFrom: number
  readonly years: number
  /** +1 call, -1 put. */
  readonly omega: number
}

// Reused across calls: pricing is synchronous, so no two calls interleave.
let values = new Float64Array(1024)

// A t1 within this fraction of a step from a node is that node (float noise, not a real split).
const snap = 1e-9

/**
 * One lattice of `steps` steps. `smooth`: the last step before expiry is Garman–Kohlhagen (BBS). `control`:
 * return only `E[V(t1) − GK(t1, t2)]` rolled back on the lattice, the value at t1 less its European part, which
 * the caller adds back exactly as GK(0, t2) (the tower property makes that exact, see `bbsr`).
 */
export const lattice = (input: LatticeInput, steps: number, smooth: boolean, control = false): number => {
  const { spot, strike, domesticRate: rd, foreignRate: rf, volatility, years, omega } = input
  const n = Math.max(1, Math.floor(steps))
  const dt = years / n
  const h = volatility * Math.sqrt(dt)
  const u = Math.exp(h)
  const d = 1 / u
  let p = (Math.exp((rd - rf) * dt) - d) / (u - d)
  // CRR needs σ√dt ≳ |r_d − r_f|·dt for p ∈ [0, 1]. Below that (volatility under ~1%), let every layer drift
  // with the forward instead, so that p = 1/2 and the lattice stays a valid random walk.
  let drift = 0
  if (!(p >= 0 && p <= 1)) {
    drift = (rd - rf) * dt - Math.log((u + d) / 2)
    p = 0.5
  }

  // Layer of t1 and the split step (-1: none).
  let split = -1
  let frac = 0
  let exerciseLayer = 0
  const t1 = input.exerciseFrom
  if (t1 >= years) exerciseLayer = n
  else if (t1 > 0) {
    const x = t1 / dt
    const m = Math.floor(x)
    if (x - m < snap) exerciseLayer = m
    else if (x - m > 1 - snap) exerciseLayer = m + 1
    else {
      split = m
      frac = x - m
      exerciseLayer = m + 1
    }
  }
  const last = split < 0 ? n : n + 1
  if (control && exerciseLayer >= last) return 0 // European: nothing but the GK part
  // Sub-steps: A is step `split` (ends at t1), B is step `split + 1`.
  const subStepB = split < 0 ? -1 : split + 1

  // Up-probability and log shift of each sub-step.
  const side = p >= 0.5 ? 1 : -1
  const qA = 0.5 + side * Math.sqrt(Math.max(0, 0.25 - p * (1 - p) * frac))
  const qB = 0.5 + side * Math.sqrt(Math.max(0, 0.25 - p * (1 - p) * (1 - frac)))
  const shiftA = split < 0 ? 0 : (rd - rf) * frac * dt - Math.log(qA * u + (1 - qA) * d)
  const shiftB = split < 0 ? 0 : (rd - rf) * (1 - frac) * dt - Math.log(qB * u + (1 - qB) * d)

  // Node k counts from the in-the-money edge (bottom for a put, top for a call): the exercise region is then a
  // prefix of the layer, and `v[k] = a·v[k] + b·v[k+1]` updates in place in increasing k.
  const put = omega < 0
  const toEdge = put ? d : u // node 0 of layer i is spot·e^{shift_i}·toEdge^i
  const ratio = put ? u * u : d * d // from node k to k+1
  const weights = (q: number, length: number): readonly [number, number] => {
    const df = Math.exp(-rd * length)
    return put ? [df * (1 - q), df * q] : [df * q, df * (1 - q)]
  }
  const [a, b] = weights(p, dt)
  const [aA, bA] = weights(qA, frac * dt)
  const [aB, bB] = weights(qB, (1 - frac) * dt)
  // With r_f ≥ 0, (value − intrinsic) is monotone along a layer (|delta| ≤ e^{-r_f t}), so the exercise check can
  // stop at the first node that continues.
  const prefix = rf >= 0

  if (values.length < last + 2) values = new Float64Array(2 * (last + 2))
  const v = values
  // Node 0 of a layer from that of the next: undo one step's move to the edge and its shift.
  const backRegular = 1 / (toEdge * Math.exp(drift))
  const backA = 1 / (toEdge * Math.exp(shiftA))
  const backB = 1 / (toEdge * Math.exp(shiftB))
  const regularSteps = split < 0 ? n : n - 1
  let base = spot * Math.exp(shiftA + shiftB + drift * regularSteps + (put ? -h : h) * last)

  let top = last
  let zeroFrom: number // the layer's nodes from here on are all exactly 0 (see `zeroTail`)
  if (smooth) {
    top = last - 1
    // Step `top` is never A (t1 < T keeps `split ≤ n − 1`), it is B or regular.
    const isB = top === subStepB
    base *= isB ? backB : backRegular
    const tau = isB ? (1 - frac) * dt : dt
    europeanLayer(v, top, base, ratio, input, tau, top >= exerciseLayer ? "exercise" : "value")
    if (control && top === exerciseLayer) europeanLayer(v, top, base, ratio, input, tau, "subtract")
  } else {
    let s = base
    for (let k = 0; k <= last; k++) {
      const x = omega * (s - strike)
      v[k] = Math.max(x, 0)
      s *= ratio
    }
  }
  zeroFrom = zeroTail(v, top)
  let edgeIndex = -1
  let edgeRatio = 1

  for (let i = top - 1; i >= 0; i--) {
    let wa = a
    let wb = b
    let back = backRegular
    if (i === split) {
      wa = aA
      wb = bA
      back = backA
    } else if (i === subStepB) {
      wa = aB
      wb = bB
      back = backB
    }
    base *= back
    // Beyond `zeroFrom` both successors are 0, so a node is 0, as the array already holds, unless exercising it
    // pays: moneyness falls along a layer, so the first skipped node tells. (A layer can sit in the money there
    // when the forward drift moves it more than a node's spacing per step, as at vols under ~1 %.)
    if (i >= exerciseLayer && zeroFrom <= i) {
      // `ratio ** zeroFrom` only when `zeroFrom` moved: it rarely does, and a power costs dozens of nodes
      if (edgeIndex !== zeroFrom) {
        edgeIndex = zeroFrom
        edgeRatio = ratio ** zeroFrom
      }
      if (omega * (base * edgeRatio - strike) > -1e-9 * strike) zeroFrom = i + 1
    }
    const end = Math.min(i, zeroFrom - 1)
    let k = 0
    if (i >= exerciseLayer) {
      let s = base
      for (; k <= end; k++) {
        const cont = wa * v[k]! + wb * v[k + 1]!
        const x = omega * (s - strike)
        if (x > cont) v[k] = x
        else {
          v[k] = cont
          if (prefix) {
            k++
            break
          }
        }
        s *= ratio
      }
    }
    // the continuation, each successor read once (the upper one is the next node's lower), two nodes a turn
    let upper = v[k]!
    for (; k < end; k += 2) {
      const lower = upper
      const middle = v[k + 1]!
      upper = v[k + 2]!
      v[k] = wa * lower + wb * middle
      v[k + 1] = wa * middle + wb * upper
    }
    if (k === end) v[k] = wa * upper + wb * v[k + 1]!
    if (control && i === exerciseLayer) {
      const t = split < 0 ? i * dt : t1
      europeanLayer(v, i, base, ratio, input, years - t, "subtract")
      zeroFrom = zeroTail(v, i)
    }
  }
  return v[0]!
}

/**
 * The first node of layer `layer` from which every node is exactly 0: out of the money far enough that the
 * closed form (or the payoff) is 0. Rolling back, a node whose two successors are 0 is 0 again, so that tail
 * (about half of every layer near the money) is never computed: the same values, bit for bit, for less work.
 */
const zeroTail = (v: Float64Array, layer: number): number => {
  let k = layer
  while (k >= 0 && v[k] === 0) k--
  return k + 1
}

/**
 * Broadie–Detemple BBSR: the smoothed lattice at N and M = ⌊N/2⌋ steps, Richardson-extrapolated for an error
 * ∝ 1/N: `(N·V(N) − M·V(M)) / (N − M)`, i.e. `2·V(N) − V(N/2)` for even N.
 *
 * `control` (for windows, t1 > 0): at t1 the value splits into its European part GK(t1, t2) and the rest. The
 * European part is rolled back to 0 exactly (its expectation is GK(0, t2)), the rest on the lattice. When
 * t2 − t1 is shorter than a step, GK(t1, t2) is kinked on a scale finer than the lattice, and rolling it back on
 * the tree oscillates by ≈1 bp at 2 steps/day; the control removes that. As t1 → 0 the rolled-back part
 * vanishes, so values stay continuous into the American case, which runs without it.
 */
export const bbsr = (input: LatticeInput, steps: number, control: boolean): number => {
  const n = Math.max(1, Math.floor(steps))
  const m = Math.floor(n / 2)
  const exact = control
    ? garmanKohlhagen(
        input.omega,
        input.spot,
        input.strike,
        input.domesticRate,
        input.foreignRate,
        input.volatility,
        input.years
      )
    : 0
  const fine = lattice(input, n, true, control)
  if (m < 1) return exact + fine
  return exact + (n * fine - m * lattice(input, m, true, control)) / (n - m)
}
