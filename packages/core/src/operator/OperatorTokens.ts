/**
 * The operator's token programs over `OperatorTokenRepo`: create a token (its secret returned
 * once, only its hash stored), list them, revoke one, and authenticate a presented token. Hosts
 * parse the operator's input and print what these return; the HTTP host authenticates every
 * operator request with `authenticate`.
 */
import { Data, DateTime, Duration, Effect, Option, Schema } from "effect"
import { Instant } from "../kernel/Fields.ts"
import * as ApiKeySecret from "../partners/ApiKeySecret.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import { OperatorRole } from "./OperatorRole.ts"
import { type OperatorTokenRecord, OperatorTokenRepo } from "./OperatorTokenRepo.ts"

/** Operator tokens start with this, so one found in a log or a paste says what it is. */
export const tokenPrefix = "rlop_"

export class OperatorTokenError extends Data.TaggedError("OperatorTokenError")<{
  readonly reason: "token_not_found" | "invalid_name" | "invalid_expiry"
  readonly message: string
}> {}

/** A token just made, as the operator API answers and `operator token create --json` prints. */
export const CreatedToken = Schema.Struct({
  token_id: Schema.String,
  name: Schema.String,
  role: OperatorRole,
  created_at: Instant,
  expires_at: Schema.NullOr(Instant),
  token: Schema.String.annotate({
    description:
      "The bearer token, in this answer only: only its hash is stored. A replay under the same Idempotency-Key answers null here"
  })
}).annotate({ identifier: "OperatorCreatedToken" })
export type CreatedToken = typeof CreatedToken.Type

/** A token as listed: never its secret (none is kept). */
export const TokenListing = Schema.Struct({
  token_id: Schema.String,
  name: Schema.String,
  role: OperatorRole,
  created_at: Instant,
  expires_at: Schema.NullOr(Instant).annotate({ description: "From then on it is refused; null: never" }),
  revoked_at: Schema.NullOr(Instant),
  last_used_at: Schema.NullOr(Instant).annotate({
    description: "When it last authenticated a request, to the minute; null: never used"
  })
}).annotate({ identifier: "OperatorTokenListing" })
export type TokenListing = typeof TokenListing.Type

export const RevokedToken = Schema.Struct({
  token_id: Schema.String,
  name: Schema.String,
  revoked_at: Schema.NullOr(Instant),
  already_revoked: Schema.Boolean.annotate({ description: "It was revoked before: the first revocation stands" })
}).annotate({ identifier: "OperatorRevokedToken" })
export type RevokedToken = typeof RevokedToken.Type

const iso = (at: DateTime.Utc | null): string | null => (at === null ? null : DateTime.formatIso(at))

export const listing = (record: OperatorTokenRecord): TokenListing => ({
  token_id: record.id,
  name: record.name,
  role: record.role,
  created_at: DateTime.formatIso(record.createdAt),
  expires_at: iso(record.expiresAt),
  revoked_at: iso(record.revokedAt),
  last_used_at: iso(record.lastUsedAt)
})

const expiryUnits: Record<string, (n: number) => Duration.Duration> = {
  m: Duration.minutes,
  h: Duration.hours,
  d: Duration.days
}

/** `30d`, `12h`, `90m`: how long a new token lives (a whole number of days, hours or minutes, at most 10 years). */
export const parseExpiresIn = (text: string): Option.Option<Duration.Duration> => {
  const match = /^([1-9][0-9]{0,5})([mhd])$/.exec(text.trim())
  if (match === null) return Option.none()
  const duration = expiryUnits[match[2]!]!(Number(match[1]))
  return Duration.isLessThanOrEqualTo(duration, Duration.days(3660)) ? Option.some(duration) : Option.none()
}

/**
 * A new token named `name` (1 to 100 characters once trimmed) with `role`, living `expiresIn`
 * (`30d`; for ever when absent); its secret is in the answer, once.
 */
export const create = Effect.fn("OperatorTokens.create")(function* (input: {
  readonly name: string
  readonly role: OperatorRole
  readonly expiresIn?: string | undefined
}) {
  const trimmed = input.name.trim()
  if (trimmed === "" || trimmed.length > 100) {
    return yield* new OperatorTokenError({ reason: "invalid_name", message: "a token name is 1 to 100 characters" })
  }
  // a name is shown in lists, logs and the audit log: no control character (nor a NUL, which no store keeps)
  if (/\p{Cc}/u.test(trimmed)) {
    return yield* new OperatorTokenError({
      reason: "invalid_name",
      message: "a token name has no control characters (line breaks, tabs, NUL)"
    })
  }
  const lifetime = input.expiresIn === undefined ? Option.none() : parseExpiresIn(input.expiresIn)
  if (input.expiresIn !== undefined && Option.isNone(lifetime)) {
    return yield* new OperatorTokenError({
      reason: "invalid_expiry",
      message: `expires-in is a whole number of days, hours or minutes (30d, 12h, 90m), at most 10 years, not "${input.expiresIn}"`
    })
  }
  const token = yield* ApiKeySecret.generate(tokenPrefix)
  const createdAt = yield* DateTime.now
  const record: OperatorTokenRecord = {
    id: yield* (yield* IdGenerator).uuid,
    name: trimmed,
    secretHash: yield* ApiKeySecret.hashSecret(token),
    role: input.role,
    createdAt,
    expiresAt: Option.match(lifetime, { onNone: () => null, onSome: (d) => DateTime.addDuration(createdAt, d) }),
    revokedAt: null,
    lastUsedAt: null
  }
  yield* (yield* OperatorTokenRepo).insert(record)
  return {
    token_id: record.id,
    name: record.name,
    role: record.role,
    created_at: DateTime.formatIso(record.createdAt),
    expires_at: iso(record.expiresAt),
    token
  } satisfies CreatedToken
})

/** Every token, revoked ones too, oldest first; never a secret (none is kept). */
export const list = Effect.fn("OperatorTokens.list")(function* () {
  return (yield* (yield* OperatorTokenRepo).list()).map(listing)
})

/** Revokes a token at once; revoking it again changes nothing (the first revocation stands). */
export const revoke = Effect.fn("OperatorTokens.revoke")(function* (tokenId: string) {
  const repo = yield* OperatorTokenRepo
  const found = yield* repo.find(tokenId)
  if (Option.isNone(found)) {
    return yield* new OperatorTokenError({ reason: "token_not_found", message: `no operator token ${tokenId}` })
  }
  const alreadyRevoked = found.value.revokedAt !== null
  if (!alreadyRevoked) yield* repo.revoke(tokenId, yield* DateTime.now)
  const revoked = Option.getOrThrow(yield* repo.find(tokenId))
  return {
    token_id: tokenId,
    name: revoked.name,
    revoked_at: iso(revoked.revokedAt),
    already_revoked: alreadyRevoked
  } satisfies RevokedToken
})

/** A token's last use is written at most this often: a busy scraper does not write on every request. */
export const lastUseResolution = Duration.minutes(1)

/** Whether a token revoked and expiring at these instants (null: not) is `live` at `now`, or why not. */
export const stateAt = (
  token: { readonly revokedAt: DateTime.Utc | null; readonly expiresAt: DateTime.Utc | null },
  now: DateTime.Utc
): "live" | "expired" | "revoked" =>
  token.revokedAt !== null && !DateTime.isGreaterThan(token.revokedAt, now)
    ? "revoked"
    : token.expiresAt !== null && !DateTime.isGreaterThan(token.expiresAt, now)
      ? "expired"
      : "live"

const live = (record: OperatorTokenRecord, now: DateTime.Utc): boolean => stateAt(record, now) === "live"

/**
 * The live token `token` is, or none: unknown, revoked, expired, or not a token at all. One answer
 * for every refusal, so a caller learns nothing about which it was. Its last use is noted.
 */
export const authenticate = Effect.fn("OperatorTokens.authenticate")(function* (token: string) {
  if (!token.startsWith(tokenPrefix)) return Option.none<TokenListing>()
  const repo = yield* OperatorTokenRepo
  const found = yield* repo.findByHash(yield* ApiKeySecret.hashSecret(token))
  const now = yield* DateTime.now
  if (Option.isNone(found) || !live(found.value, now)) return Option.none<TokenListing>()
  const record = found.value
  const stale =
    record.lastUsedAt === null ||
    now.epochMilliseconds - record.lastUsedAt.epochMilliseconds >= Duration.toMillis(lastUseResolution)
  if (stale) yield* repo.touch(record.id, now)
  return Option.some(listing(stale ? { ...record, lastUsedAt: now } : record))
})
