/**
 * API key secrets (and operator tokens, `OperatorTokens.ts`): issued once as 32 random bytes
 * (base64url, after a prefix: `rlk_` for API keys), stored only as their SHA-256 hex digest,
 * compared in constant time. A fast hash is enough for secrets with 256 bits of entropy (no
 * password stretching needed).
 */
import { Effect } from "effect"
import { Digest, Mac, SecureRandom } from "effect/crypto"
import { Base64Url } from "effect/encoding"

export const secretPrefix = "rlk_"

/** A new secret of 32 random bytes after `prefix` (`rlk_` for API keys), shown once. */
export const generate = (prefix: string): Effect.Effect<string, never, SecureRandom.SecureRandom> =>
  Effect.map(
    Effect.flatMap(SecureRandom.SecureRandom, (random) => random.randomBytes(32)),
    (bytes) => `${prefix}${Base64Url.encode(bytes)}`
  )

/** A new API key secret, shown to the operator once. */
export const newSecret: Effect.Effect<string, never, SecureRandom.SecureRandom> = generate(secretPrefix)

/** The stored form of a secret: lowercase hex SHA-256 of its UTF-8 bytes. */
export const hashSecret = (secret: string): Effect.Effect<string, never, Digest.Digest> =>
  Effect.flatMap(Digest.Digest, (digest) => digest.digestHex(Digest.sha256, new TextEncoder().encode(secret)))

/** Whether `secret` hashes to `storedHash`, compared in constant time. */
export const matches = (secret: string, storedHash: string): Effect.Effect<boolean, never, Digest.Digest> =>
  Effect.map(hashSecret(secret), (hash) => {
    const a = new TextEncoder().encode(hash)
    const b = new TextEncoder().encode(storedHash)
    return a.length === b.length && Mac.timingSafeEqual(a, b)
  })
