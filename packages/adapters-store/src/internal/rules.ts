/**
 * What both stores, SQL and memory, do with ledger entries that do not balance (core's
 * `Ledger.imbalance`): refuse to write them, as the caller's bug.
 */
import { Ledger, type Money } from "@ratelock/core"
import { Effect } from "effect"

/** Dies (the caller's bug, nothing written) unless the entries of `owner` balance per currency. */
export const requireBalanced = (
  entries: ReadonlyArray<{ readonly currency: string; readonly amount: Money.Decimal }>,
  owner: string
): Effect.Effect<void> => {
  const unbalanced = Ledger.imbalance(entries)
  return unbalanced === undefined
    ? Effect.void
    : Effect.die(new Error(`ledger entries of ${owner} do not balance: ${unbalanced.currency} ${unbalanced.total}`))
}
