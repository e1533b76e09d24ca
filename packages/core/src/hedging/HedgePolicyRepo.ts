/**
 * Persistence port for hedge policies, one per environment and market pair, and the pair's lease:
 * a hedging pass claims the pairs it works on (as the other passes claim their jobs, `Lease.ts`),
 * so one decision per pair is made at a time and two workers never hedge the same delta.
 */
import { Context } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { HedgePolicy } from "./HedgePolicy.ts"
import type { Claim } from "../kernel/Lease.ts"
import type { Environment } from "../terms/Partner.ts"
import type { StoreError } from "../kernel/StoreError.ts"

/** Who holds a pair, and until when: with the owner, the lease's end tells one claim from the next. */
export interface PairLease {
  readonly owner: string
  readonly until: DateTime.Utc
}

export interface ClaimedPolicy {
  readonly policy: HedgePolicy
  readonly lease: PairLease
}

export interface HedgePolicyRepoShape {
  /** Creates or replaces the policy of its (environment, pair); a lease on the pair stays as it is. */
  readonly upsert: (policy: HedgePolicy) => Effect.Effect<void, StoreError>
  readonly find: (environment: Environment, pair: string) => Effect.Effect<Option.Option<HedgePolicy>, StoreError>
  /** Every policy (of one environment, when given), by environment then pair. */
  readonly list: (environment?: Environment) => Effect.Effect<ReadonlyArray<HedgePolicy>, StoreError>
  /**
   * Claims up to `claim.limit` pairs nobody holds (or whose lease ended), by environment then pair,
   * leased to `claim.owner` until `claim.now + claim.leaseFor`. Concurrent claims never take one
   * pair twice.
   */
  readonly claim: (claim: Claim) => Effect.Effect<ReadonlyArray<ClaimedPolicy>, StoreError>
  /** Lets the pair go, if `lease` still holds it (a later claim's lease stays). */
  readonly release: (environment: Environment, pair: string, lease: PairLease) => Effect.Effect<void, StoreError>
}

export class HedgePolicyRepo extends Context.Service<HedgePolicyRepo, HedgePolicyRepoShape>()(
  "@ratelock/core/HedgePolicyRepo"
) {}
