/**
 * What the hot wallet's signed jobs (payouts, movements) keep alike: the versions signed for the
 * chain, the nonce they share, the attempts and their times. The same columns in `payouts` and
 * `movements`, the same fields in `PayoutRecord` and `Movement`, named and mapped once for both
 * row modules.
 */
import type { DateTime } from "effect"
import { Schema } from "effect"
import { Int8, int8OrNull, intOrNull, Timestamp, timestamp, utc } from "./columns.ts"

/** The columns (spread into both row schemas through `.fields`). */
export const SignedJobColumns = Schema.Struct({
  prepared: Schema.NullOr(Schema.String),
  transaction_hash: Schema.NullOr(Schema.String),
  nonce: Schema.NullOr(Int8),
  replacements: Schema.Int,
  block_number: Schema.NullOr(Int8),
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp
})

/** The fields, as both records type them. */
interface SignedJob {
  readonly prepared: string | null
  readonly transactionHash: string | null
  readonly nonce: number | null
  readonly replacements: number
  readonly blockNumber: number | null
  readonly attempts: number
  readonly lastError: string | null
  readonly nextAttemptAt: DateTime.Utc
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

/** The columns the job is written as. */
export const signedJobRow = (j: SignedJob): typeof SignedJobColumns.Type => ({
  prepared: j.prepared,
  transaction_hash: j.transactionHash,
  nonce: int8OrNull(j.nonce),
  replacements: j.replacements,
  block_number: int8OrNull(j.blockNumber),
  attempts: j.attempts,
  last_error: j.lastError,
  next_attempt_at: timestamp(j.nextAttemptAt),
  created_at: timestamp(j.createdAt),
  updated_at: timestamp(j.updatedAt)
})

/** The job's fields a row holds. */
export const signedJobOf = (r: typeof SignedJobColumns.Type): SignedJob => ({
  prepared: r.prepared,
  transactionHash: r.transaction_hash,
  nonce: intOrNull(r.nonce),
  replacements: r.replacements,
  blockNumber: intOrNull(r.block_number),
  attempts: r.attempts,
  lastError: r.last_error,
  nextAttemptAt: utc(r.next_attempt_at),
  createdAt: utc(r.created_at),
  updatedAt: utc(r.updated_at)
})
