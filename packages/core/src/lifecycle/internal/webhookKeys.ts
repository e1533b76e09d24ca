import type { Array as Arr } from "effect"
import { Effect } from "effect"
import { Mac } from "effect/crypto"
import { Base64 } from "effect/encoding"
import { toBytes } from "../../kernel/Bytes.ts"

/** One secret, or several (newest first) during a rotation. */
export type Secrets = string | Arr.NonEmptyReadonlyArray<string>

const PREFIX = "whsec_"

/**
 * HMAC-SHA256 keys for each secret, failing with a message that never contains the secret.
 * `partner`: the secret's UTF-8 bytes as issued. `v1`: base64 after the optional `whsec_` prefix (as the
 * Standard Webhooks reference library does).
 */
export const deriveKeys = (
  secrets: Secrets,
  scheme: "partner" | "v1"
): Effect.Effect<Arr.NonEmptyReadonlyArray<Mac.Key>, string> => {
  const [first, ...rest]: ReadonlyArray<string> = typeof secrets === "string" ? [secrets] : secrets
  if (first === undefined) return Effect.fail("no secrets given")
  const derive = (secret: string, index: number) => {
    const bytes = scheme === "partner" ? toBytes(secret) : v1Bytes(secret)
    return bytes === undefined || bytes.length === 0
      ? Effect.fail(`secret #${index + 1} ${scheme === "v1" ? `is not "${PREFIX}" + non-empty base64` : "is empty"}`)
      : Effect.mapError(Mac.key(Mac.hmacSha256, bytes), (error) => `secret #${index + 1}: ${error.message}`)
  }
  return Effect.zipWith(
    derive(first, 0),
    Effect.forEach(rest, (secret, i) => derive(secret, i + 1)),
    (a, bs) => [a, ...bs]
  )
}

const v1Bytes = (secret: string): Uint8Array | undefined => {
  const decoded = Base64.decode(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret)
  return decoded._tag === "Success" ? decoded.success : undefined
}
