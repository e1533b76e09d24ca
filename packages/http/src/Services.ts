/**
 * Ids, hashing, MACs and randomness on WebCrypto: what the operator programs and the server
 * need besides a store.
 */
import { IdGenerator, WebhookSignature } from "@ratelock/core"
import { Layer } from "effect"
import { NodeCrypto } from "@effect/platform-node"

// Node's own SHA-256 runs inline; WebCrypto's goes through the thread pool on every API-key check
export const crypto = Layer.mergeAll(
  IdGenerator.IdGenerator.layer.pipe(Layer.provideMerge(WebhookSignature.layerWebCrypto)),
  NodeCrypto.layerDigest
)
