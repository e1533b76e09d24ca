/**
 * Leased claims of worker jobs: a claim takes due rows that nobody holds (or whose lease expired),
 * oldest first by `(created_at, id)`, and leases them to the owner until `now + leaseFor`, like
 * `FOR UPDATE SKIP LOCKED`. Because it runs in one atomic step, no job goes to two claimers.
 */
import { Duration, HashMap } from "effect"
import type { Lease as CoreLease } from "@ratelock/core"
import { type Key, oldestFirst, self } from "./keyset.ts"

export interface Lease {
  readonly owner: string
  /** Epoch milliseconds: the lease is over from then on. */
  readonly until: number
}

/** A worker job row with the lease it is held under, if any. */
export interface Leased<A> {
  readonly row: A
  readonly lease: Lease | null
}

export const unleased = <A>(row: A): Leased<A> => ({ row, lease: null })

export const isFree = (lease: Lease | null, claim: CoreLease.Claim): boolean =>
  lease === null || lease.until <= claim.now.epochMilliseconds

/**
 * Takes up to `claim.limit` free rows that are `due`, oldest first, and leases them to the owner.
 * Returns the rows taken and the table with their leases.
 */
export const take = <A extends Key>(
  table: HashMap.HashMap<string, Leased<A>>,
  claim: CoreLease.Claim,
  due: (row: A) => boolean
): readonly [Array<A>, HashMap.HashMap<string, Leased<A>>] => {
  const free = Array.from(HashMap.values(table))
    .filter((job) => isFree(job.lease, claim) && due(job.row))
    .map((job) => job.row)
  const taken = oldestFirst(free, self, { limit: claim.limit })
  const lease: Lease = {
    owner: claim.owner,
    until: claim.now.epochMilliseconds + Duration.toMillis(claim.leaseFor)
  }
  const leased = HashMap.mutate(table, (m) => {
    for (const row of taken) HashMap.set(m, row.id, { row, lease })
  })
  return [taken, leased]
}

/** `at` is at or before the claim's `now`. */
export const dueAt = (at: { readonly epochMilliseconds: number }, claim: CoreLease.Claim): boolean =>
  at.epochMilliseconds <= claim.now.epochMilliseconds

/** `at` is strictly before the claim's `now`. */
export const passedAt = (at: { readonly epochMilliseconds: number }, claim: CoreLease.Claim): boolean =>
  at.epochMilliseconds < claim.now.epochMilliseconds
