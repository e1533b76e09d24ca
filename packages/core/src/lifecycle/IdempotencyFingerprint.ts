/**
 * Request fingerprints for `Idempotency-Key` handling: a replay with the same key must carry the same
 * fingerprint, otherwise it is "same key, different request" and must be rejected.
 *
 * `fingerprint` = lowercase hex SHA-256 of `method + " " + route + "\n" + canonicalJson(body)`, computed on the
 * `Digest` service (provide `Digest.layerWebCrypto` from `effect/crypto`, or a native layer), so the same key on
 * another method or route is a different request.
 */
import { Effect, Result, Schema } from "effect"
import { Digest } from "effect/crypto"
import { toBytes } from "../kernel/Bytes.ts"
import { canonicalize } from "../kernel/CanonicalJson.ts"

/** The value has no faithful JSON form; `path` points at the offending part (e.g. `$.legs[2].rate`). */
export class InvalidJsonValue extends Schema.TaggedError<InvalidJsonValue>()("InvalidJsonValue", {
  path: Schema.String,
  message: Schema.String
}) {}

export interface Request {
  readonly method: string
  /** The route the key was used on, e.g. `/v1/locks`. */
  readonly route: string
  /** The parsed JSON body; `undefined` means "no body" and hashes as empty text. */
  readonly body: unknown
}

/**
 * Canonical JSON: object keys sorted recursively by Unicode code point, no whitespace, arrays in order,
 * numbers and strings as `JSON.stringify` prints them, `toJSON` honoured (e.g. `Date`). Object members whose
 * value is `undefined` are omitted, as `JSON.stringify` does. Anything `JSON.stringify` would silently turn
 * into `null` or drop elsewhere fails instead: top-level or array `undefined`, `NaN`, `±Infinity`, functions,
 * symbols, bigints, cycles, `Map`/`Set`/class instances, nesting deeper than 256.
 */
export const canonicalJson = Effect.fnUntraced(function* (value: unknown): Effect.fn.Return<string, InvalidJsonValue> {
  const result = canonicalize(value)
  if (Result.isFailure(result)) return yield* new InvalidJsonValue(result.failure)
  return result.success
})

/** Lowercase hex SHA-256 of `route + "\n" + canonicalJson(body)`. */
export const fingerprint = Effect.fn("IdempotencyFingerprint.fingerprint")(function* (
  request: Request
): Effect.fn.Return<string, InvalidJsonValue, Digest.Digest> {
  const body = request.body === undefined ? "" : yield* canonicalJson(request.body)
  const digest = yield* Digest.Digest
  return yield* digest.digestHex(Digest.sha256, toBytes(`${request.method} ${request.route}\n${body}`))
})
