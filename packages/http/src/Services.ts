/**
 * Ids, hashing, MACs and randomness on WebCrypto: what the operator programs and the server
 * need besides a store.
 */
import { IdGenerator, WebhookSignature } from "@ratelock/core"
import { Layer } from "effect"
import { Digest } from "effect/crypto"

export const crypto = Layer.mergeAll(
  IdGenerator.IdGenerator.layer.pipe(Layer.provideMerge(WebhookSignature.layerWebCrypto)),
  Digest.layerWebCrypto
)
