/**
 * Payouts from the hot wallet: prepare (check, build, sign), broadcast (send the persisted bytes;
 * again is harmless), look up (by signature status, and by blockhash expiry when nothing landed).
 *
 * A payout transaction is: create the destination's associated token account if missing (the
 * hot wallet pays the rent), `TransferChecked` from the hot wallet's associated account, and a
 * memo `ratelock:<payoutId>:<nonce>`. The memo names the payout on chain for reconciliation, and
 * its random nonce keeps two payouts (or two attempts at one) of the same amount to the same
 * wallet under the same blockhash from being one transaction with one signature.
 *
 * Broadcast runs the node's preflight simulation: a payout the hot wallet can no longer fund is
 * refused there (`insufficient_funds`) instead of landing as a failed transaction that burns a fee.
 * An "already processed" answer is success: the persisted transaction is on chain.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackAccount
} from "@solana/spl-token"
import { type Keypair, PublicKey, type SignatureStatus, Transaction, TransactionInstruction } from "@solana/web3.js"
import { BigDecimal, DateTime, Effect, Predicate, Random, Semaphore } from "effect"
import { Base64 } from "effect/encoding"
import * as Base58 from "../base58.ts"
import { chainError, checkAmount } from "../checks.ts"
import * as Errors from "./errors.ts"
import { checkServed, parseAddress, type SolanaNode, type Token, tokenOf } from "./node.ts"
import * as Persisted from "./persisted.ts"

export interface HotWallet {
  readonly keypair: Keypair
  /** Rent-exempt minimums: a new token account, and the wallet itself (0 bytes), which must stay exempt. */
  readonly rent: { readonly tokenAccount: bigint; readonly wallet: bigint }
}

const memoProgram = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
/** The base fee; the transaction has one signature and asks for no priority fee. */
const fee = 5000n
/** Signed payouts remembered per process (`preparePayout` twice yields one transaction). */
const memoLimit = 10_000

const fail = (reason: ChainGateway.FailureReason, message: string) => Effect.fail(chainError("solana", reason, message))

/** Words of the node's preflight (and of transaction errors) that mean the hot wallet lacks SOL or tokens. */
const insufficientWords =
  /insufficient funds|insufficient lamports|no record of a prior credit|custom program error: 0x1\b/i

/**
 * Why a payout transaction failed on chain. `Custom(1)` is the SPL Token program's
 * `InsufficientFunds` in the transfer, and the system program's in the account creation.
 */
export const failureReason = (error: unknown): ChainGateway.FailureReason => {
  if (error === "InsufficientFundsForFee" || (Predicate.isObject(error) && "InsufficientFundsForRent" in error)) {
    return "insufficient_funds"
  }
  const instruction = Predicate.isObject(error) && "InstructionError" in error ? error.InstructionError : undefined
  const cause = Array.isArray(instruction) ? instruction[1] : undefined
  if (cause === "InsufficientFunds" || (Predicate.isObject(cause) && "Custom" in cause && cause.Custom === 1)) {
    return "insufficient_funds"
  }
  return "reverted"
}

/** A refused `sendTransaction`: already on chain (success), or the reason it cannot land now. */
const sendFailure = (error: unknown): "already_processed" | ChainGateway.ChainError => {
  const words =
    Predicate.isObject(error) && "transactionMessage" in error && Predicate.isString(error.transactionMessage)
      ? error.transactionMessage
      : undefined
  if (words === undefined) return Errors.toChainError("broadcasting the payout", error)
  if (/already been processed/i.test(words)) return "already_processed"
  if (/blockhash not found/i.test(words)) {
    return chainError("solana", "blockhash_expired", `the node does not know the payout's blockhash: ${words}`)
  }
  if (insufficientWords.test(words)) {
    return chainError("solana", "insufficient_funds", `the hot wallet cannot fund the payout: ${words}`)
  }
  return chainError("solana", "reverted", `the node's simulation of the payout failed: ${words}`)
}

const levels = { processed: 0, confirmed: 1, finalized: 2 } as const

/** The status has reached the commitment (a status without one is finalized when it counts no confirmations). */
const reached = (status: SignatureStatus, commitment: SolanaNode["commitment"]) =>
  levels[status.confirmationStatus ?? (status.confirmations === null ? "finalized" : "processed")] >= levels[commitment]

export const make = (node: SolanaNode, hotWallet: HotWallet | undefined) =>
  Effect.gen(function* () {
    const connection = node.connection
    const signing = yield* Semaphore.make(1)
    // payoutId → what was signed for it; plain maps, touched only synchronously
    const memo = new Map<
      string,
      { readonly order: string; readonly prepared: ChainGateway.PreparedPayout; readonly lastValidBlockHeight: number }
    >()
    const forget = (transactionHash: string) => {
      for (const [payoutId, entry] of memo) {
        if (entry.prepared.transactionHash === transactionHash) memo.delete(payoutId)
      }
    }

    const sign = Effect.fnUntraced(function* (
      wallet: HotWallet,
      order: ChainGateway.PayoutOrder,
      token: Token,
      destination: PublicKey,
      units: bigint
    ) {
      const hot = wallet.keypair.publicKey
      const hotAccount = getAssociatedTokenAddressSync(token.mint, hot)
      const destinationAccount = getAssociatedTokenAddressSync(token.mint, destination, true)
      const [destinationInfo, destinationAccountInfo, hotInfo, hotAccountInfo] = yield* Errors.call(
        "reading the payout's accounts",
        () => connection.getMultipleAccountsInfo([destination, destinationAccount, hot, hotAccount], "confirmed")
      )
      // tokens paid "to" a token account, a mint or a program would sit where nobody can move them
      const owner = destinationInfo?.owner
      if (owner !== undefined && (owner.equals(TOKEN_PROGRAM_ID) || owner.equals(TOKEN_2022_PROGRAM_ID))) {
        return yield* fail("invalid_address", `${order.destination} is a token account or mint, not a wallet`)
      }
      if (destinationInfo?.executable === true) {
        return yield* fail("invalid_address", `${order.destination} is a program, not a wallet`)
      }
      const held = hotAccountInfo == null ? 0n : unpackAccount(hotAccount, hotAccountInfo).amount
      if (held < units) {
        const has = Money.format(BigDecimal.normalize(Money.fromBaseUnits(held, token.decimals)))
        return yield* fail("insufficient_funds", `the hot wallet holds ${has} ${token.currency}, the payout needs more`)
      }
      const lamports = BigInt(hotInfo?.lamports ?? 0)
      const needed = fee + (destinationAccountInfo == null ? wallet.rent.tokenAccount : 0n) + wallet.rent.wallet
      if (lamports < needed) {
        return yield* fail(
          "insufficient_funds",
          `the hot wallet holds ${lamports} lamports, fees and rent need ${needed}`
        )
      }
      const { blockhash, lastValidBlockHeight } = yield* Errors.call("reading a recent blockhash", () =>
        connection.getLatestBlockhash("confirmed")
      )
      const nonce = (yield* Random.nextIntBetween(0, 2 ** 48, { halfOpen: true })).toString(36)
      const transaction = new Transaction({ feePayer: hot, blockhash, lastValidBlockHeight }).add(
        createAssociatedTokenAccountIdempotentInstruction(hot, destinationAccount, destination, token.mint),
        createTransferCheckedInstruction(hotAccount, token.mint, destinationAccount, hot, units, token.decimals),
        new TransactionInstruction({
          programId: memoProgram,
          keys: [],
          data: Buffer.from(`ratelock:${order.payoutId.slice(0, 64)}:${nonce}`)
        })
      )
      transaction.sign(wallet.keypair)
      const bytes = transaction.serialize()
      const prepared: ChainGateway.PreparedPayout = {
        transactionHash: Base58.encode(transaction.signature!),
        persisted: Persisted.encode({ v: 1, transaction: Base64.encode(bytes), blockhash, lastValidBlockHeight })
      }
      return { prepared, lastValidBlockHeight }
    })

    const prepare = Effect.fnUntraced(function* (order: ChainGateway.PayoutOrder) {
      const token = yield* tokenOf(node, order.rail)
      const destination = yield* parseAddress(order.destination)
      yield* checkAmount(order.rail, order.amount, "payout")
      const units = Money.toBaseUnits(order.amount, token.decimals)
      if (!BigDecimal.equals(Money.fromBaseUnits(units, token.decimals), order.amount) || units >= 2n ** 64n) {
        const amount = Money.format(order.amount)
        return yield* fail("invalid_amount", `${amount} is not a whole number of ${token.currency} base units`)
      }
      if (hotWallet === undefined) return yield* fail("no_hot_wallet", "this gateway has no hot wallet key")
      const key = `${destination.toBase58()}:${units}:${token.mint.toBase58()}`
      return yield* signing.withPermits(1)(
        Effect.gen(function* () {
          const known = memo.get(order.payoutId)
          if (known !== undefined && known.order === key) {
            // still able to land: the same transaction; expired: it never can, so a new one is safe
            const height = yield* Errors.call("reading the block height", () => connection.getBlockHeight("confirmed"))
            if (height <= known.lastValidBlockHeight) return known.prepared
          }
          const signed = yield* sign(hotWallet, order, token, destination, units)
          memo.delete(order.payoutId)
          memo.set(order.payoutId, { order: key, ...signed })
          if (memo.size > memoLimit) memo.delete(memo.keys().next().value!)
          return signed.prepared
        })
      )
    })

    const broadcast = Effect.fnUntraced(function* (rail: ChainGateway.Rail, prepared: ChainGateway.PreparedPayout) {
      yield* checkServed(node, rail)
      const { bytes } = yield* Persisted.read(prepared)
      yield* Errors.attempt(() =>
        connection.sendRawTransaction(bytes, { skipPreflight: false, preflightCommitment: "confirmed" })
      ).pipe(
        Effect.catch((error) => {
          const failure = sendFailure(error)
          if (failure === "already_processed") return Effect.void
          // a repeat after the blockhash expired: the node no longer checks it against what landed,
          // so the signature says whether this is the harmless repeat of a landed transaction
          return failure.reason === "blockhash_expired"
            ? Effect.flatMap(landed(prepared.transactionHash), (found) => (found ? Effect.void : Effect.fail(failure)))
            : Effect.fail(failure)
        })
      )
    })

    /** Whether the transaction is on chain (at any commitment, failed or not). */
    const landed = (signature: string) =>
      Effect.map(
        Errors.call("reading the payout's status", () =>
          connection.getSignatureStatuses([signature], { searchTransactionHistory: true })
        ),
        (statuses) => (statuses.value[0] ?? null) !== null
      )

    const lookup = Effect.fnUntraced(function* (
      rail: ChainGateway.Rail,
      prepared: ChainGateway.PreparedPayout
    ): Effect.fn.Return<ChainGateway.PayoutLookup, ChainGateway.ChainError> {
      yield* checkServed(node, rail)
      const { lastValidBlockHeight } = yield* Persisted.read(prepared)
      // the finalized height before the status: once it is past the blockhash's last valid height,
      // no block that could still include the transaction exists, so a status read afterwards that
      // finds nothing means it never landed (read the other way round, it could land in between)
      const height = yield* Errors.call("reading the block height", () => connection.getBlockHeight("finalized"))
      const statuses = yield* Errors.call("reading the payout's status", () =>
        connection.getSignatureStatuses([prepared.transactionHash], { searchTransactionHistory: true })
      )
      const status = statuses.value[0] ?? null
      if (status === null) {
        if (height <= lastValidBlockHeight) return { _tag: "Unknown" }
        forget(prepared.transactionHash)
        return { _tag: "Failed", reason: "blockhash_expired" }
      }
      // a result below the commitment may still be rolled back, an error included
      if (!reached(status, node.commitment)) return { _tag: "Pending" }
      if (status.err !== null) {
        forget(prepared.transactionHash)
        return { _tag: "Failed", reason: failureReason(status.err) }
      }
      return { _tag: "Confirmed", blockNumber: status.slot, confirmedAt: yield* DateTime.now }
    })

    return { prepare, broadcast, lookup }
  })
