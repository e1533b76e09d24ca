/**
 * The simulation's random numbers: xoshiro128** (Blackman–Vigna 2018) seeded through splitmix32, and standard
 * normals by Marsaglia's polar method.
 *
 * Why these: xoshiro128** is small, fast and well tested (BigCrush), and runs on 32-bit integer operations only
 * (`Math.imul`, shifts), so its stream is the same on every machine and every JavaScript engine. The polar
 * method needs one `Math.log` and one `Math.sqrt` per two normals and no trigonometry (Box–Muller needs `cos` and
 * `sin` as well): `sqrt` is correctly rounded by IEEE 754, and V8 computes `log` (and the paths' `exp`) with its
 * own port of fdlibm, not the platform's libm, so the figures are bit for bit the same on any machine running
 * the same Node. Uniforms take 53 bits from two draws, so none is exactly 0 or 1 after the offset.
 */

/** A seeded stream: mutable state in a typed array, nothing allocated per draw. */
export interface Random {
  readonly state: Uint32Array
  /** The polar method's second normal, kept for the next call. */
  spare: number
  hasSpare: boolean
}

const splitmix32 = (seed: number) => {
  let z = (seed + 0x9e3779b9) | 0
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return (z ^ (z >>> 16)) >>> 0
}

/** A stream from any integer seed (its low 32 bits and the high part are both mixed in). */
export const make = (seed: number): Random => {
  const state = new Uint32Array(4)
  let s = (seed | 0) ^ Math.floor(seed / 4_294_967_296)
  for (let i = 0; i < 4; i++) {
    s = (s + 0x9e3779b9) | 0
    state[i] = splitmix32(s)
  }
  // xoshiro's state must not be all zeros
  if ((state[0]! | state[1]! | state[2]! | state[3]!) === 0) state[0] = 1
  return { state, spare: 0, hasSpare: false }
}

const rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k))

/** The next 32-bit unsigned integer (xoshiro128**). */
export const nextUint32 = (r: Random): number => {
  const s = r.state
  const s0 = s[0]!
  const s1 = s[1]!
  const s2 = s[2]!
  const s3 = s[3]!
  const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0
  const t = s1 << 9
  const n2 = s2 ^ s0
  const n3 = s3 ^ s1
  s[1] = s1 ^ n2
  s[0] = s0 ^ n3
  s[2] = n2 ^ t
  s[3] = rotl(n3, 11)
  return result
}

/** A uniform in (0, 1) with 53 random bits. */
export const uniform = (r: Random): number => {
  const a = nextUint32(r) >>> 5
  const b = nextUint32(r) >>> 6
  return (a * 67_108_864 + b + 0.5) / 9_007_199_254_740_992
}

/** A uniform integer in [0, n), n ≥ 1. */
export const below = (r: Random, n: number): number => Math.min(n - 1, Math.floor(uniform(r) * n))

/** A standard normal (Marsaglia polar). */
export const normal = (r: Random): number => {
  if (r.hasSpare) {
    r.hasSpare = false
    return r.spare
  }
  let u = 0
  let v = 0
  let s = 0
  do {
    u = 2 * uniform(r) - 1
    v = 2 * uniform(r) - 1
    s = u * u + v * v
  } while (s >= 1 || s === 0)
  const m = Math.sqrt((-2 * Math.log(s)) / s)
  r.spare = v * m
  r.hasSpare = true
  return u * m
}
