/**
 * Exactly rounded float64 sums (Shewchuk's partials, as Python's `math.fsum`): the sum of any set of numbers,
 * whatever the order they are added in, is the float nearest the exact sum. The book's figures add up per-lock
 * model values in whatever order the store lists the locks, or threads return their slices, and must not
 * depend on it. A sum is plain data (an array of non-overlapping partials, increasing in magnitude, whose exact
 * total is the sum so far), so it crosses between threads as it is.
 */
export type ExactSum = Array<number>

export const make = (): ExactSum => []

export const add = (partials: ExactSum, value: number): void => {
  let x = value
  let i = 0
  // indexed, not `for…of`: this runs for every figure of every lock, and the iterator allocates
  const n = partials.length
  for (let j = 0; j < n; j++) {
    const p = partials[j]!
    let y = p
    if (Math.abs(x) < Math.abs(y)) {
      y = x
      x = p
    }
    const hi = x + y
    const lo = y - (hi - x)
    if (lo !== 0) partials[i++] = lo
    x = hi
  }
  partials.length = i
  partials.push(x)
}

/** Adds every partial of `from` to `into`: the exact sum of both. */
export const merge = (into: ExactSum, from: ExactSum): void => {
  for (const p of from) add(into, p)
}

/** The float nearest the exact sum (ties to even, as `fsum` rounds). */
export const value = (partials: ExactSum): number => {
  let n = partials.length
  if (n === 0) return 0
  let hi = partials[--n]!
  let lo = 0
  while (n > 0) {
    const x = hi
    const y = partials[--n]!
    hi = x + y
    lo = y - (hi - x)
    if (lo !== 0) break
  }
  // a remainder of exactly half an ulp with a further partial of the same sign rounds the other way
  if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
    const y = lo * 2
    const x = hi + y
    if (y === x - hi) hi = x
  }
  return hi
}

/** The exactly rounded sum of `values`. */
export const of = (...values: ReadonlyArray<number>): number => {
  const s = make()
  for (const v of values) add(s, v)
  return value(s)
}
