/**
 * Signing of outbound partner webhooks, and the matching verifier for partners.
 *
 * Every delivery carries two independent schemes:
 * - `x-partner-signature`: lowercase hex HMAC-SHA256 of the raw body bytes, keyed with the UTF-8 bytes of the
 *   newest secret string exactly as issued (including `whsec_`).
 * - Standard Webhooks v1: `webhook-signature` = `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one entry per
 *   secret (space-separated, newest first), keyed with the base64-decoded part after `whsec_`.
 *
 * Everything runs on the `Mac` service (and `generateSecret` on `SecureRandom`): provide {@link layerWebCrypto},
 * or a native layer. Time comes from `Clock`.
 */
import { Clock, Duration, Effect, Layer, Schema } from "effect"
import { Mac, SecureRandom } from "effect/crypto"
import { Base64, Hex } from "effect/encoding"
import { concat, toBytes } from "../kernel/Bytes.ts"
import { getHeader, type HeaderSource } from "./internal/headers.ts"
import { deriveKeys, type Secrets } from "./internal/webhookKeys.ts"

export type { HeaderSource, Secrets }

/** Prefix of every webhook secret. */
export const SECRET_PREFIX = "whsec_"

/** Default accepted clock skew between `webhook-timestamp` and now, in either direction. */
export const DEFAULT_TOLERANCE: Duration.Input = "5 minutes"

/** `Mac` and `SecureRandom` on WebCrypto (`globalThis.crypto`): works in browsers, Node, Deno, Bun, workers. */
export const layerWebCrypto: Layer.Layer<Mac.Mac | SecureRandom.SecureRandom> = Mac.layerWebCrypto.pipe(
  Layer.provideMerge(SecureRandom.layerWebCrypto)
)

/** Signing was asked to do something it cannot: a malformed secret, event id or timestamp. */
export class WebhookSigningError extends Schema.TaggedError<WebhookSigningError>()("WebhookSigningError", {
  reason: Schema.Literals(["invalid_secret", "invalid_event_id", "invalid_timestamp"]),
  message: Schema.String
}) {}

export const VerificationFailure = Schema.Literals([
  "missing_header",
  "invalid_timestamp",
  "timestamp_too_old",
  "timestamp_too_new",
  "no_matching_signature",
  "invalid_secret"
])
export type VerificationFailure = typeof VerificationFailure.Type

/** The delivery must be rejected; `reason` says why. Messages never contain secrets. */
export class WebhookVerificationError extends Schema.TaggedError<WebhookVerificationError>()(
  "WebhookVerificationError",
  { reason: VerificationFailure, message: Schema.String }
) {}

const EVENT_ID = /^[\x21-\x7e]+$/u
const TIMESTAMP = /^[0-9]{1,15}$/u

/**
 * The full header set of one outbound delivery, as {@link headers} writes it: the schema the
 * OpenAPI document describes deliveries with. An HMAC-SHA256 is 32 bytes: 64 hex digits, or 44
 * base64 characters (one `=` of padding).
 */
export const OutboundHeaders = Schema.Struct({
  "content-type": Schema.Literal("application/json"),
  "x-partner-signature": Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/u)),
  "webhook-id": Schema.String.check(Schema.isPattern(EVENT_ID)),
  "webhook-timestamp": Schema.String.check(Schema.isPattern(TIMESTAMP)),
  "webhook-signature": Schema.String.check(Schema.isPattern(/^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$/u))
})
/** A type alias of plain strings, so it is also a plain header record. */
export type OutboundHeaders = typeof OutboundHeaders.Type

export interface SignInput {
  /** The event id, sent as `webhook-id`: visible ASCII, no spaces. */
  readonly eventId: string
  /** The exact bytes that will be sent. */
  readonly body: string | Uint8Array
  /** Active secrets, newest first. */
  readonly secrets: Secrets
  /** Unix seconds; defaults to now from `Clock`. */
  readonly timestamp?: number | undefined
}

export interface VerifyInput<B extends string | Uint8Array> {
  readonly headers: HeaderSource
  /** The raw body exactly as received, before any JSON parsing. */
  readonly body: B
  /** One secret, or all currently accepted ones during a rotation. */
  readonly secrets: Secrets
  /** Accepted skew in either direction; defaults to {@link DEFAULT_TOLERANCE}. */
  readonly tolerance?: Duration.Input | undefined
}

const REQUIRED_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const

/** A new secret: `whsec_` + base64 of 32 bytes from `SecureRandom`. */
export const generateSecret: Effect.Effect<string, never, SecureRandom.SecureRandom> = Effect.gen(function* () {
  const random = yield* SecureRandom.SecureRandom
  return SECRET_PREFIX + Base64.encode(yield* random.randomBytes(32))
})

const sign = (key: Mac.Key, data: Uint8Array) => Mac.Mac.use((mac) => Effect.orDie(mac.sign(key, data)))

const signingFailure = (reason: WebhookSigningError["reason"]) => (message: string) =>
  new WebhookSigningError({ reason, message })

const verificationFailure = (reason: VerificationFailure, message: string) =>
  Effect.fail(new WebhookVerificationError({ reason, message }))

/** `x-partner-signature` value: lowercase hex HMAC-SHA256 of `body`, keyed with the secret string as issued. */
export const partnerSignature = Effect.fn("WebhookSignature.partnerSignature")(function* (
  body: string | Uint8Array,
  secret: string
): Effect.fn.Return<string, WebhookSigningError, Mac.Mac> {
  const [key] = yield* Effect.mapError(deriveKeys(secret, "partner"), signingFailure("invalid_secret"))
  return Hex.encode(yield* sign(key, toBytes(body)))
})

/**
 * Checks an `x-partner-signature` (hex, either case) in constant time against any of `secrets`.
 * Succeeds with `body`, or fails with `no_matching_signature` / `invalid_secret`.
 */
export const verifyPartnerSignature = Effect.fn("WebhookSignature.verifyPartnerSignature")(function* <
  B extends string | Uint8Array
>(body: B, signatureHex: string, secrets: Secrets): Effect.fn.Return<B, WebhookVerificationError, Mac.Mac> {
  const keys = yield* deriveKeys(secrets, "partner").pipe(
    Effect.catch((message) => verificationFailure("invalid_secret", message))
  )
  const decoded = Hex.decode(signatureHex.trim())
  const given = decoded._tag === "Success" ? decoded.success : new Uint8Array(0)
  const data = toBytes(body)
  for (const key of keys) {
    if (Mac.timingSafeEqual(yield* sign(key, data), given)) return body
  }
  return yield* verificationFailure("no_matching_signature", "x-partner-signature does not match any secret")
})

const v1Content = (eventId: string, timestamp: string, body: string | Uint8Array) =>
  concat(toBytes(`${eventId}.${timestamp}.`), toBytes(body))

/** `webhook-signature` value: `v1,<base64>` for each secret, in the given order, space-separated. */
export const standardSignature = Effect.fn("WebhookSignature.standardSignature")(function* (input: {
  readonly eventId: string
  readonly timestamp: number
  readonly body: string | Uint8Array
  readonly secrets: Secrets
}): Effect.fn.Return<string, WebhookSigningError, Mac.Mac> {
  if (!EVENT_ID.test(input.eventId)) {
    return yield* signingFailure("invalid_event_id")("event id must be non-empty visible ASCII without spaces")
  }
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) {
    return yield* signingFailure("invalid_timestamp")(`timestamp must be whole unix seconds, got ${input.timestamp}`)
  }
  const keys = yield* Effect.mapError(deriveKeys(input.secrets, "v1"), signingFailure("invalid_secret"))
  const content = v1Content(input.eventId, String(input.timestamp), input.body)
  const tags = yield* Effect.forEach(keys, (key) => sign(key, content))
  return tags.map((tag) => `v1,${Base64.encode(tag)}`).join(" ")
})

/** All headers of one outbound delivery; `x-partner-signature` uses the first (newest) secret. */
export const headers = Effect.fn("WebhookSignature.headers")(function* (
  input: SignInput
): Effect.fn.Return<OutboundHeaders, WebhookSigningError, Mac.Mac> {
  const timestamp = input.timestamp ?? Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const webhookSignature = yield* standardSignature({ ...input, timestamp })
  const newest = typeof input.secrets === "string" ? input.secrets : input.secrets[0]
  return {
    "content-type": "application/json",
    "x-partner-signature": yield* partnerSignature(input.body, newest),
    "webhook-id": input.eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": webhookSignature
  }
})

const v1Signatures = (header: string): ReadonlyArray<Uint8Array> =>
  header.split(" ").flatMap((entry) => {
    if (!entry.startsWith("v1,")) return []
    const decoded = Base64.decode(entry.slice(3))
    return decoded._tag === "Success" ? [decoded.success] : []
  })

/**
 * Verifies a Standard Webhooks delivery: headers present, `webhook-timestamp` within `tolerance` of `Clock` time,
 * and any `v1` signature matching any secret (constant-time). Succeeds with the raw body.
 */
export const verify = Effect.fn("WebhookSignature.verify")(function* <B extends string | Uint8Array>(
  input: VerifyInput<B>
): Effect.fn.Return<B, WebhookVerificationError, Mac.Mac> {
  const keys = yield* deriveKeys(input.secrets, "v1").pipe(
    Effect.catch((message) => verificationFailure("invalid_secret", message))
  )
  const values = REQUIRED_HEADERS.map((name) => getHeader(input.headers, name))
  const [id, timestamp, signature] = values
  if (id === undefined || timestamp === undefined || signature === undefined) {
    const missing = REQUIRED_HEADERS.filter((_, i) => values[i] === undefined).join(", ")
    return yield* verificationFailure("missing_header", `missing header(s): ${missing}`)
  }
  if (!TIMESTAMP.test(timestamp)) {
    return yield* verificationFailure("invalid_timestamp", "webhook-timestamp is not unix seconds")
  }
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const tolerance = Duration.toSeconds(input.tolerance ?? DEFAULT_TOLERANCE)
  const skew = Number(timestamp) - now
  if (skew < -tolerance) return yield* verificationFailure("timestamp_too_old", `webhook-timestamp is ${-skew}s old`)
  if (skew > tolerance) return yield* verificationFailure("timestamp_too_new", `webhook-timestamp is ${skew}s ahead`)
  const content = v1Content(id, timestamp, input.body)
  const given = v1Signatures(signature)
  for (const key of keys) {
    const expected = yield* sign(key, content)
    if (given.some((tag) => Mac.timingSafeEqual(expected, tag))) return input.body
  }
  return yield* verificationFailure("no_matching_signature", "no v1 signature matches any secret")
})
