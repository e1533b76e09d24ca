/**
 * Ids, hashing, MACs and randomness: what the operator programs, the server and the workers need
 * besides a store.
 */
import { IdGenerator } from "@ratelock/core"
import { SecureRandom } from "effect/crypto"
import { Layer } from "effect"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"

// SHA-256 and HMAC on node:crypto run inline; WebCrypto's go through the thread pool on every
// call (every API-key check, and two signatures on every webhook delivery)
export const crypto = Layer.mergeAll(
  IdGenerator.IdGenerator.layer.pipe(Layer.provideMerge(SecureRandom.layerWebCrypto)),
  NodeCrypto.layerMac,
  NodeCrypto.layerDigest
)
