/**
 * Exactly rounded float64 sums (Shewchuk's partials, as Python's `math.fsum`): the sum of any set of numbers,
 * whatever the order they are added in, is the float nearest the exact sum. The book's figures add up per-lock
 * model values in whatever order the store lists the locks (or the workers return them), and must not depend
 * on it.
 */
export class ExactSum {
  /** Non-overlapping partial sums, increasing in magnitude; their exact total is the sum so far. */
  private readonly partials: Array<number> = []

  add(value: number): void {
    let x = value
    let i = 0
    const partials = this.partials
    for (const p of partials) {
      let y = p
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x]
      const hi = x + y
      const lo = y - (hi - x)
      if (lo !== 0) partials[i++] = lo
      x = hi
    }
    partials.length = i
    partials.push(x)
  }

  /** Adds every partial of `other` (an exact merge of two sums). */
  addAll(other: ExactSum): void {
    for (const p of other.partials) this.add(p)
  }

  /** The float nearest the exact sum (ties to even, as `fsum` rounds). */
  value(): number {
    const partials = this.partials
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
}
