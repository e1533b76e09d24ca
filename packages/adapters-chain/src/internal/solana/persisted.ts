/**
 * A signed payout as core persists it: `{ v: 1, transaction, blockhash, lastValidBlockHeight }` as
 * JSON, `transaction` being the base64 wire bytes.
 *
 * Reading it back checks it against itself (the hash is the first signature, it verifies against
 * the fee payer, the blockhash is the signed one), because `lookupPayout` answers `Failed` from the
 * blockhash's expiry: a mismatched row must not make a live transaction look dead. The expiry
 * height itself is not signed; it is trusted as core stored it.
 */
import type { ChainGateway } from "@ratelock/core"
import { ed25519 } from "@noble/curves/ed25519.js"
import { VersionedTransaction } from "@solana/web3.js"
import { Effect, Option, Result, Schema } from "effect"
import { Base64 } from "effect/encoding"
import * as Base58 from "../base58.ts"
import { chainError } from "../checks.ts"

const Persisted = Schema.fromJsonString(
  Schema.Struct({
    v: Schema.Literal(1),
    transaction: Schema.String,
    blockhash: Schema.String,
    lastValidBlockHeight: Schema.Int
  })
)
export type Persisted = typeof Persisted.Type

export const encode: (persisted: Persisted) => string = Schema.encodeSync(Persisted)

export interface Read extends Persisted {
  readonly bytes: Uint8Array
}

export const read = (prepared: ChainGateway.PreparedPayout): Effect.Effect<Read, ChainGateway.ChainError> => {
  const invalid = (why: string) => chainError("solana", "invalid_prepared", `not a payout of this gateway: ${why}`)
  return Effect.gen(function* () {
    const decoded = Schema.decodeUnknownOption(Persisted)(prepared.persisted)
    if (Option.isNone(decoded)) return yield* invalid("unreadable")
    const persisted = decoded.value
    const bytes = Result.getOrUndefined(Base64.decode(persisted.transaction))
    if (bytes === undefined) return yield* invalid("no transaction bytes")
    const transaction = yield* Effect.try({
      try: () => VersionedTransaction.deserialize(bytes),
      catch: () => invalid("not a transaction")
    })
    const signature = transaction.signatures[0]
    const payer = transaction.message.staticAccountKeys[0]
    if (signature === undefined || payer === undefined || Base58.encode(signature) !== prepared.transactionHash) {
      return yield* invalid("hash differs")
    }
    if (!ed25519.verify(signature, transaction.message.serialize(), payer.toBytes())) {
      return yield* invalid("not signed by its fee payer")
    }
    if (transaction.message.recentBlockhash !== persisted.blockhash) return yield* invalid("blockhash differs")
    return { ...persisted, bytes }
  })
}
