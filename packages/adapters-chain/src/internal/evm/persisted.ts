/**
 * A payout as core persists it: every version the gateway signed for it, as JSON
 * `{ v: 2, chainId, from, nonce, versions: [{ serialized, kind, maxFeePerGas, maxPriorityFeePerGas, signedAt }] }`
 * (fees in wei as decimal strings, `signedAt` ISO-8601), the latest version last. Rows written
 * before replacements existed, `{ v: 1, chainId, from, nonce, serialized }`, are read as one
 * `transfer` version whose signing time is unknown (the epoch).
 *
 * Reading it back checks it against itself (each version's bytes are a transaction signed by
 * `from` for this chain id at `nonce`, with the fees and the kind recorded; the latest version's
 * hash is the prepared hash), because `lookupPayout` answers `Failed` from `from`'s nonce and a
 * replacement copies a version's call: a tampered or mismatched row must not make a live
 * transaction look dead, nor sign something nobody prepared.
 */
import type { ChainGateway } from "@ratelock/core"
import { Array as Arr, DateTime, Effect, Option, Schema } from "effect"
import { type Address, type Hash, type Hex, keccak256, parseTransaction, recoverTransactionAddress } from "viem"
import { chainError } from "../checks.ts"

export const kinds = ["transfer", "cancel"] as const
export type Kind = (typeof kinds)[number]

const V1 = Schema.Struct({
  v: Schema.Literal(1),
  chainId: Schema.Int,
  from: Schema.String,
  nonce: Schema.Int,
  serialized: Schema.String
})

const VersionWire = Schema.Struct({
  serialized: Schema.String,
  kind: Schema.Literals(kinds),
  maxFeePerGas: Schema.String,
  maxPriorityFeePerGas: Schema.String,
  signedAt: Schema.String
})

const V2 = Schema.Struct({
  v: Schema.Literal(2),
  chainId: Schema.Int,
  from: Schema.String,
  nonce: Schema.Int,
  versions: Schema.NonEmptyArray(VersionWire)
})

const Wire = Schema.fromJsonString(Schema.Union([V1, V2]))
/** The stored JSON, either format. */
export type Wire = typeof Wire.Type

/** Writes a row in either format (tests write v1 rows with it; the gateway writes v2 through `prepared`). */
export const encode: (wire: Wire) => string = Schema.encodeSync(Wire)

/** One signed version, checked, with its call and fees read from the signed bytes. */
export interface Version {
  readonly serialized: Hex
  readonly hash: Hash
  readonly kind: Kind
  readonly to: Address
  readonly data: Hex
  readonly value: bigint
  readonly gas: bigint
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
  /** Epoch milliseconds; 0 for a v1 row (not recorded). */
  readonly signedAt: number
}

export interface Payout {
  readonly chainId: number
  /** The signer, lowercase. */
  readonly from: Address
  readonly nonce: number
  /** Oldest first; the last is the one core broadcasts. */
  readonly versions: readonly [Version, ...Array<Version>]
}

export const latest = (payout: Payout): Version => payout.versions[payout.versions.length - 1]!

/** What a new version records besides its bytes. */
export interface Signed {
  readonly serialized: Hex
  readonly kind: Kind
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
  readonly signedAt: number
}

/** The prepared payout holding `versions` (oldest first, all at `nonce`): the hash is the last one's. */
export const prepared = (
  header: { readonly chainId: number; readonly from: string; readonly nonce: number },
  versions: readonly [Signed, ...Array<Signed>]
): ChainGateway.PreparedPayout => ({
  transactionHash: keccak256(versions[versions.length - 1]!.serialized),
  persisted: encode({
    v: 2,
    chainId: header.chainId,
    from: header.from.toLowerCase(),
    nonce: header.nonce,
    versions: Arr.map(versions, (s) => ({
      serialized: s.serialized,
      kind: s.kind,
      maxFeePerGas: s.maxFeePerGas.toString(),
      maxPriorityFeePerGas: s.maxPriorityFeePerGas.toString(),
      signedAt: DateTime.formatIso(DateTime.makeUnsafe(s.signedAt))
    }))
  })
})

/** A cancellation: nothing but the nonce, from the wallet to itself. */
const isCancellation = (from: string, to: string | undefined, value: bigint | undefined, data: Hex | undefined) =>
  to !== undefined && to.toLowerCase() === from && (value ?? 0n) === 0n && (data === undefined || data === "0x")

export const read = (
  chain: string,
  chainId: number,
  prepared: ChainGateway.PreparedPayout
): Effect.Effect<Payout, ChainGateway.ChainError> => {
  const invalid = (why: string) => chainError(chain, "invalid_prepared", `not a payout of this gateway: ${why}`)
  return Effect.gen(function* () {
    const decoded = Schema.decodeUnknownOption(Wire)(prepared.persisted)
    if (Option.isNone(decoded)) return yield* invalid("unreadable")
    const wire = decoded.value
    const from = wire.from.toLowerCase()
    if (wire.chainId !== chainId) return yield* invalid(`chain id ${wire.chainId}, the RPC's is ${chainId}`)
    const recorded =
      wire.v === 1
        ? [
            {
              serialized: wire.serialized,
              kind: "transfer" as Kind,
              fees: Option.none<readonly [string, string]>(),
              signedAt: 0
            }
          ]
        : wire.versions.map((v) => ({
            serialized: v.serialized,
            kind: v.kind,
            fees: Option.some([v.maxFeePerGas, v.maxPriorityFeePerGas] as const),
            signedAt: Option.match(DateTime.make(v.signedAt), {
              onNone: () => Number.NaN,
              onSome: DateTime.toEpochMillis
            })
          }))
    const versions: Array<Version> = []
    for (const r of recorded) {
      if (!/^0x[0-9a-f]+$/i.test(r.serialized)) return yield* invalid("no transaction bytes")
      if (Number.isNaN(r.signedAt)) return yield* invalid("unreadable signing time")
      const bytes = r.serialized as Hex
      const signed = yield* Effect.tryPromise({
        try: async () => ({
          transaction: parseTransaction(bytes),
          from: await recoverTransactionAddress({ serializedTransaction: bytes as never })
        }),
        catch: () => invalid("not a signed transaction")
      })
      const tx = signed.transaction
      if (
        tx.type !== "eip1559" ||
        tx.to === undefined ||
        tx.to === null ||
        tx.nonce !== wire.nonce ||
        tx.chainId !== wire.chainId ||
        signed.from.toLowerCase() !== from
      ) {
        return yield* invalid("fields differ from the signed transaction")
      }
      const maxFeePerGas = tx.maxFeePerGas ?? 0n
      const maxPriorityFeePerGas = tx.maxPriorityFeePerGas ?? 0n
      const feesDiffer = Option.exists(
        r.fees,
        ([fee, tip]) => fee !== maxFeePerGas.toString() || tip !== maxPriorityFeePerGas.toString()
      )
      if (feesDiffer || (r.kind === "cancel") !== isCancellation(from, tx.to, tx.value, tx.data)) {
        return yield* invalid("fees or kind differ from the signed transaction")
      }
      versions.push({
        serialized: bytes,
        hash: keccak256(bytes),
        kind: r.kind,
        to: tx.to.toLowerCase() as Address,
        data: tx.data ?? "0x",
        value: tx.value ?? 0n,
        gas: tx.gas ?? 0n,
        maxFeePerGas,
        maxPriorityFeePerGas,
        signedAt: r.signedAt
      })
    }
    const [first, ...rest] = versions
    if (first === undefined) return yield* invalid("no version")
    const payout: Payout = {
      chainId: wire.chainId,
      from: from as Address,
      nonce: wire.nonce,
      versions: [first, ...rest]
    }
    // the hash of any version names the payout: the latest while it is in flight, the mined one once settled
    const hash = prepared.transactionHash.toLowerCase()
    if (!payout.versions.some((version) => version.hash === hash)) return yield* invalid("hash differs")
    return payout
  })
}
