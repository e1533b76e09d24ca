/**
 * Payouts from the hot wallet: sign (check, price, build, sign), broadcast (send the latest
 * persisted version; again is harmless), look up (every version's signature status, and the
 * blockhashes' expiry when nothing landed), sign again once expired, inspect, and the hot wallet's
 * balances.
 *
 * The transaction a payout is, and how a version of it is checked, signed and read back to be
 * signed again, is `payoutTransaction.ts`.
 *
 * Sweeps (`sweeps.ts`) are persisted jobs of the same kind: broadcast, looked up and inspected
 * here alike, signed again by their own code. A confirmed lookup of either carries what the landed
 * version moved in SOL (`native.ts`).
 *
 * Signing again: Solana has no nonce that two versions of a payout could share, so two versions
 * that can both land could both pay. A new version is signed only once the finalized block height
 * is past every earlier version's last valid block height and none of their signatures has a
 * status (read in that order: a status read after the height cannot miss a version that landed),
 * at a higher price. Before that, a payout waits ("mining"), whatever is asked; a cancellation
 * does not exist on Solana.
 *
 * Broadcast runs the node's preflight simulation: a payout the hot wallet can no longer fund is
 * refused there (`insufficient_funds`) instead of landing as a failed transaction that burns a fee.
 * An "already processed" answer is success: the persisted transaction is on chain.
 */
import { ChainGateway, Money, type Rail } from "@ratelock/core"
import { getAssociatedTokenAddressSync } from "@solana/spl-token"
import type { SignatureStatus } from "@solana/web3.js"
import { DateTime, Effect, Predicate, Semaphore } from "effect"
import { chainError } from "../checks.ts"
import * as Balances from "./balances.ts"
import * as Errors from "./errors.ts"
import { transactionOf } from "./funding.ts"
import * as Memo from "./memo.ts"
import * as Native from "./native.ts"
import { checkServed, parseAddress, type SolanaNode, tokenOf, unitsOf } from "./node.ts"
import * as PayoutTransaction from "./payoutTransaction.ts"
import * as Persisted from "./persisted.ts"
import * as Signing from "./signing.ts"

/** Signs a sweep's next version (`sweeps.ts`): the hot wallet, the persisted sweep, its funding index. */
export type ResignSweep = (
  wallet: Signing.HotWallet,
  read: Persisted.Read,
  fundingIndex: number
) => Effect.Effect<Persisted.StoredVersion, ChainGateway.ChainError>

/** Signed payouts remembered per process (`preparePayout` twice yields one transaction). */
const memoLimit = 10_000
/** `getSignatureStatuses` answers for at most this many signatures per call. */
const statusPage = 256
/** The signing time of a version persisted before versions were: not kept, shown as the epoch. */
const unknownTime = DateTime.makeUnsafe(0)

const fail = (reason: ChainGateway.FailureReason, message: string) => Effect.fail(chainError("solana", reason, message))

/** Words of the node's preflight (and of transaction errors) that mean the hot wallet lacks SOL or tokens. */
const insufficientWords =
  /insufficient funds|insufficient lamports|no record of a prior credit|custom program error: 0x1\b/i

/**
 * A refused `sendTransaction` of a job (`what`: payout, sweep): already on chain (success), or the
 * reason it cannot land now.
 */
const sendFailure = (error: unknown, what: string): "already_processed" | ChainGateway.ChainError => {
  const words =
    Predicate.isObject(error) && "transactionMessage" in error && Predicate.isString(error.transactionMessage)
      ? error.transactionMessage
      : undefined
  if (words === undefined) return Errors.toChainError(`broadcasting the ${what}`, error)
  if (/already been processed/i.test(words)) return "already_processed"
  if (/blockhash not found/i.test(words)) {
    return chainError("solana", "blockhash_expired", `the node does not know the ${what}'s blockhash: ${words}`)
  }
  if (insufficientWords.test(words)) {
    return chainError("solana", "insufficient_funds", `the ${what}'s accounts cannot fund it: ${words}`)
  }
  return chainError("solana", "reverted", `the node's simulation of the ${what} failed: ${words}`)
}

const levels = { processed: 0, confirmed: 1, finalized: 2 } as const

/** The status has reached the commitment (a status without one is finalized when it counts no confirmations). */
const reached = (status: SignatureStatus, commitment: SolanaNode["commitment"]) =>
  levels[status.confirmationStatus ?? (status.confirmations === null ? "finalized" : "processed")] >= levels[commitment]

export const make = (
  node: SolanaNode,
  hotWallet: Signing.HotWallet | undefined,
  signer: Signing.Signer,
  resignSweep: ResignSweep
) =>
  Effect.gen(function* () {
    const connection = node.connection
    const transactions = PayoutTransaction.make(node, signer)
    const signing = yield* Semaphore.make(1)
    // payoutId → its latest signed version; a plain map, touched only synchronously
    const memo = new Map<string, { readonly order: string; readonly prepared: ChainGateway.PreparedPayout }>()
    /** The memo entry holding any of `signatures`, replaced by `next` (or removed). */
    const remember = (signatures: ReadonlyArray<string>, next: ChainGateway.PreparedPayout | undefined) => {
      for (const [payoutId, entry] of memo) {
        if (!signatures.includes(entry.prepared.transactionHash)) continue
        if (next === undefined) memo.delete(payoutId)
        else memo.set(payoutId, { ...entry, prepared: next })
      }
    }

    /** The statuses of `signatures`, in order (null: the node never saw it). */
    const statusesOf = (signatures: ReadonlyArray<string>) =>
      Effect.map(
        Effect.forEach(
          Array.from({ length: Math.ceil(signatures.length / statusPage) }, (_, i) =>
            signatures.slice(i * statusPage, (i + 1) * statusPage)
          ),
          (page) =>
            Errors.call("reading the payout's status", () =>
              connection.getSignatureStatuses(page, { searchTransactionHistory: true })
            )
        ),
        (pages) => pages.flatMap((page) => page.value)
      )

    /**
     * The finalized block height, then every version's status: once the height is past every
     * version's last valid height, no block that could still include one exists, so a status read
     * afterwards that finds nothing means none landed (read the other way round, one could land in
     * between).
     */
    const observe = Effect.fnUntraced(function* (read: Persisted.Read) {
      const height = yield* Errors.call("reading the block height", () => connection.getBlockHeight("finalized"))
      const statuses = yield* statusesOf(read.versions.map((version) => version.signature))
      const landed = read.versions.flatMap((version, i) => {
        const status = statuses[i] ?? null
        return status === null ? [] : [{ version, status }]
      })
      return { height, landed, expired: height > read.lastValidBlockHeight }
    })

    const validate = Effect.fnUntraced(function* (order: ChainGateway.PayoutOrder) {
      const token = yield* tokenOf(node, order.rail)
      const destination = yield* parseAddress(order.destination)
      const units = yield* unitsOf(order.rail, token, order.amount, "payout")
      if (hotWallet === undefined) return yield* fail("no_hot_wallet", "this gateway has no hot wallet key")
      const plan: PayoutTransaction.Plan = { memoId: Memo.idOf(order.payoutId), token, destination, units }
      return { wallet: hotWallet, plan }
    })

    /**
     * The payout signed, or what this process signed for it before while that can still land, or
     * has landed (one payout, one transaction; signed anew only once the earlier one can no longer
     * land and never did, the same rule as a new version).
     */
    const signOnce = (order: ChainGateway.PayoutOrder, wallet: Signing.HotWallet, plan: PayoutTransaction.Plan) =>
      signing.withPermits(1)(
        Effect.gen(function* () {
          const key = `${plan.destination.toBase58()}:${plan.units}:${plan.token.mint.toBase58()}`
          const known = memo.get(order.payoutId)
          if (known !== undefined && known.order === key) {
            const read = yield* Persisted.read(known.prepared)
            const seen = yield* observe(read)
            // reused while it can still land, or once it landed without an error; one that failed on
            // chain was reported failed, and the payout's retry must be a new transaction
            const failedOnChain = seen.landed.some(({ status }) => status.err !== null)
            if (!failedOnChain && (!seen.expired || seen.landed.length > 0)) return known.prepared
          }
          const version = yield* transactions.sign(wallet, plan, null, order.committed)
          const prepared: ChainGateway.PreparedPayout = {
            transactionHash: version.signature,
            persisted: Persisted.encode(Persisted.payout, [], version)
          }
          memo.delete(order.payoutId)
          memo.set(order.payoutId, { order: key, prepared })
          if (memo.size > memoLimit) memo.delete(memo.keys().next().value!)
          return prepared
        })
      )

    const draft = Effect.fnUntraced(function* (order: ChainGateway.PayoutOrder) {
      const { wallet, plan } = yield* validate(order)
      // no nonce on Solana: signing (a fresh blockhash, the price of the moment) is the preparing
      return ChainGateway.withoutNonce(signOnce(order, wallet, plan))
    })

    const broadcast = Effect.fnUntraced(function* (rail: ChainGateway.Rail, prepared: ChainGateway.PreparedPayout) {
      yield* checkServed(node, rail)
      const read = yield* Persisted.read(prepared)
      yield* Errors.attempt(() =>
        connection.sendRawTransaction(read.latest.bytes, { skipPreflight: false, preflightCommitment: "confirmed" })
      ).pipe(
        Effect.catch((error) => {
          const failure = sendFailure(error, read.job.kind)
          if (failure === "already_processed") return Effect.void
          // a repeat after the blockhash expired: the node no longer checks it against what landed,
          // so the signatures say whether this is the harmless repeat of a landed version
          return failure.reason === "blockhash_expired"
            ? Effect.flatMap(statusesOf(read.versions.map((v) => v.signature)), (statuses) =>
                statuses.some((status) => status !== null) ? Effect.void : Effect.fail(failure)
              )
            : Effect.fail(failure)
        })
      )
    })

    const lookup = Effect.fnUntraced(function* (
      rail: ChainGateway.Rail,
      prepared: ChainGateway.PreparedPayout
    ): Effect.fn.Return<ChainGateway.PayoutLookup, ChainGateway.ChainError> {
      yield* checkServed(node, rail)
      const read = yield* Persisted.read(prepared)
      const { landed, expired } = yield* observe(read)
      // a result below the commitment may still be rolled back, an error included
      const settled = landed.filter(({ status }) => reached(status, node.commitment))
      const paid = settled.find(({ status }) => status.err === null)
      if (paid !== undefined) {
        const { transaction } = yield* transactionOf(node, paid.version.signature)
        return {
          _tag: "Confirmed",
          blockNumber: paid.status.slot,
          confirmedAt: yield* DateTime.now,
          transactionHash: paid.version.signature,
          cancelled: false,
          native: yield* Native.movementOf(transaction)
        }
      }
      const failed = settled[0]
      if (failed !== undefined) {
        remember(
          read.versions.map((v) => v.signature),
          undefined
        )
        // executed and failed: the fee was still paid
        const { transaction } = yield* transactionOf(node, failed.version.signature)
        return {
          _tag: "Failed",
          reason: Errors.failureReason(failed.status.err),
          native: yield* Native.movementOf(transaction)
        }
      }
      if (landed.length > 0) return { _tag: "Pending" }
      // nothing landed and nothing can any more: safe to sign again (`replacePayout` does)
      return expired ? { _tag: "Unknown" } : { _tag: "Pending" }
    })

    const waiting = (reason: ChainGateway.PayoutWait, message: string): ChainGateway.Replacement => ({
      _tag: "Waiting",
      reason,
      message
    })

    const replace = Effect.fnUntraced(function* (
      rail: ChainGateway.Rail,
      prepared: ChainGateway.PreparedPayout,
      mode: ChainGateway.ReplaceMode
    ): Effect.fn.Return<ChainGateway.Replacement, ChainGateway.ChainError> {
      yield* checkServed(node, rail)
      if (mode === "cancel") {
        return yield* fail(
          "unsupported",
          "Solana has no cancellation: a signed payout cannot be revoked, it lands or its blockhash expires " +
            "(about 150 blocks, a minute or two); it is signed again only after that"
        )
      }
      const read = yield* Persisted.read(prepared)
      if (hotWallet === undefined) return yield* fail("no_hot_wallet", "this gateway has no hot wallet key")
      const hot = hotWallet.keypair.publicKey
      if (!read.payer.equals(hot)) {
        return yield* fail(
          "invalid_prepared",
          `the payout was signed by ${read.payer.toBase58()}, not this gateway's hot wallet: only it can sign it again`
        )
      }
      const { height, landed, expired } = yield* observe(read)
      const first = landed[0]
      if (first !== undefined) {
        return waiting(
          "mining",
          `version ${first.version.signature} is on chain (slot ${first.status.slot}): it counts at ${node.commitment}`
        )
      }
      if (!expired) {
        const until = `it can land until block height ${read.lastValidBlockHeight} (finalized height now ${height})`
        return waiting(
          "mining",
          mode === "bump"
            ? `Solana signs a payout again only once its blockhash expired, so that two versions can never both land: ${until}`
            : `broadcast and waiting for a block: ${until}`
        )
      }
      const job = read.job
      const signed = yield* Effect.result(
        job.kind === "sweep"
          ? resignSweep(hotWallet, read, job.fundingIndex)
          : Effect.flatMap(transactions.planOf(read.latest, hot), (plan) =>
              transactions.sign(hotWallet, plan, read.latest.computeUnitPrice)
            )
      )
      if (signed._tag === "Failure") {
        if (signed.failure.reason === "insufficient_funds") return waiting("insufficient_funds", signed.failure.message)
        return yield* Effect.fail(signed.failure)
      }
      const next: ChainGateway.PreparedPayout = {
        transactionHash: signed.success.signature,
        persisted: Persisted.encode(
          job,
          read.versions.map((v) => v.stored),
          signed.success
        )
      }
      remember(
        read.versions.map((v) => v.signature),
        next
      )
      return { _tag: "Replaced", prepared: next }
    })

    const inspect = Effect.fnUntraced(function* (
      rail: ChainGateway.Rail,
      prepared: ChainGateway.PreparedPayout
    ): Effect.fn.Return<ChainGateway.PayoutInspection, ChainGateway.ChainError> {
      yield* checkServed(node, rail)
      const read = yield* Persisted.read(prepared)
      const ask = yield* signer.asked(Signing.writableAccounts(read.latest.transaction))
      return {
        versions: read.versions.map((version) => ({
          transactionHash: version.signature,
          nonce: null,
          kind: "transfer",
          fees: {
            compute_unit_price_micro_lamports: String(version.computeUnitPrice),
            // a version persisted before versions set no limit: the runtime's default applied
            compute_unit_limit: version.computeUnitLimit === null ? "default" : String(version.computeUnitLimit)
          },
          signedAt: version.signedAt ?? unknownTime
        })),
        chainAsks: {
          compute_unit_price_micro_lamports: String(ask),
          cap_micro_lamports: String(signer.policy.maxPrice)
        }
      }
    })

    const wallet = Effect.fnUntraced(function* (
      rail: Pick<ChainGateway.Rail, "chain" | "environment">
    ): Effect.fn.Return<ChainGateway.HotWallet | null, ChainGateway.ChainError> {
      yield* checkServed(node, rail)
      if (hotWallet === undefined) return null
      const hot = hotWallet.keypair.publicKey
      const tokens = [...node.tokens.values()]
      const accounts = tokens.map((token) => getAssociatedTokenAddressSync(token.mint, hot))
      const [lamports, infos] = yield* Effect.all(
        [
          Errors.call("reading the hot wallet's balance", () => connection.getBalance(hot, "confirmed")),
          Errors.call("reading the hot wallet's token accounts", () =>
            accounts.length === 0 ? Promise.resolve([]) : connection.getMultipleAccountsInfo(accounts, "confirmed")
          )
        ],
        { concurrency: 2 }
      )
      const balances: Array<{ readonly asset: "NATIVE" | Rail.FundsCurrency; readonly amount: Money.Decimal }> = [
        { asset: "NATIVE", amount: Money.fromBaseUnits(BigInt(lamports), Native.solDecimals) }
      ]
      for (const [i, token] of tokens.entries()) {
        const held = yield* Balances.unitsOf(accounts[i]!, infos[i] ?? null)
        balances.push({ asset: token.currency, amount: Money.fromBaseUnits(held, token.decimals) })
      }
      return { address: hot.toBase58(), balances }
    })

    return { draft, broadcast, lookup, replace, inspect, wallet }
  })
