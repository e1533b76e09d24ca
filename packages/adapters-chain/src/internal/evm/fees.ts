/**
 * What a transaction pays: what the chain asks now (2 × the head's base fee + the node's tip), the
 * operator's cap, and the fees of a version replacing another (each at least 12.5 % more). Exact
 * integer wei throughout.
 */
import { formatGwei } from "viem"

/** When and how far a version's fee is raised. */
export interface FeePolicy {
  /** A version not mined this long after it was signed (and priced below what the chain asks) is replaced. */
  readonly replaceAfterMillis: number
  /** The operator's cap on `maxFeePerGas`, in wei: no version pays more. */
  readonly maxFeePerGas: bigint
  /** The name of the cap's setting, for messages. */
  readonly capSetting: string
}

export interface Fees {
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
}

/** `x` raised by 12.5 %, rounded up, in exact integer arithmetic. */
export const raised = (x: bigint): bigint => (x * 9n + 7n) / 8n

export const maxOf = (a: bigint, b: bigint) => (a > b ? a : b)
export const minOf = (a: bigint, b: bigint) => (a < b ? a : b)

/** What a transaction signed now would pay: twice the head's base fee (six full blocks of rises) plus the tip. */
export interface Asks {
  readonly baseFee: bigint
  readonly tip: bigint
  readonly maxFeePerGas: bigint
}

export const asksOf = (baseFee: bigint, tip: bigint): Asks => ({ baseFee, tip, maxFeePerGas: baseFee * 2n + tip })

/** The fees of a first version: what the chain asks, but never above the cap (above it, the version waits for fees to fall). */
export const firstFees = (asks: Asks, cap: bigint): Fees => {
  const maxFeePerGas = minOf(asks.maxFeePerGas, cap)
  return { maxFeePerGas, maxPriorityFeePerGas: minOf(asks.tip, maxFeePerGas) }
}

/**
 * The fees of a version replacing one signed with `previous`: each at least 12.5 % more (what
 * nodes require of a replacement, with room) and at least what the chain asks; the max fee
 * clamped to the cap. `null` when the cap leaves no room for a valid replacement.
 */
export const replacementFees = (previous: Fees, asks: Asks, cap: bigint): Fees | null => {
  const tip = maxOf(raised(previous.maxPriorityFeePerGas), asks.tip)
  const wanted = maxOf(raised(previous.maxFeePerGas), asks.baseFee * 2n + tip)
  const maxFeePerGas = minOf(wanted, cap)
  if (maxFeePerGas < raised(previous.maxFeePerGas)) return null
  // the max fee is at least 12.5 % above the old one, itself at least the old tip: the tip keeps its raise
  return { maxFeePerGas, maxPriorityFeePerGas: minOf(tip, maxFeePerGas) }
}

/** Generous: only the gas used is paid, and a transfer must not run out of gas if the state moves. */
export const gasLimitOf = (estimate: bigint): bigint => (estimate * 3n) / 2n

export const gwei = (wei: bigint) => formatGwei(wei)
