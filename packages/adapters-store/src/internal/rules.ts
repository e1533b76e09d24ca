/**
 * Pure rules both stores keep, SQL and memory, so each is written once. They are about core's
 * records, not about storage: their place is core, beside `Ledger` and `IdempotencyRepo`, which
 * this package cannot change on its own.
 */
import { type IdempotencyRepo, Ledger, Money } from "@ratelock/core"
import { Effect } from "effect"

/**
 * The first currency whose entries do not sum to zero, with its sum: ledger entries a commit or a
 * fill writes must balance per currency, and a store dies (writing nothing) when they do not.
 */
export const imbalance = <C extends string>(
  entries: ReadonlyArray<{ readonly currency: C; readonly amount: Money.Decimal }>
): { readonly currency: C; readonly total: string } | undefined => {
  for (const [currency, total] of Ledger.balances(entries)) {
    if (!Money.isZero(total)) return { currency, total: Money.format(total) }
  }
  return undefined
}

/** Dies (the caller's bug, nothing written) unless the entries of `owner` balance per currency. */
export const requireBalanced = (
  entries: ReadonlyArray<{ readonly currency: string; readonly amount: Money.Decimal }>,
  owner: string
): Effect.Effect<void> => {
  const unbalanced = imbalance(entries)
  return unbalanced === undefined
    ? Effect.void
    : Effect.die(new Error(`ledger entries of ${owner} do not balance: ${unbalanced.currency} ${unbalanced.total}`))
}

/** What a claim of an idempotency key another request holds answers: in flight until its response is stored. */
export const heldClaim = (
  fingerprint: string,
  response: IdempotencyRepo.StoredResponse | null
): IdempotencyRepo.InFlight | IdempotencyRepo.Completed =>
  response === null ? { _tag: "InFlight", fingerprint } : { _tag: "Completed", fingerprint, response }
