/**
 * A signed payout as core persists it: `{ v: 1, chainId, from, nonce, serialized }` as JSON.
 *
 * Reading it back checks it against itself (the hash is keccak-256 of the bytes, nonce and chain id
 * are the signed ones, `from` is the recovered signer), because `lookupPayout` answers `Failed`
 * from `from`'s nonce: a tampered or mismatched row must not make a live transaction look dead.
 */
import type { ChainGateway } from "@ratelock/core"
import { Effect, Option, Schema } from "effect"
import { type Hex, keccak256, parseTransaction, recoverTransactionAddress } from "viem"
import { chainError } from "../checks.ts"

const Persisted = Schema.fromJsonString(
  Schema.Struct({
    v: Schema.Literal(1),
    chainId: Schema.Int,
    from: Schema.String,
    nonce: Schema.Int,
    serialized: Schema.String
  })
)
export type Persisted = typeof Persisted.Type

export const encode: (persisted: Persisted) => string = Schema.encodeSync(Persisted)

export const read = (
  chain: string,
  chainId: number,
  prepared: ChainGateway.PreparedPayout
): Effect.Effect<Persisted & { readonly serialized: Hex }, ChainGateway.ChainError> => {
  const invalid = (why: string) => chainError(chain, "invalid_prepared", `not a payout of this gateway: ${why}`)
  return Effect.gen(function* () {
    const decoded = Schema.decodeUnknownOption(Persisted)(prepared.persisted)
    if (Option.isNone(decoded)) return yield* invalid("unreadable")
    const persisted = decoded.value
    const serialized = persisted.serialized
    if (!/^0x[0-9a-f]+$/i.test(serialized)) return yield* invalid("no transaction bytes")
    const bytes = serialized as Hex
    if (keccak256(bytes) !== prepared.transactionHash.toLowerCase()) return yield* invalid("hash differs")
    if (persisted.chainId !== chainId) return yield* invalid(`chain id ${persisted.chainId}, the RPC's is ${chainId}`)
    const signed = yield* Effect.tryPromise({
      try: async () => ({
        transaction: parseTransaction(bytes),
        from: await recoverTransactionAddress({ serializedTransaction: bytes as never })
      }),
      catch: () => invalid("not a signed transaction")
    })
    if (
      signed.transaction.nonce !== persisted.nonce ||
      signed.transaction.chainId !== persisted.chainId ||
      signed.from.toLowerCase() !== persisted.from.toLowerCase()
    ) {
      return yield* invalid("fields differ from the signed transaction")
    }
    return { ...persisted, serialized: bytes }
  })
}
