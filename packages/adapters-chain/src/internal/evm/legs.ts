/**
 * What payouts and sweeps do alike with a leg (the versions one signer signed at one nonce, of
 * which at most one can ever be mined): sign a version locally, broadcast the latest, find the
 * mined one, settle the leg at depth, sign it again at higher fees, list its versions.
 *
 * Settling answers `Consumed` only when no version can ever be mined any more, both facts at
 * depth: the signer's nonce count at the safe block is past the nonce and no version has a
 * receipt (read again after the count, so a version mined in between is never missed).
 *
 * A replacement keeps the nonce and the call (value included), both fees at least 12.5 % above
 * the version it replaces and at least what the chain asks now, never above the operator's cap.
 * It does no broadcasting: core persists the answer first.
 */
import type { ChainGateway } from "@ratelock/core"
import { Clock, DateTime, Effect } from "effect"
import type { Address, Hash, Hex, PrivateKeyAccount, TransactionReceipt } from "viem"
import { chainError } from "../checks.ts"
import * as Errors from "./errors.ts"
import { type Asks, asksOf, type FeePolicy, type Fees, gwei, raised, replacementFees } from "./fees.ts"
import { type EvmNode, safeBlock } from "./node.ts"
import * as Persisted from "./persisted.ts"

/** What a leg's signed versions call. */
export interface Call {
  readonly to: Address
  readonly data: Hex
  readonly value: bigint
  readonly gas: bigint
}

/** A leg as the chain has it, at depth. */
export type Settled =
  /** A version is mined at depth (successful or reverted: the receipt says). */
  | { readonly _tag: "Mined"; readonly version: Persisted.Version; readonly receipt: TransactionReceipt }
  /** A version is mined, not yet at depth. */
  | { readonly _tag: "Shallow" }
  /** The nonce is taken at depth by none of the versions: none can ever be mined. */
  | { readonly _tag: "Consumed" }
  | { readonly _tag: "Unmined" }

export type Replaced =
  | { readonly _tag: "Replaced"; readonly signed: Persisted.Signed }
  | { readonly _tag: "Waiting"; readonly reason: ChainGateway.PayoutWait; readonly message: string }

/** A cancellation's gas: a plain transfer of nothing (as a top-up's: ether to an address without code). */
export const plainTransferGas = 21_000n

/** What a mined transaction paid in wei: the gas it used at the price it paid. */
export const feeOf = (receipt: TransactionReceipt): bigint => receipt.gasUsed * receipt.effectiveGasPrice

export const waiting = (reason: ChainGateway.PayoutWait, message: string) =>
  ({ _tag: "Waiting", reason, message }) as const

export const make = (node: EvmNode, policy: FeePolicy) => {
  const { chain, client } = node
  const call = <A>(what: string, f: () => Promise<A>) => Errors.call(chain, what, f)
  const cap = policy.maxFeePerGas

  const receiptOf = (hash: Hash) =>
    call("reading a receipt", () =>
      client.getTransactionReceipt({ hash }).catch((e: unknown) => {
        if (e instanceof Error && e.name === "TransactionReceiptNotFoundError") return null
        throw e
      })
    )

  /** The first version with a receipt (the versions share a nonce: at most one is mined). */
  const minedVersion = (leg: Persisted.Leg) =>
    Effect.map(
      Effect.forEach(leg.versions, (v) => Effect.map(receiptOf(v.hash), (receipt) => ({ version: v, receipt })), {
        concurrency: "unbounded"
      }),
      (found) => {
        const mined = found.find((f) => f.receipt !== null)
        return mined === undefined ? null : { version: mined.version, receipt: mined.receipt! }
      }
    )

  const nodeKnows = (hash: Hash) =>
    call("reading a transaction", () =>
      client.getTransaction({ hash }).then(
        () => true,
        (e: unknown) => {
          if (e instanceof Error && e.name === "TransactionNotFoundError") return false
          throw e
        }
      )
    )

  const nodeKnowsAny = (legs: ReadonlyArray<Persisted.Leg>) =>
    Effect.map(
      Effect.forEach(
        legs.flatMap((leg) => leg.versions),
        (v) => nodeKnows(v.hash),
        { concurrency: "unbounded" }
      ),
      (known) => known.some((k) => k)
    )

  /** The hot wallet as core's store allocates its nonces: its count at the latest block, and the pending one. */
  const nonceAccount = (wallet: Address) =>
    Effect.map(
      Effect.all(
        [
          call("reading the hot wallet's nonce", () =>
            client.getTransactionCount({ address: wallet, blockTag: "latest" })
          ),
          call("reading the hot wallet's pending nonce", () =>
            client.getTransactionCount({ address: wallet, blockTag: "pending" })
          )
        ],
        { concurrency: "unbounded" }
      ),
      ([floor, pending]): ChainGateway.NonceAccount => ({ signer: wallet.toLowerCase(), floor, pending })
    )

  /** The head's base fee and the node's tip. */
  const readAsks: Effect.Effect<Asks, ChainGateway.ChainError> = Effect.map(
    Effect.all(
      [
        call("reading the latest block", () => client.getBlock({ blockTag: "latest" })),
        call("reading the priority fee", () => client.estimateMaxPriorityFeePerGas())
      ],
      { concurrency: "unbounded" }
    ),
    ([block, tip]) => asksOf(block.baseFeePerGas ?? 0n, tip)
  )

  /** A version signed locally (the key signs in memory, no RPC). */
  const signAt = (account: PrivateKeyAccount, nonce: number, target: Call, fees: Fees, kind: Persisted.Kind) =>
    Effect.gen(function* () {
      const signedAt = yield* Clock.currentTimeMillis
      const serialized = yield* Effect.promise(() =>
        account.signTransaction({
          type: "eip1559",
          chainId: node.chainId,
          nonce,
          to: target.to,
          data: target.data,
          value: target.value,
          gas: target.gas,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas
        })
      )
      return { serialized, kind, ...fees, signedAt } satisfies Persisted.Signed
    })

  /**
   * Sends the latest version. Already known, or the nonce taken by one of the versions, is a
   * success; a refused fee is `fee_too_low`; the nonce held by another transaction is
   * `nonce_consumed` / `nonce_conflict`.
   */
  const broadcast = Effect.fnUntraced(function* (leg: Persisted.Leg, what: string) {
    const latest = Persisted.latest(leg)
    const sent = yield* Effect.result(
      Errors.attempt(() => client.sendRawTransaction({ serializedTransaction: latest.serialized as never }))
    )
    if (sent._tag === "Success") return
    const failure = sent.failure
    if (failure._tag !== "Node") return yield* Errors.toChainError(chain, `broadcasting ${what}`, failure)
    const message = `broadcasting ${what}: ${failure.message}`
    const rejection = Errors.rejection(failure.message)
    switch (rejection) {
      case "duplicate":
        return
      case "insufficient_funds":
        return yield* chainError(chain, "insufficient_funds", message)
      case "fee_too_low":
        return yield* chainError(
          chain,
          "fee_too_low",
          `${message} (it pays at most ${gwei(latest.maxFeePerGas)} gwei per gas)`
        )
      case "nonce_taken":
      case "nonce_conflict": {
        // a version already mined, or the latest already held by the node: the broadcast has nothing to add
        if ((yield* minedVersion(leg)) !== null || (yield* nodeKnows(latest.hash))) return
        const reason = rejection === "nonce_taken" ? "nonce_consumed" : "nonce_conflict"
        return yield* chainError(chain, reason, `${message} (nonce ${leg.nonce} holds another transaction)`)
      }
    }
    return yield* Errors.toChainError(chain, `broadcasting ${what}`, failure)
  })

  /** The leg at depth, from the head block read by the caller (before the receipts). */
  const settle = Effect.fnUntraced(function* (
    leg: Persisted.Leg,
    headBlock: number
  ): Effect.fn.Return<Settled, ChainGateway.ChainError> {
    const mined = yield* minedVersion(leg)
    if (mined !== null) {
      // a shallow receipt may still be reorganised away, whatever its status
      if (headBlock - Number(mined.receipt.blockNumber) + 1 < node.confirmations) return { _tag: "Shallow" }
      return { _tag: "Mined", ...mined }
    }
    const safe = safeBlock(node, headBlock)
    if (safe >= 0) {
      const minedAtDepth = yield* call("reading the signer's nonce", () =>
        client.getTransactionCount({ address: leg.from, blockNumber: BigInt(safe) })
      )
      // read the receipts again: one may have appeared since, and Consumed must never be said of a mined version
      if (minedAtDepth > leg.nonce && (yield* minedVersion(leg)) === null) return { _tag: "Consumed" }
    }
    return { _tag: "Unmined" }
  })

  /**
   * A new version of a hot wallet's leg not mined, or why it waits. `due`: only once the latest
   * version is `replaceAfterMillis` old and priced below what the chain asks, and not while an
   * earlier nonce of the wallet is unmined; `bump`: now; `cancel`: a 0-value transaction to itself.
   */
  const replace = Effect.fnUntraced(function* (
    leg: Persisted.Leg,
    wallet: PrivateKeyAccount,
    mode: ChainGateway.ReplaceMode
  ): Effect.fn.Return<Replaced, ChainGateway.ChainError> {
    if (wallet.address.toLowerCase() !== leg.from) {
      return yield* chainError(
        chain,
        "invalid_prepared",
        `the transaction was signed by ${leg.from}, not by the configured hot wallet: it cannot be replaced`
      )
    }
    const latest = Persisted.latest(leg)
    const [asks, count, mined] = yield* Effect.all(
      [
        readAsks,
        call("reading the hot wallet's nonce", () =>
          client.getTransactionCount({ address: leg.from, blockTag: "latest" })
        ),
        minedVersion(leg)
      ],
      { concurrency: "unbounded" }
    )
    if (mined !== null) {
      return waiting(
        "mining",
        `version ${mined.version.hash} was mined in block ${mined.receipt.blockNumber}: nothing to replace`
      )
    }
    if (count > leg.nonce) {
      // consumed, by no version we could find yet (or one mined since): the lookup settles it at depth
      return waiting("mining", `nonce ${leg.nonce} is already taken on chain: the lookup decides at depth`)
    }
    const asked = `the chain asks ${gwei(asks.maxFeePerGas)} gwei (base fee ${gwei(asks.baseFee)} × 2 + tip ${gwei(asks.tip)})`
    if (mode === "due") {
      if (count < leg.nonce) {
        return waiting(
          "behind_nonce",
          `nonce ${leg.nonce} waits for the hot wallet's nonce ${count} (and any between) to be mined`
        )
      }
      const age = (yield* Clock.currentTimeMillis) - latest.signedAt
      // priced out already at the cap: no replacement can help, whatever its age; say so now
      if (latest.maxFeePerGas < asks.maxFeePerGas && replacementFees(latest, asks, cap) === null) {
        return waiting(
          "fee_cap",
          `${asked}, and version ${latest.hash} pays up to ${gwei(latest.maxFeePerGas)} gwei: the cap ${policy.capSetting} is ${gwei(cap)} gwei`
        )
      }
      if (age < policy.replaceAfterMillis || latest.maxFeePerGas >= asks.maxFeePerGas) {
        return waiting(
          "mining",
          `version ${latest.hash} pays up to ${gwei(latest.maxFeePerGas)} gwei, signed ${Math.floor(age / 1000)} s ago; ${asked}`
        )
      }
    }
    const fees = replacementFees(latest, asks, cap)
    if (fees === null) {
      return waiting(
        "fee_cap",
        `${asked}, and a replacement of ${gwei(latest.maxFeePerGas)} gwei must pay at least ${gwei(raised(latest.maxFeePerGas))} gwei; the cap ${policy.capSetting} is ${gwei(cap)} gwei`
      )
    }
    const kind: Persisted.Kind = mode === "cancel" ? "cancel" : latest.kind
    const target: Call =
      kind === "cancel"
        ? { to: leg.from, data: "0x", value: 0n, gas: plainTransferGas }
        : { to: latest.to, data: latest.data, value: latest.value, gas: latest.gas }
    return { _tag: "Replaced", signed: yield* signAt(wallet, leg.nonce, target, fees, kind) } satisfies Replaced
  })

  /** Every version of the legs, for an operator. */
  const versions = (legs: ReadonlyArray<Persisted.Leg>) =>
    legs.flatMap((leg) =>
      leg.versions.map(
        (v): ChainGateway.PayoutVersion => ({
          transactionHash: v.hash,
          nonce: leg.nonce,
          kind: v.kind,
          fees: {
            max_fee_per_gas_gwei: gwei(v.maxFeePerGas),
            max_priority_fee_per_gas_gwei: gwei(v.maxPriorityFeePerGas)
          },
          signedAt: DateTime.makeUnsafe(v.signedAt)
        })
      )
    )

  /** What the chain asks now, by the names `inspectPayout` gives fees, and the cap. */
  const inspect = (legs: ReadonlyArray<Persisted.Leg>) =>
    Effect.map(
      readAsks,
      (asks): ChainGateway.PayoutInspection => ({
        versions: versions(legs),
        chainAsks: {
          base_fee_gwei: gwei(asks.baseFee),
          max_fee_per_gas_gwei: gwei(asks.maxFeePerGas),
          max_priority_fee_per_gas_gwei: gwei(asks.tip),
          cap_gwei: gwei(cap)
        }
      })
    )

  return {
    call,
    cap,
    nonceAccount,
    receiptOf,
    minedVersion,
    nodeKnowsAny,
    readAsks,
    signAt,
    broadcast,
    settle,
    replace,
    inspect
  }
}

export type Legs = ReturnType<typeof make>

/** `sign` at the nonce the store allocated: a draft of the hot wallet is never signed without one. */
export const atNonce = <A, E>(nonce: number | null, what: string, sign: (nonce: number) => Effect.Effect<A, E>) =>
  nonce === null || !Number.isSafeInteger(nonce) || nonce < 0
    ? Effect.die(new Error(`an EVM ${what} is signed at a nonce, got ${nonce}`))
    : sign(nonce)

/** Why nothing can be signed without the hot wallet's key. */
export const noHotWallet = (node: EvmNode) =>
  chainError(node.chain, "no_hot_wallet", `no hot wallet key is configured for ${node.chain} ${node.environment}`)
