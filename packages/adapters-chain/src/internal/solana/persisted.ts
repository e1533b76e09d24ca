/**
 * A signed job (a payout, a sweep) as core persists it: every version the gateway signed for it,
 * oldest first, as JSON. A payout is `{ v: 2, versions: [{ signature, transaction, blockhash,
 * lastValidBlockHeight, computeUnitPrice, computeUnitLimit, signedAt }] }`, `transaction` being
 * the base64 wire bytes and the price in micro-lamports per compute unit; a sweep is the same with
 * `kind: "sweep"` and its `fundingIndex` (the HD index of the funding key that signs it, which
 * the bytes cannot tell). The latest version is the one broadcast; a version is added only once
 * every earlier one can no longer land.
 *
 * Rows persisted before versions, `{ v: 1, transaction, blockhash, lastValidBlockHeight }`, are read
 * as one payout version, its compute budget read from its bytes (none: price 0, limit null) and
 * its `signedAt` unknown (null); a re-signed one is written back in the current form.
 *
 * Reading it back checks each version against itself (the signature is its first, every signature
 * verifies against its signer, the blockhash and the compute budget are the signed ones, one fee
 * payer for all) and the latest against the job's hash, because a lookup answers `Unknown` (safe to
 * sign again) from the blockhashes' expiry: a mismatched row must not make a live transaction look
 * dead. The expiry heights themselves are not signed; they are trusted as core stored them.
 */
import type { ChainGateway } from "@ratelock/core"
import { ed25519 } from "@noble/curves/ed25519.js"
import { type PublicKey, VersionedTransaction } from "@solana/web3.js"
import { type DateTime, Effect, Option, Result, Schema } from "effect"
import { Base64 } from "effect/encoding"
import * as Base58 from "../base58.ts"
import { chainError } from "../checks.ts"
import * as Fees from "./fees.ts"

const StoredVersion = Schema.Struct({
  signature: Schema.String,
  transaction: Schema.String,
  blockhash: Schema.String,
  lastValidBlockHeight: Schema.Int,
  computeUnitPrice: Schema.Int,
  /** null: a version persisted before versions, which set no limit. */
  computeUnitLimit: Schema.NullOr(Schema.Int),
  /** null: a version persisted before versions, whose signing time was not kept. */
  signedAt: Schema.NullOr(Schema.DateTimeUtcFromString)
})
export type StoredVersion = typeof StoredVersion.Type

const Current = Schema.Struct({ v: Schema.Literal(2), versions: Schema.NonEmptyArray(StoredVersion) })

const Sweep = Schema.Struct({
  v: Schema.Literal(2),
  kind: Schema.Literal("sweep"),
  fundingIndex: Schema.Int,
  versions: Schema.NonEmptyArray(StoredVersion)
})

const Single = Schema.Struct({
  v: Schema.Literal(1),
  transaction: Schema.String,
  blockhash: Schema.String,
  lastValidBlockHeight: Schema.Int
})

// a sweep first: a payout's shape is a sweep's without its fields, and excess fields are ignored
const Persisted = Schema.fromJsonString(Schema.Union([Sweep, Current, Single]))

const encodeCurrent = Schema.encodeSync(Schema.fromJsonString(Current))
const encodeSweep = Schema.encodeSync(Schema.fromJsonString(Sweep))

/** What a persisted job is: a payout from the hot wallet, or a sweep signed with a funding key too. */
export type Job = { readonly kind: "payout" } | { readonly kind: "sweep"; readonly fundingIndex: number }

export const payout: Job = { kind: "payout" }

/** The persisted form of a job: its `earlier` versions (oldest first), then `latest`. */
export const encode = (job: Job, earlier: ReadonlyArray<StoredVersion>, latest: StoredVersion): string => {
  const [first, ...rest] = [...earlier, latest]
  const versions: readonly [StoredVersion, ...Array<StoredVersion>] = [first!, ...rest]
  return job.kind === "sweep"
    ? encodeSweep({ v: 2, kind: "sweep", fundingIndex: job.fundingIndex, versions })
    : encodeCurrent({ v: 2, versions })
}

/** A version as read: what was stored, and its bytes and transaction. */
export interface Version {
  readonly stored: StoredVersion
  readonly signature: string
  readonly bytes: Uint8Array
  readonly transaction: VersionedTransaction
  readonly lastValidBlockHeight: number
  readonly computeUnitPrice: number
  readonly computeUnitLimit: number | null
  readonly signedAt: DateTime.Utc | null
}

export interface Read {
  readonly job: Job
  /** Oldest first; the last is the latest. */
  readonly versions: readonly [Version, ...Array<Version>]
  readonly latest: Version
  /** The fee payer (the hot wallet that signed every version). */
  readonly payer: PublicKey
  /** The highest last valid block height: past it at depth, no version can land any more. */
  readonly lastValidBlockHeight: number
}

const versionOf = (stored: StoredVersion, bytes: Uint8Array, transaction: VersionedTransaction): Version => ({
  stored,
  signature: stored.signature,
  bytes,
  transaction,
  lastValidBlockHeight: stored.lastValidBlockHeight,
  computeUnitPrice: stored.computeUnitPrice,
  computeUnitLimit: stored.computeUnitLimit,
  signedAt: stored.signedAt
})

export const read = (prepared: ChainGateway.PreparedPayout): Effect.Effect<Read, ChainGateway.ChainError> => {
  const invalid = (why: string) => chainError("solana", "invalid_prepared", `not a payout of this gateway: ${why}`)
  return Effect.gen(function* () {
    const decoded = Schema.decodeUnknownOption(Persisted)(prepared.persisted)
    if (Option.isNone(decoded)) return yield* invalid("unreadable")
    const persisted = decoded.value
    const job: Job = "kind" in persisted ? { kind: "sweep", fundingIndex: persisted.fundingIndex } : payout
    const stored: ReadonlyArray<StoredVersion & { readonly single?: true }> =
      persisted.v === 2
        ? persisted.versions
        : [
            {
              signature: prepared.transactionHash,
              transaction: persisted.transaction,
              blockhash: persisted.blockhash,
              lastValidBlockHeight: persisted.lastValidBlockHeight,
              computeUnitPrice: 0,
              computeUnitLimit: null,
              signedAt: null as DateTime.Utc | null,
              single: true
            }
          ]
    const versions: Array<Version> = []
    let payer: PublicKey | undefined
    for (const { single, ...version } of stored) {
      const bytes = Result.getOrUndefined(Base64.decode(version.transaction))
      if (bytes === undefined) return yield* invalid("no transaction bytes")
      const transaction = yield* Effect.try({
        try: () => VersionedTransaction.deserialize(bytes),
        catch: () => invalid("not a transaction")
      })
      const signature = transaction.signatures[0]
      const signer = transaction.message.staticAccountKeys[0]
      if (signature === undefined || signer === undefined || Base58.encode(signature) !== version.signature) {
        return yield* invalid("hash differs")
      }
      const bytesSigned = transaction.message.serialize()
      const signers = transaction.message.staticAccountKeys.slice(0, transaction.message.header.numRequiredSignatures)
      if (
        transaction.signatures.length !== signers.length ||
        !signers.every((key, i) => ed25519.verify(transaction.signatures[i]!, bytesSigned, key.toBytes()))
      ) {
        return yield* invalid("not signed by its signers")
      }
      if (payer !== undefined && !payer.equals(signer)) return yield* invalid("versions of different fee payers")
      payer = signer
      if (transaction.message.recentBlockhash !== version.blockhash) return yield* invalid("blockhash differs")
      const budget = Fees.decode(transaction.message)
      const price = budget.price ?? 0
      if (single === true) {
        versions.push(
          versionOf({ ...version, computeUnitPrice: price, computeUnitLimit: budget.limit }, bytes, transaction)
        )
      } else if (price !== version.computeUnitPrice || budget.limit !== version.computeUnitLimit) {
        return yield* invalid("compute budget differs")
      } else {
        versions.push(versionOf(version, bytes, transaction))
      }
    }
    const latest = versions[versions.length - 1]
    if (latest === undefined || payer === undefined) return yield* invalid("no version")
    // the signature of any version names the payout: the latest in flight, the one that landed once settled
    if (!versions.some((version) => version.signature === prepared.transactionHash)) {
      return yield* invalid("hash differs")
    }
    return {
      job,
      versions: versions as unknown as readonly [Version, ...Array<Version>],
      latest,
      payer,
      lastValidBlockHeight: Math.max(...versions.map((v) => v.lastValidBlockHeight))
    }
  })
}
