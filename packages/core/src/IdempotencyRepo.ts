/**
 * Persistence port for `Idempotency-Key`s: the first response to a key is kept (24 h) and
 * replayed; a key is claimed atomically so two concurrent requests cannot both run. A claim
 * without a response lasts a short lease, so a key held by a process that died is free again soon.
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
  /**
   * Claims `key` for a request with `fingerprint` until `expiresAt`, unless it is held or completed
   * (and not expired at `now`).
   */
  readonly claim: (
    scope: PartnerScope,
    key: string,
    fingerprint: string,
    now: DateTime.Utc,
    expiresAt: DateTime.Utc
  ) => Effect.Effect<Claim, StoreError>
  /** Stores the response to replay, and keeps the key until `keepUntil`. */
  readonly complete: (
    scope: PartnerScope,
    key: string,
    response: StoredResponse,
    keepUntil: DateTime.Utc
  ) => Effect.Effect<void, StoreError>
  /** Frees a claimed key whose request failed without a response worth replaying. */
  readonly release: (scope: PartnerScope, key: string) => Effect.Effect<void, StoreError>
}

export class IdempotencyRepo extends Context.Service<IdempotencyRepo, IdempotencyRepoShape>()(
  "@ratelock/core/IdempotencyRepo"
) {}
