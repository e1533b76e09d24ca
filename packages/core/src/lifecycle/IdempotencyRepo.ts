/**
 * Persistence port for `Idempotency-Key`s: the first response to a key is kept (24 h) and
 * replayed; a key is claimed atomically so two concurrent requests cannot both run. A claim
 * without a response lasts a short lease, so a key held by a process that died is free again soon.
 */
import { Context, Schema } from "effect"
import type { DateTime, Effect } from "effect"
import type { PartnerScope } from "../terms/Partner.ts"
import type { StoreError } from "../kernel/StoreError.ts"

export const StoredResponse = Schema.Struct({ status: Schema.Int, body: Schema.String })
export type StoredResponse = typeof StoredResponse.Type

/** The key was free and is now held by this request. */
export const Claimed = Schema.TaggedStruct("Claimed", {})
export type Claimed = typeof Claimed.Type

/** Another request holds the key and has not finished. */
export const InFlight = Schema.TaggedStruct("InFlight", { fingerprint: Schema.String })
export type InFlight = typeof InFlight.Type

/** The request that held the key finished: its response is replayed. */
export const Completed = Schema.TaggedStruct("Completed", { fingerprint: Schema.String, response: StoredResponse })
export type Completed = typeof Completed.Type

export const Claim = Schema.Union([Claimed, InFlight, Completed])
export type Claim = typeof Claim.Type

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

/** What a claim of an idempotency key another request holds answers: in flight until its response is stored. */
export const heldClaim = (fingerprint: string, response: StoredResponse | null): InFlight | Completed =>
  response === null ? { _tag: "InFlight", fingerprint } : { _tag: "Completed", fingerprint, response }
