/**
 * The operator's token programs over `OperatorTokenRepo`: create a token (its secret returned
 * once, only its hash stored), list them, revoke one, and authenticate a presented token. Hosts
 * parse the operator's input and print what these return; the HTTP host authenticates every
 * operator request with `authenticate`.
 */
import { Data, DateTime, Effect, Option } from "effect"
import * as ApiKeySecret from "../partners/ApiKeySecret.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import { type OperatorTokenRecord, OperatorTokenRepo } from "./OperatorTokenRepo.ts"

/** Operator tokens start with this, so one found in a log or a paste says what it is. */
export const tokenPrefix = "rlop_"

export class OperatorTokenError extends Data.TaggedError("OperatorTokenError")<{
  readonly reason: "token_not_found" | "invalid_name"
  readonly message: string
}> {}

export interface CreatedToken {
  readonly token_id: string
  readonly name: string
  readonly created_at: string
  /** Shown once; only its hash is stored. */
  readonly token: string
}

export interface TokenListing {
  readonly token_id: string
  readonly name: string
  readonly created_at: string
  readonly revoked_at: string | null
}

export interface RevokedToken {
  readonly token_id: string
  readonly name: string
  readonly revoked_at: string | null
  readonly already_revoked: boolean
}

const listing = (record: OperatorTokenRecord): TokenListing => ({
  token_id: record.id,
  name: record.name,
  created_at: DateTime.formatIso(record.createdAt),
  revoked_at: record.revokedAt === null ? null : DateTime.formatIso(record.revokedAt)
})

/** A new token named `name` (1 to 100 characters once trimmed); its secret is in the answer, once. */
export const create = Effect.fn("OperatorTokens.create")(function* (name: string) {
  const trimmed = name.trim()
  if (trimmed === "" || trimmed.length > 100) {
    return yield* new OperatorTokenError({ reason: "invalid_name", message: "a token name is 1 to 100 characters" })
  }
  const token = yield* ApiKeySecret.generate(tokenPrefix)
  const record: OperatorTokenRecord = {
    id: yield* (yield* IdGenerator).uuid,
    name: trimmed,
    secretHash: yield* ApiKeySecret.hashSecret(token),
    createdAt: yield* DateTime.now,
    revokedAt: null
  }
  yield* (yield* OperatorTokenRepo).insert(record)
  return {
    token_id: record.id,
    name: record.name,
    created_at: DateTime.formatIso(record.createdAt),
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
    revoked_at: revoked.revokedAt === null ? null : DateTime.formatIso(revoked.revokedAt),
    already_revoked: alreadyRevoked
  } satisfies RevokedToken
})

/**
 * The live token `token` is, or none: unknown, revoked, or not a token at all. One answer for
 * every refusal, so a caller learns nothing about which it was.
 */
export const authenticate = Effect.fn("OperatorTokens.authenticate")(function* (token: string) {
  if (!token.startsWith(tokenPrefix)) return Option.none<TokenListing>()
  const found = yield* (yield* OperatorTokenRepo).findByHash(yield* ApiKeySecret.hashSecret(token))
  const now = yield* DateTime.now
  return found.pipe(
    Option.filter((record) => record.revokedAt === null || DateTime.isGreaterThan(record.revokedAt, now)),
    Option.map(listing)
  )
})
