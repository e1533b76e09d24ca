/**
 * A stored secret's hash and its revocation (the first one stands), as API keys and operator
 * tokens keep them: the same columns in `api_keys` and `operator_tokens` and the same fields in
 * both records, named and mapped once for both row modules.
 */
import { type DateTime, Schema } from "effect"
import { Timestamp, timestamp, timestampOrNull, utc, utcOrNull } from "./columns.ts"

/** The columns (spread into both row schemas through `.fields`). */
export const RevocableColumns = Schema.Struct({
  secret_hash: Schema.String,
  created_at: Timestamp,
  revoked_at: Schema.NullOr(Timestamp)
})

/** The fields, as both records type them. */
interface Revocable {
  readonly secretHash: string
  readonly createdAt: DateTime.Utc
  readonly revokedAt: DateTime.Utc | null
}

/** The columns a secret's hash and its revocation are written as. */
export const revocableRow = (s: Revocable): typeof RevocableColumns.Type => ({
  secret_hash: s.secretHash,
  created_at: timestamp(s.createdAt),
  revoked_at: timestampOrNull(s.revokedAt)
})

/** The hash and revocation a row holds. */
export const revocableOf = (r: typeof RevocableColumns.Type): Revocable => ({
  secretHash: r.secret_hash,
  createdAt: utc(r.created_at),
  revokedAt: utcOrNull(r.revoked_at)
})
