/**
 * Persistence port for operator tokens: the bearer tokens of the operator API (`/metrics`,
 * `/operator/...`). A token is stored only as the SHA-256 hash of its secret, looked up by that
 * hash (32 random bytes: a fast hash is enough, and the hash is unique), and revoked, never deleted.
 */
import { Context, Schema } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { StoreError } from "../kernel/StoreError.ts"
import { OperatorRole } from "./OperatorRole.ts"

export const OperatorTokenRecord = Schema.Struct({
  id: Schema.String,
  /** What the operator called it (`demo`, `prometheus`, `alice`): names need not be unique. */
  name: Schema.String,
  /** Lowercase hex SHA-256 of the token. */
  secretHash: Schema.String,
  /** What the token may do (tokens made before roles existed are `admin`). */
  role: OperatorRole,
  createdAt: Schema.DateTimeUtc,
  /** From then on the token is refused; null: it does not expire. */
  expiresAt: Schema.NullOr(Schema.DateTimeUtc),
  revokedAt: Schema.NullOr(Schema.DateTimeUtc),
  /** When it last authenticated a request, to the minute (`OperatorTokens.authenticate`). */
  lastUsedAt: Schema.NullOr(Schema.DateTimeUtc)
}).annotate({ identifier: "OperatorTokenRecord" })
export type OperatorTokenRecord = typeof OperatorTokenRecord.Type

export interface OperatorTokenRepoShape {
  readonly insert: (token: OperatorTokenRecord) => Effect.Effect<void, StoreError>
  readonly find: (id: string) => Effect.Effect<Option.Option<OperatorTokenRecord>, StoreError>
  /** The token whose secret hashes to `secretHash`, revoked or not. */
  readonly findByHash: (secretHash: string) => Effect.Effect<Option.Option<OperatorTokenRecord>, StoreError>
  /** Every token, revoked ones included, oldest first (there are few). */
  readonly list: () => Effect.Effect<ReadonlyArray<OperatorTokenRecord>, StoreError>
  /** Revokes the token at `at` unless it is revoked already (the first revocation stands). */
  readonly revoke: (id: string, at: DateTime.Utc) => Effect.Effect<void, StoreError>
  /** Notes that the token authenticated a request at `at`. */
  readonly touch: (id: string, at: DateTime.Utc) => Effect.Effect<void, StoreError>
}

export class OperatorTokenRepo extends Context.Service<OperatorTokenRepo, OperatorTokenRepoShape>()(
  "@ratelock/core/OperatorTokenRepo"
) {}
