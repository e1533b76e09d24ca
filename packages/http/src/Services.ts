/**
 * Ids, hashing, MACs and randomness: what the operator programs, the server and the workers need
 * besides a store.
 */
import { IdGenerator, type WebhookUrlCheck } from "@ratelock/core"
import { SecureRandom } from "effect/crypto"
import { Layer } from "effect"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import * as WebhookUrl from "./WebhookUrl.ts"

// SHA-256 and HMAC on node:crypto run inline; WebCrypto's go through the thread pool on every
// call (every API-key check, and two signatures on every webhook delivery)
export const crypto = Layer.mergeAll(
  IdGenerator.IdGenerator.layer.pipe(Layer.provideMerge(SecureRandom.layerWebCrypto)),
  NodeCrypto.layerMac,
  NodeCrypto.layerDigest
)

/** `crypto` and the webhook URL rules: what the partner programs (CLI, demo partner) run on. */
export const layer: Layer.Layer<Layer.Success<typeof crypto> | WebhookUrlCheck.WebhookUrlCheck> = Layer.merge(
  crypto,
  WebhookUrl.layer
)
