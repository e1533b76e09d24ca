/**
 * A payout or a sweep as core persists it: every version the gateway signed, as JSON. A leg is
 * the versions one signer signed at one nonce (fees in wei as decimal strings, `signedAt`
 * ISO-8601), the latest last:
 *
 * - a payout, `{ v: 2, chainId, from, nonce, versions: [{ serialized, kind, maxFeePerGas,
 *   maxPriorityFeePerGas, signedAt }] }`, one leg; rows written before replacements existed,
 *   `{ v: 1, chainId, from, nonce, serialized }`, are read as one `transfer` version whose signing
 *   time is unknown (the epoch);
 * - a sweep, `{ v: 3, kind: "sweep", chainId, topUp: leg | null, transfer: leg }` with
 *   `leg = { from, nonce, versions }`: the hot wallet's gas top-up of the funding address (none
 *   when the address already holds the gas) and the funding address's token transfer. The prepared
 *   hash is the transfer's.
 *
 * Reading it back checks it against itself (each version's bytes are a transaction signed by its
 * leg's signer for this chain id at the leg's nonce, with the fees and the kind recorded; a
 * top-up sends ether to the transfer's signer and nothing else; the prepared hash is one of the
 * versions named), because `lookupPayout` answers `Failed` from a signer's nonce and a
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

const LegWire = Schema.Struct({
  from: Schema.String,
  nonce: Schema.Int,
  versions: Schema.NonEmptyArray(VersionWire)
})

const V3 = Schema.Struct({
  v: Schema.Literal(3),
  kind: Schema.Literal("sweep"),
  chainId: Schema.Int,
  topUp: Schema.NullOr(LegWire),
  transfer: LegWire
})

const Wire = Schema.fromJsonString(Schema.Union([V1, V2, V3]))
/** The stored JSON, any format. */
export type Wire = typeof Wire.Type

/** Writes a row in any format (tests write v1 rows with it; the gateway writes v2 and v3 through `prepared` and `preparedSweep`). */
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

/** The versions one signer signed at one nonce: at most one of them can ever be mined. */
export interface Leg {
  readonly chainId: number
  /** The signer, lowercase. */
  readonly from: Address
  readonly nonce: number
  /** Oldest first; the last is the one broadcast. */
  readonly versions: readonly [Version, ...Array<Version>]
}

/** A payout is one leg of the hot wallet. */
export type Payout = Leg

export interface Sweep {
  /** The hot wallet's ether to the funding address, for the transfer's gas; null when it held enough. */
  readonly topUp: Leg | null
  /** The funding address's token transfer (one version: it is never replaced). */
  readonly transfer: Leg
}

export type Job =
  | { readonly _tag: "Payout"; readonly payout: Payout }
  | { readonly _tag: "Sweep"; readonly sweep: Sweep }

export const latest = (leg: Leg): Version => leg.versions[leg.versions.length - 1]!

/** What a new version records besides its bytes. */
export interface Signed {
  readonly serialized: Hex
  readonly kind: Kind
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
  readonly signedAt: number
}

export interface Header {
  readonly chainId: number
  readonly from: string
  readonly nonce: number
}

const versionsWire = (versions: readonly [Signed, ...Array<Signed>]) =>
  Arr.map(versions, (s) => ({
    serialized: s.serialized,
    kind: s.kind,
    maxFeePerGas: s.maxFeePerGas.toString(),
    maxPriorityFeePerGas: s.maxPriorityFeePerGas.toString(),
    signedAt: DateTime.formatIso(DateTime.makeUnsafe(s.signedAt))
  }))

const lastHash = (versions: readonly [Signed, ...Array<Signed>]) => keccak256(versions[versions.length - 1]!.serialized)

/** The prepared payout holding `versions` (oldest first, all at `nonce`): the hash is the last one's. */
export const prepared = (
  header: Header,
  versions: readonly [Signed, ...Array<Signed>]
): ChainGateway.PreparedPayout => ({
  transactionHash: lastHash(versions),
  persisted: encode({
    v: 2,
    chainId: header.chainId,
    from: header.from.toLowerCase(),
    nonce: header.nonce,
    versions: versionsWire(versions)
  })
})

export interface SignedLeg {
  readonly from: string
  readonly nonce: number
  readonly versions: readonly [Signed, ...Array<Signed>]
}

/** The prepared sweep: its top-up's versions (if any) and its transfer's; the hash is the transfer's. */
export const preparedSweep = (
  chainId: number,
  topUp: SignedLeg | null,
  transfer: SignedLeg
): ChainGateway.PreparedPayout => {
  const leg = (l: SignedLeg) => ({ from: l.from.toLowerCase(), nonce: l.nonce, versions: versionsWire(l.versions) })
  return {
    transactionHash: lastHash(transfer.versions),
    persisted: encode({
      v: 3,
      kind: "sweep",
      chainId,
      topUp: topUp === null ? null : leg(topUp),
      transfer: leg(transfer)
    })
  }
}

/** A cancellation: nothing but the nonce, from the wallet to itself. */
const isCancellation = (from: string, to: string | undefined, value: bigint | undefined, data: Hex | undefined) =>
  to !== undefined && to.toLowerCase() === from && (value ?? 0n) === 0n && (data === undefined || data === "0x")

interface Recorded {
  readonly serialized: string
  readonly kind: Kind
  readonly fees: Option.Option<readonly [string, string]>
  readonly signedAt: number
}

const recordedOf = (versions: ReadonlyArray<typeof VersionWire.Type>): ReadonlyArray<Recorded> =>
  versions.map((v) => ({
    serialized: v.serialized,
    kind: v.kind,
    fees: Option.some([v.maxFeePerGas, v.maxPriorityFeePerGas] as const),
    signedAt: Option.match(DateTime.make(v.signedAt), { onNone: () => Number.NaN, onSome: DateTime.toEpochMillis })
  }))

export const read = (
  chain: string,
  chainId: number,
  prepared: ChainGateway.PreparedPayout
): Effect.Effect<Job, ChainGateway.ChainError> => {
  const invalid = (why: string) => chainError(chain, "invalid_prepared", `not a payout of this gateway: ${why}`)

  const readLeg = (header: Header, recorded: ReadonlyArray<Recorded>) =>
    Effect.gen(function* () {
      const from = header.from.toLowerCase()
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
          tx.nonce !== header.nonce ||
          tx.chainId !== header.chainId ||
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
      return {
        chainId: header.chainId,
        from: from as Address,
        nonce: header.nonce,
        versions: [first, ...rest]
      } satisfies Leg
    })

  // the hash of any version names the job: the latest while it is in flight, the mined one once settled
  const hash = prepared.transactionHash.toLowerCase()
  const named = (leg: Leg) => leg.versions.some((version) => version.hash === hash)

  return Effect.gen(function* () {
    const decoded = Schema.decodeUnknownOption(Wire)(prepared.persisted)
    if (Option.isNone(decoded)) return yield* invalid("unreadable")
    const wire = decoded.value
    if (wire.chainId !== chainId) return yield* invalid(`chain id ${wire.chainId}, the RPC's is ${chainId}`)
    if (wire.v !== 3) {
      const recorded: ReadonlyArray<Recorded> =
        wire.v === 1
          ? [{ serialized: wire.serialized, kind: "transfer", fees: Option.none(), signedAt: 0 }]
          : recordedOf(wire.versions)
      const payout = yield* readLeg(wire, recorded)
      if (!named(payout)) return yield* invalid("hash differs")
      return { _tag: "Payout", payout } satisfies Job
    }
    const transfer = yield* readLeg({ chainId, ...wire.transfer }, recordedOf(wire.transfer.versions))
    const topUp =
      wire.topUp === null ? null : yield* readLeg({ chainId, ...wire.topUp }, recordedOf(wire.topUp.versions))
    // the top-up's value and recipient are what the lookup books and a replacement copies
    const topUpValue = topUp?.versions[0].value
    const notTopUp = (v: Version) =>
      v.kind !== "transfer" || v.to !== transfer.from || v.data !== "0x" || v.value !== topUpValue
    if (transfer.versions.some((v) => v.kind !== "transfer") || topUp?.versions.some(notTopUp)) {
      return yield* invalid("the sweep's legs differ from what a sweep signs")
    }
    if (!named(transfer)) return yield* invalid("hash differs")
    return { _tag: "Sweep", sweep: { topUp, transfer } } satisfies Job
  })
}
