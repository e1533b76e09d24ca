/**
 * Payouts from the hot wallet: sign (check, price, build, sign), broadcast (send the latest
 * persisted version; again is harmless), look up (every version's signature status, and the
 * blockhashes' expiry when nothing landed), sign again once expired, inspect, and the hot wallet's
 * balances.
 *
 * A payout transaction is: a compute-unit limit and price, create the destination's associated
 * token account if missing (the hot wallet pays the rent), `TransferChecked` from the hot wallet's
 * associated account, and a memo `ratelock:<payoutId>:<nonce>`. The memo names the payout on chain
 * for reconciliation, and its random nonce keeps two payouts (or two versions of one) of the same
 * amount to the same wallet from being one transaction with one signature.
 *
 * The limit is the node's simulation of the transaction (never signed: a node cannot send what it
 * simulated) with a 20 % margin; the price a percentile of the node's recent prioritization fees
 * for the accounts the payout writes, capped (see `fees.ts`).
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
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackAccount
} from "@solana/spl-token"
import {
  type Keypair,
  PublicKey,
  type SignatureStatus,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction
} from "@solana/web3.js"
import { BigDecimal, DateTime, Effect, Predicate, Random, Semaphore } from "effect"
import { Base64 } from "effect/encoding"
import * as Base58 from "../base58.ts"
import { chainError, checkAmount, shortOfTokens } from "../checks.ts"
import * as Errors from "./errors.ts"
import * as Fees from "./fees.ts"
import { checkServed, parseAddress, type SolanaNode, type Token, tokenOf } from "./node.ts"
import * as Persisted from "./persisted.ts"

export interface HotWallet {
  readonly keypair: Keypair
  /** Rent-exempt minimums: a new token account, and the wallet itself (0 bytes), which must stay exempt. */
  readonly rent: { readonly tokenAccount: bigint; readonly wallet: bigint }
}

/** How payouts are priced (micro-lamports per compute unit). */
export interface FeePolicy {
  /** The percentile (0–100) of the node's recent prioritization fees a payout pays. */
  readonly percentile: number
  /** No version of a payout pays more than this. */
  readonly maxPrice: number
}

const memoProgram = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
/** Signed payouts remembered per process (`preparePayout` twice yields one transaction). */
const memoLimit = 10_000
/** `getSignatureStatuses` answers for at most this many signatures per call. */
const statusPage = 256
/** SOL's decimals, for the hot wallet's native balance. */
const solDecimals = 9
/** The signing time of a version persisted before versions were: not kept, shown as the epoch. */
const unknownTime = DateTime.makeUnsafe(0)

const fail = (reason: ChainGateway.FailureReason, message: string) => Effect.fail(chainError("solana", reason, message))

/** Words of the node's preflight (and of transaction errors) that mean the hot wallet lacks SOL or tokens. */
const insufficientWords =
  /insufficient funds|insufficient lamports|no record of a prior credit|custom program error: 0x1\b/i

/**
 * Why a payout transaction failed on chain (or in a simulation). `Custom(1)` is the SPL Token
 * program's `InsufficientFunds` in the transfer, and the system program's in the account creation;
 * `AccountNotFound` is a fee payer that was never funded.
 */
export const failureReason = (error: unknown): ChainGateway.FailureReason => {
  if (
    error === "InsufficientFundsForFee" ||
    error === "AccountNotFound" ||
    (Predicate.isObject(error) && "InsufficientFundsForRent" in error)
  ) {
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

/** What a payout pays, and to whom: all a version is signed from. */
interface Plan {
  /** The payout id as the memo carries it (its first 64 characters). */
  readonly memoId: string
  readonly token: Token
  /** The destination wallet (the owner of the token account credited). */
  readonly destination: PublicKey
  readonly units: bigint
}

/** A payout's instructions after its compute budget: create the account if missing, transfer, memo. */
const payoutInstructions = (hot: PublicKey, plan: Plan, nonce: string) => {
  const { mint, decimals } = plan.token
  const hotAccount = getAssociatedTokenAddressSync(mint, hot)
  const destinationAccount = getAssociatedTokenAddressSync(mint, plan.destination, true)
  return [
    createAssociatedTokenAccountIdempotentInstruction(hot, destinationAccount, plan.destination, mint),
    createTransferCheckedInstruction(hotAccount, mint, destinationAccount, hot, plan.units, decimals),
    new TransactionInstruction({
      programId: memoProgram,
      keys: [],
      data: Buffer.from(`ratelock:${plan.memoId}:${nonce}`)
    })
  ]
}

/**
 * The same program, data and accounts (a decompiled instruction's signer and writable flags are
 * its message's, the union over all instructions, so they are not compared: the message signed
 * again is compiled from the rebuilt instructions).
 */
const sameInstruction = (a: TransactionInstruction, b: TransactionInstruction) =>
  a.programId.equals(b.programId) &&
  Buffer.from(a.data).equals(Buffer.from(b.data)) &&
  a.keys.length === b.keys.length &&
  a.keys.every((key, i) => key.pubkey.equals(b.keys[i]!.pubkey))

/** The accounts a signed message writes (what its priority fee competes for). */
const writableAccounts = (transaction: VersionedTransaction) =>
  transaction.message.staticAccountKeys.filter((_, i) => transaction.message.isAccountWritable(i))

export const make = (node: SolanaNode, hotWallet: HotWallet | undefined, policy: FeePolicy) =>
  Effect.gen(function* () {
    const connection = node.connection
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

    /** The price the chain asks now for a transaction writing `accounts`: the percentile of recent fees. */
    const asked = (accounts: ReadonlyArray<PublicKey>) =>
      Effect.map(
        Errors.call("reading recent prioritization fees", () =>
          connection.getRecentPrioritizationFees({ lockedWritableAccounts: [...accounts] })
        ),
        (fees) =>
          Fees.percentile(
            fees.map((fee) => fee.prioritizationFee),
            policy.percentile
          )
      )

    /** The units `instructions` consume in the node's simulation (undefined: not reported). */
    const simulated = Effect.fnUntraced(function* (
      payer: PublicKey,
      blockhash: string,
      instructions: ReadonlyArray<TransactionInstruction>
    ) {
      // the compute budget as it will be, but for the price (which changes what the fee payer is
      // charged, not the units): so a wallet with just enough SOL for the real fee is not refused
      const message = new TransactionMessage({
        payerKey: payer,
        recentBlockhash: blockhash,
        instructions: [...Fees.instructions(0, Fees.maxUnitLimit), ...instructions]
      }).compileToLegacyMessage()
      const { value } = yield* Errors.call("simulating the payout", () =>
        connection.simulateTransaction(new VersionedTransaction(message), { sigVerify: false, commitment: "confirmed" })
      )
      if (value.err !== null) {
        const last = value.logs?.findLast((line) => /error|failed|insufficient/i.test(line))
        return yield* fail(
          failureReason(value.err),
          `the node's simulation of the payout failed: ${JSON.stringify(value.err)}${last === undefined ? "" : ` (${last})`}`
        )
      }
      return value.unitsConsumed ?? undefined
    })

    /**
     * Checks, prices and signs a version of `plan`: the first (`previous` null) at what the chain
     * asks, a later one above the `previous` price; both capped. The token balance must cover the
     * payout and `committed`, what payouts signed and not yet confirmed already owe (a new version
     * of a payout already signed passes none: it replaces what is owed, it adds nothing).
     */
    const sign = Effect.fnUntraced(function* (
      wallet: HotWallet,
      plan: Plan,
      previous: number | null,
      committed: Money.Decimal = Money.zero
    ) {
      const { token, destination, units } = plan
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
        return yield* fail("invalid_address", `${destination.toBase58()} is a token account or mint, not a wallet`)
      }
      if (destinationInfo?.executable === true) {
        return yield* fail("invalid_address", `${destination.toBase58()} is a program, not a wallet`)
      }
      const held = Money.fromBaseUnits(
        hotAccountInfo == null ? 0n : unpackAccount(hotAccount, hotAccountInfo).amount,
        token.decimals
      )
      const amount = Money.fromBaseUnits(units, token.decimals)
      // signed without room for what is already committed, one of the transfers would fail on
      // chain and burn its fee
      if (Money.lessThan(held, Money.sum(committed, amount))) {
        const { normalize } = BigDecimal
        return yield* fail(
          "insufficient_funds",
          shortOfTokens(normalize(held), normalize(committed), normalize(amount), token.currency)
        )
      }
      const lamports = BigInt(hotInfo?.lamports ?? 0)
      const rent = (destinationAccountInfo == null ? wallet.rent.tokenAccount : 0n) + wallet.rent.wallet
      const enough = (fee: bigint) =>
        lamports >= fee + rent
          ? Effect.void
          : fail(
              "insufficient_funds",
              `the hot wallet holds ${lamports} lamports, the fee (${fee}) and rent (${rent}) need ${fee + rent}`
            )
      // the base fee and rent first: what the node's simulation would refuse in less clear words
      yield* enough(Fees.baseFee)
      const [{ blockhash, lastValidBlockHeight }, ask] = yield* Effect.all(
        [
          Errors.call("reading a recent blockhash", () => connection.getLatestBlockhash("confirmed")),
          asked([hot, hotAccount, destinationAccount])
        ],
        { concurrency: 2 }
      )
      const price =
        previous === null ? Fees.firstPrice(ask, policy.maxPrice) : Fees.nextPrice(previous, ask, policy.maxPrice)
      const nonce = (yield* Random.nextIntBetween(0, 2 ** 48, { halfOpen: true })).toString(36)
      const instructions = payoutInstructions(hot, plan, nonce)
      const limit = Fees.unitLimit(yield* simulated(hot, blockhash, instructions), destinationAccountInfo != null)
      yield* enough(Fees.baseFee + Fees.priorityFee(price, limit))
      const message = new TransactionMessage({
        payerKey: hot,
        recentBlockhash: blockhash,
        instructions: [...Fees.instructions(price, limit), ...instructions]
      }).compileToLegacyMessage()
      const transaction = new VersionedTransaction(message)
      transaction.sign([wallet.keypair])
      const version: Persisted.StoredVersion = {
        signature: Base58.encode(transaction.signatures[0]!),
        transaction: Base64.encode(transaction.serialize()),
        blockhash,
        lastValidBlockHeight,
        computeUnitPrice: price,
        computeUnitLimit: limit,
        signedAt: yield* DateTime.now
      }
      return version
    })

    /** The plan a version was signed from, checked by building it again (so only what was signed is signed again). */
    const planOf = Effect.fnUntraced(function* (version: Persisted.Version, hot: PublicKey) {
      const invalid = (why: string) => fail("invalid_prepared", `the payout cannot be signed again: ${why}`)
      const decompiled = yield* Effect.try({
        try: () => TransactionMessage.decompile(version.transaction.message).instructions,
        catch: () => chainError("solana", "invalid_prepared", "the payout's message cannot be read")
      })
      const body = decompiled.filter((instruction) => !instruction.programId.equals(Fees.programId))
      const [create, transfer, memoInstruction] = body
      if (body.length !== 3 || create === undefined || transfer === undefined || memoInstruction === undefined) {
        return yield* invalid("not a payout transaction")
      }
      if (!create.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID) || !transfer.programId.equals(TOKEN_PROGRAM_ID)) {
        return yield* invalid("not a payout transaction")
      }
      const memoText = Buffer.from(memoInstruction.data).toString("utf8")
      const memoMatch = /^ratelock:(.*):([0-9a-z]+)$/s.exec(memoText)
      const destination = create.keys[2]?.pubkey
      const mint = create.keys[3]?.pubkey
      if (memoMatch === null || destination === undefined || mint === undefined || transfer.data.length !== 10) {
        return yield* invalid("not a payout transaction")
      }
      const token = [...node.tokens.values()].find((t) => t.mint.equals(mint))
      if (token === undefined) return yield* invalid(`its mint ${mint.toBase58()} is no longer configured`)
      const units = Buffer.from(transfer.data).readBigUInt64LE(1)
      const plan: Plan = { memoId: memoMatch[1]!, token, destination, units }
      const again = payoutInstructions(hot, plan, memoMatch[2]!)
      if (!again.every((instruction, i) => sameInstruction(instruction, body[i]!))) {
        return yield* invalid("its instructions are not the ones this gateway signs")
      }
      return plan
    })

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
      yield* checkAmount(order.rail, order.amount, "payout")
      const units = Money.toBaseUnits(order.amount, token.decimals)
      if (!BigDecimal.equals(Money.fromBaseUnits(units, token.decimals), order.amount) || units >= 2n ** 64n) {
        const amount = Money.format(order.amount)
        return yield* fail("invalid_amount", `${amount} is not a whole number of ${token.currency} base units`)
      }
      if (hotWallet === undefined) return yield* fail("no_hot_wallet", "this gateway has no hot wallet key")
      const plan: Plan = { memoId: order.payoutId.slice(0, 64), token, destination, units }
      return { wallet: hotWallet, plan }
    })

    /**
     * The payout signed, or what this process signed for it before while that can still land, or
     * has landed (one payout, one transaction; signed anew only once the earlier one can no longer
     * land and never did, the same rule as a new version).
     */
    const signOnce = (order: ChainGateway.PayoutOrder, wallet: HotWallet, plan: Plan) =>
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
          const version = yield* sign(wallet, plan, null, order.committed)
          const prepared: ChainGateway.PreparedPayout = {
            transactionHash: version.signature,
            persisted: Persisted.encode([], version)
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
          const failure = sendFailure(error)
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
        return {
          _tag: "Confirmed",
          blockNumber: paid.status.slot,
          confirmedAt: yield* DateTime.now,
          transactionHash: paid.version.signature,
          cancelled: false
        }
      }
      const failed = settled[0]
      if (failed !== undefined) {
        remember(
          read.versions.map((v) => v.signature),
          undefined
        )
        return { _tag: "Failed", reason: failureReason(failed.status.err) }
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
      const plan = yield* planOf(read.latest, hot)
      const signed = yield* Effect.result(sign(hotWallet, plan, read.latest.computeUnitPrice))
      if (signed._tag === "Failure") {
        if (signed.failure.reason === "insufficient_funds") return waiting("insufficient_funds", signed.failure.message)
        return yield* Effect.fail(signed.failure)
      }
      const next: ChainGateway.PreparedPayout = {
        transactionHash: signed.success.signature,
        persisted: Persisted.encode(
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
      const ask = yield* asked(writableAccounts(read.latest.transaction))
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
          cap_micro_lamports: String(policy.maxPrice)
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
        { asset: "NATIVE", amount: Money.fromBaseUnits(BigInt(lamports), solDecimals) }
      ]
      for (const [i, token] of tokens.entries()) {
        const info = infos[i] ?? null
        const held = info === null ? 0n : unpackAccount(accounts[i]!, info).amount
        balances.push({ asset: token.currency, amount: Money.fromBaseUnits(held, token.decimals) })
      }
      return { address: hot.toBase58(), balances }
    })

    return { draft, broadcast, lookup, replace, inspect, wallet }
  })
