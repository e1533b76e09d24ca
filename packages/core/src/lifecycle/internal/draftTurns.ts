/** The order due payouts are drafted in: one rail's production payouts one after another. */
import type { PayoutRecord } from "../PayoutRepo.ts"

/**
 * Whether a payout is paid from a hot wallet that can run short: a production chain's. The
 * sandbox settles on the simulated chain, which pays from no wallet (the host routes every sandbox
 * rail there), so its payouts owe nothing to one another and need not take turns.
 */
export const paysFromWallet = (payout: PayoutRecord): boolean => payout.environment === "production"

/**
 * The due payouts in turns worked one after another: the pending ones of a production rail
 * (environment, chain, currency) share a turn, each alone otherwise. A draft reads what the rail's payouts
 * already signed have committed; two drafts of one rail at once would both miss the other and
 * could both be signed against one balance. Everything else runs at the pass's concurrency.
 */
export const draftTurns = (due: ReadonlyArray<PayoutRecord>): ReadonlyArray<ReadonlyArray<PayoutRecord>> => {
  const byRail = new Map<string, Array<PayoutRecord>>()
  const turns: Array<Array<PayoutRecord>> = []
  for (const payout of due) {
    if (payout.status !== "pending" || !paysFromWallet(payout)) {
      turns.push([payout])
      continue
    }
    const key = `${payout.environment}|${payout.chain}|${payout.currency}`
    const turn = byRail.get(key)
    if (turn === undefined) {
      const first = [payout]
      byRail.set(key, first)
      turns.push(first)
    } else turn.push(payout)
  }
  return turns
}
