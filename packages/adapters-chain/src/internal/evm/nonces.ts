/**
 * Nonces for one hot wallet in one process: the next is the lowest nonce at or above the node's
 * pending count that this process has not handed out recently. With no gap that is
 * max(pending count, last handed out + 1); a transaction signed but never broadcast (its payout
 * row lost the race to another worker, or was never written) leaves a gap, which is filled again
 * once its reservation has expired, so later payouts are not stuck behind it.
 *
 * Reuse is safe from double payment: two transactions with one nonce cannot both be mined, and
 * the loser's lookup answers `Failed("nonce_consumed")`, so core prepares that payout anew.
 * Callers serialise `allocate` (one semaphore per wallet).
 */

/** How long a handed-out nonce stays reserved without the node's pending count passing it. */
export const reservationMillis = 5 * 60_000

export interface Nonces {
  /** Nonce → when it was handed out (epoch ms). */
  readonly reserved: Map<number, number>
}

export const make = (): Nonces => ({ reserved: new Map() })

export const allocate = (nonces: Nonces, pendingCount: number, now: number): number => {
  for (const [nonce, at] of nonces.reserved) {
    if (nonce < pendingCount || now - at >= reservationMillis) nonces.reserved.delete(nonce)
  }
  let next = pendingCount
  while (nonces.reserved.has(next)) next++
  nonces.reserved.set(next, now)
  return next
}
