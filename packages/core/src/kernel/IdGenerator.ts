/**
 * Ids and references: the only source of new identifiers in core.
 */
import { Context, Effect, Layer, Ref } from "effect"
import { SecureRandom } from "effect/crypto"

export interface IdGeneratorShape {
  /** A new uuid for a record (time-ordered UUIDv7, so inserts stay index-friendly). */
  readonly uuid: Effect.Effect<string>
  /** A human-readable contract reference for receipts and support, e.g. `RL-7KQ2-M9XD`. */
  readonly contractReference: Effect.Effect<string>
}

export class IdGenerator extends Context.Service<IdGenerator, IdGeneratorShape>()("@ratelock/core/IdGenerator") {
  /** Ids from a `SecureRandom` (provide `SecureRandom.layerWebCrypto` in production). */
  static readonly layer = Layer.effect(
    IdGenerator,
    Effect.gen(function* () {
      const random = yield* SecureRandom.SecureRandom
      return IdGenerator.of({
        uuid: random.uuidV7(),
        contractReference: Effect.map(random.randomBytes(8), referenceFromBytes)
      })
    })
  )

  /** Deterministic ids for tests: `00000000-0000-4000-8000-000000000001`, `RL-0000-0001`, ... */
  static readonly layerTest = Layer.effect(
    IdGenerator,
    Effect.gen(function* () {
      const counter = yield* Ref.make(0)
      const next = Ref.updateAndGet(counter, (n) => n + 1)
      return IdGenerator.of({
        uuid: Effect.map(next, (n) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`),
        contractReference: Effect.map(
          next,
          (n) =>
            `RL-${n
              .toString()
              .padStart(8, "0")
              .replace(/(\d{4})(\d{4})/, "$1-$2")}`
        )
      })
    })
  )
}

/** Crockford base32 without look-alike letters: easy to read out over the phone. */
const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

const referenceFromBytes = (bytes: Uint8Array): string => {
  const chars = Array.from(bytes, (b) => alphabet[b % 32])
  return `RL-${chars.slice(0, 4).join("")}-${chars.slice(4, 8).join("")}`
}
