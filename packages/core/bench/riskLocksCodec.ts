/**
 * How `pnpm bench:risk` sends a worker its share of the open locks: in columns, not as objects. Structured
 * cloning 50,000 `LockTerms` objects took about half a second between the threads (most of it in the worker,
 * before it could start); a few typed arrays move without a copy. The ids stay behind: a slice's sums never
 * name a lock.
 */
import { type Direction, directions, marketPair, marketPairKey } from "../src/kernel/Corridor.ts"
import type { Environment } from "../src/terms/Partner.ts"
import type { LockTerms } from "../src/risk/internal/RiskBook.ts"

export interface EncodedLocks {
  /** Per lock: `N_b`, strike, window start and end (epoch ms). */
  readonly numbers: Float64Array
  /** Per lock: its environment, direction and partner, as indices into `strings`. */
  readonly names: Uint32Array
  readonly strings: ReadonlyArray<string>
}

export const encode = (locks: ReadonlyArray<LockTerms>): EncodedLocks => {
  const numbers = new Float64Array(4 * locks.length)
  const names = new Uint32Array(3 * locks.length)
  const strings: Array<string> = []
  const index = new Map<string, number>()
  const indexOf = (s: string) => {
    let i = index.get(s)
    if (i === undefined) {
      i = strings.push(s) - 1
      index.set(s, i)
    }
    return i
  }
  locks.forEach((lock, i) => {
    numbers[4 * i] = lock.notionalBase
    numbers[4 * i + 1] = lock.strike
    numbers[4 * i + 2] = lock.windowStart
    numbers[4 * i + 3] = lock.windowEnd
    names[3 * i] = indexOf(lock.environment)
    names[3 * i + 1] = indexOf(lock.direction)
    names[3 * i + 2] = indexOf(lock.partnerId)
  })
  return { numbers, names, strings }
}

/** The buffers to transfer with the message. */
export const transferables = (encoded: EncodedLocks): Array<ArrayBuffer> => [
  encoded.numbers.buffer as ArrayBuffer,
  encoded.names.buffer as ArrayBuffer
]

export const decode = (encoded: EncodedLocks): ReadonlyArray<LockTerms> => {
  const { numbers, names, strings } = encoded
  // each string's direction terms once: the pair and whether the direction is its inverse
  const pairs = strings.map((s) => {
    const direction = s as Direction
    return (directions as ReadonlyArray<string>).includes(s)
      ? { pair: marketPairKey(direction), inverted: marketPair(direction).inverted }
      : undefined
  })
  const locks = new Array<LockTerms>(names.length / 3)
  for (let i = 0; i < locks.length; i++) {
    const d = names[3 * i + 1]!
    const { pair, inverted } = pairs[d]!
    locks[i] = {
      id: "",
      environment: strings[names[3 * i]!] as Environment,
      direction: strings[d] as Direction,
      partnerId: strings[names[3 * i + 2]!]!,
      pair,
      inverted,
      notionalBase: numbers[4 * i]!,
      strike: numbers[4 * i + 1]!,
      windowStart: numbers[4 * i + 2]!,
      windowEnd: numbers[4 * i + 3]!
    }
  }
  return locks
}
