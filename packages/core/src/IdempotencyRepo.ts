/**
 * Persistence port for `Idempotency-Key`s: the first response to a key is kept (24 h) and
 * replayed; a key is claimed atomically so two concurrent requests cannot both run.
 */
import { Context } from "effect"
import type { DateTime, Effect } from "effect"
import type { PartnerScope } from "./Partner.ts"
import type { StoreError } from "./StoreError.ts"

export interface StoredResponse {
  readonly status: number
  readonly body: string
}

export type Claim =
  /** The key was free and is now held by this request. */
  | { readonly _tag: "Claimed" }
  /** Another request holds the key and has not finished. */
  | { readonly _tag: "InFlight"; readonly fingerprint: string }
  | { readonly _tag: "Completed"; readonly fingerprint: string; readonly response: StoredResponse }

export interface IdempotencyRepoShape {
  /** Claims `key` for a request with `fingerprint`, unless it is held or completed (and not expired at `now`). */
  readonly claim: (
    scope: PartnerScope,
    key: string,
    fingerprint: string,
    now: DateTime.Utc,
    expiresAt: DateTime.Utc
  ) => Effect.Effect<Claim, StoreError>
  readonly complete: (scope: PartnerScope, key: string, response: StoredResponse) => Effect.Effect<void, StoreError>
  /** Frees a claimed key whose request failed without a response worth replaying. */
  readonly release: (scope: PartnerScope, key: string) => Effect.Effect<void, StoreError>
}

export class IdempotencyRepo extends Context.Service<IdempotencyRepo, IdempotencyRepoShape>()(
  "@ratelock/core/IdempotencyRepo"
) {}
