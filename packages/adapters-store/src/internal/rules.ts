/**
 * What both stores, SQL and memory, refuse as the caller's bug: ledger entries that do not
 * balance (core's `Ledger.imbalance`; a treasury booking's, per source), and a nonce account no
 * nonce can be handed out from; and what both read of a job the hot wallet signs and how they
 * name what holds a hot wallet's nonce.
 */
import { type ChainGateway, Ledger, type Money, type Partner, type Rail } from "@ratelock/core"
import { type DateTime, Effect } from "effect"

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

/** Dies (nothing written) unless the entries of each source balance per currency: each source is a booking. */
export const requireBalancedBookings = (
  entries: ReadonlyArray<{ readonly source: string; readonly currency: string; readonly amount: Money.Decimal }>
): Effect.Effect<void> => {
  const bySource = new Map<string, Array<(typeof entries)[number]>>()
  for (const e of entries) bySource.set(e.source, [...(bySource.get(e.source) ?? []), e])
  return Effect.forEach(bySource, ([source, booked]) => requireBalanced(booked, `treasury booking ${source}`), {
    discard: true
  })
}

/**
 * Dies (nothing signed, nothing written) unless the account's floor is a nonce (a non-negative
 * safe integer) and its signer a lowercase address: one wallet spelled two ways would be two
 * accounts, handing out each nonce twice.
 */
export const requireNonceAccount = (account: ChainGateway.NonceAccount): Effect.Effect<void> =>
  !Number.isSafeInteger(account.floor) || account.floor < 0
    ? Effect.die(new Error(`nonce floor ${account.floor} of ${account.signer} is not a non-negative integer`))
    : account.signer === "" || account.signer !== account.signer.toLowerCase()
      ? Effect.die(new Error(`nonce account signer ${account.signer} is not a lowercase address`))
      : Effect.void

/**
 * What the stores read of a job the hot wallets sign (a payout, a movement): its key, its wallet's
 * rail and currency, its nonce, and what a compare-and-set expects of it.
 */
export interface SignedJob {
  readonly id: string
  readonly environment: Partner.Environment
  readonly chain: Rail.Chain
  readonly currency: string
  readonly amount: Money.Decimal
  readonly status: string
  readonly nonce: number | null
  readonly updatedAt: DateTime.Utc
}

/** What a compare-and-set write expects to find. */
export type Expected<J extends SignedJob> = Pick<J, "status" | "updatedAt">

/** A rail and currency whose signed jobs' amounts are summed (`committed`). */
export interface CommittedRail {
  readonly environment: Partner.Environment
  readonly chain: Rail.Chain
  readonly currency: string
}

/** What holds a hot wallet's nonce: a payout or a movement (a sweep's gas top-up, a refund). */
export type NonceHolder = "payout" | "movement"

/** How a nonce's holder is named (`hot_wallet_nonces.holder`): `payout:<id>`, `movement:<id>`. */
export const nonceHolder = (holder: NonceHolder, id: string): string => `${holder}:${id}`
