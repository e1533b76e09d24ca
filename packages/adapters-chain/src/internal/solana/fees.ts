/**
 * Priority fees for payouts: the compute-unit limit a payout asks for (the node's simulation with a
 * margin), the compute-unit price it pays (a percentile of the node's recent prioritization fees,
 * capped), the price of a re-signed version (higher than the last one, still capped), and what a
 * transaction with them costs in lamports.
 *
 * A price is in micro-lamports per compute unit; the priority fee is `price × limit / 10^6`
 * lamports rounded up, charged on top of the 5,000 lamports per signature whether the transaction
 * uses its whole limit or not.
 */
import { ComputeBudgetProgram, type PublicKey, type VersionedMessage } from "@solana/web3.js"

/** The percentile of recent per-slot fees a payout pays by default: above most, not the very top. */
export const defaultPercentile = 75

/**
 * The default cap on the price, in micro-lamports per compute unit. A payout asks for about 10,000
 * to 45,000 units, so at the cap its priority fee is about 0.00001 to 0.00005 SOL (0.0002 SOL with
 * the fallback limit): well above what the chain asks outside of its busiest minutes, and small
 * next to any payout.
 */
export const defaultMaxPrice = 1_000_000

/** The base fee, per signature (a payout has one). */
export const baseFee = 5000n

/** The runtime's ceiling on a transaction's compute units. */
export const maxUnitLimit = 1_400_000

/** The limit when the node's simulation reports no units consumed (some nodes leave it out). */
export const fallbackUnitLimit = 200_000

/**
 * Units added to the limit when the destination's token account exists at signing: its owner may
 * close it before the payout lands, and then the payout creates it again, which costs about 9,000
 * units more on litesvm (the limit must cover it, or the payout fails and still pays its fee).
 */
export const accountCreationUnits = 25_000

/** The compute-budget program's id (its instructions are decoded from signed payouts). */
export const programId: PublicKey = ComputeBudgetProgram.programId

/** The `percentile` (0–100, nearest rank) of `fees`; 0 when there are none. */
export const percentile = (fees: ReadonlyArray<number>, percentile: number): number => {
  if (fees.length === 0) return 0
  const sorted = [...fees].sort((a, b) => a - b)
  const rank = Math.ceil((percentile / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(rank, 1)) - 1]!
}

/** The price of a payout's first version: what the chain asks, capped. */
export const firstPrice = (asked: number, cap: number): number => Math.min(asked, cap)

/**
 * The price of a version signed after `previous` expired: at least 12.5 % more (and at least one
 * micro-lamport more, from 0), at least what the chain asks now, capped. At the cap it stays at the
 * cap: an expired payout must be signed again to land at all.
 */
export const nextPrice = (previous: number, asked: number, cap: number): number => {
  const raised = Number((BigInt(previous) * 9n + 7n) / 8n)
  return Math.min(cap, Math.max(asked, raised, previous + 1))
}

/** The limit for a transaction whose simulation consumed `units` (undefined: not reported). */
export const unitLimit = (units: number | undefined, destinationExists: boolean): number => {
  if (units === undefined || units <= 0) return fallbackUnitLimit
  const margin = Math.ceil((units * 6) / 5)
  return Math.min(maxUnitLimit, margin + (destinationExists ? accountCreationUnits : 0))
}

/** The priority fee in lamports: `price × limit / 10^6`, rounded up. */
export const priorityFee = (price: number, limit: number): bigint =>
  (BigInt(price) * BigInt(limit) + 999_999n) / 1_000_000n

/** The compute-budget instructions a payout starts with. */
export const instructions = (price: number, limit: number) => [
  ComputeBudgetProgram.setComputeUnitLimit({ units: limit }),
  ComputeBudgetProgram.setComputeUnitPrice({ microLamports: price })
]

/** The compute budget a signed message sets (null where it sets none). */
export const decode = (message: VersionedMessage): { readonly price: number | null; readonly limit: number | null } => {
  let price: number | null = null
  let limit: number | null = null
  for (const instruction of message.compiledInstructions) {
    if (!message.staticAccountKeys[instruction.programIdIndex]?.equals(programId)) continue
    const data = instruction.data
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
    if (data[0] === 2 && data.length === 5) limit = view.getUint32(1, true)
    if (data[0] === 3 && data.length === 9) price = Number(view.getBigUint64(1, true))
  }
  return { price, limit }
}
