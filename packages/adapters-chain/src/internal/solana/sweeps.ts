/**
 * Sweeps: the whole of a funding address's token balance (its associated account for the rail's
 * mint) to the hot wallet or another wallet (the treasury), in one transaction the hot wallet pays
 * for and signs first, the funding key (SLIP-10, the address's own) second:
 *
 * compute budget, create the destination's associated account if missing (rent from the hot
 * wallet), `TransferChecked` of the amount from the funding account, `CloseAccount` of the funding
 * account to the hot wallet (its rent comes back), a memo `ratelock:<sweepId>:<nonce>`.
 *
 * The account is closed only when the amount is all it holds at signing (SPL Token closes empty
 * accounts only): with more on it, a deposit that arrived after the sweep was ordered, the sweep
 * moves its amount and leaves the account (and the rest) for the next one. Should a deposit land
 * between signing and landing, the close fails and with it the whole transaction, at the node's
 * preflight (the broadcast is refused as `reverted`) or on chain (the lookup answers `Failed`):
 * nothing moves, and a version signed after expiry decides the close again.
 *
 * A sweep is a payout to the persisted job's calls: it is broadcast, looked up and signed again
 * after expiry (never before: two versions that could both land are not signed) by the same code,
 * which calls `resign` here for a sweep's next version. Two sweeps of one account that both land
 * cannot move its amount twice: the second finds it empty (or closed) and fails.
 */
import { ChainGateway, Money } from "@ratelock/core"
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync
} from "@solana/spl-token"
import type { Keypair, PublicKey } from "@solana/web3.js"
import { BigDecimal, Effect } from "effect"
import { chainError, checkIndex } from "../checks.ts"
import * as Balances from "./balances.ts"
import * as Errors from "./errors.ts"
import * as Hd from "./hd.ts"
import * as Memo from "./memo.ts"
import { checkWallet, parseAddress, type SolanaNode, type Token, tokenOf, unitsOf } from "./node.ts"
import * as Persisted from "./persisted.ts"
import * as Signing from "./signing.ts"
import type * as Slip10 from "./slip10.ts"

const fail = (reason: ChainGateway.FailureReason, message: string) => Effect.fail(chainError("solana", reason, message))

/** What a sweep moves, from where, to whom: all a version is signed from. */
interface Plan {
  readonly memoId: string
  readonly token: Token
  readonly fundingIndex: number
  /** The funding key: the owner of the account swept. */
  readonly owner: Keypair
  /** The wallet credited (the owner of the token account credited). */
  readonly destination: PublicKey
  readonly units: bigint
}

/** A sweep's instructions after its compute budget (`close`: the funding account is emptied). */
const instructions = (hot: PublicKey, plan: Plan, close: boolean, nonce: string) => {
  const { mint, decimals } = plan.token
  const source = getAssociatedTokenAddressSync(mint, plan.owner.publicKey)
  const destinationAccount = getAssociatedTokenAddressSync(mint, plan.destination, true)
  const owner = plan.owner.publicKey
  return [
    createAssociatedTokenAccountIdempotentInstruction(hot, destinationAccount, plan.destination, mint),
    createTransferCheckedInstruction(source, mint, destinationAccount, owner, plan.units, decimals),
    ...(close ? [createCloseAccountInstruction(source, hot, owner)] : []),
    Memo.instruction(plan.memoId, nonce)
  ]
}

export const make = (
  node: SolanaNode,
  hotWallet: Signing.HotWallet | undefined,
  account: Slip10.Node,
  signer: Signing.Signer
) => {
  /** Checks and signs a version of `plan`, the first (`previous` null) or one after an expired one. */
  const sign = Effect.fnUntraced(function* (wallet: Signing.HotWallet, plan: Plan, previous: number | null) {
    const { token, destination, units } = plan
    const hot = wallet.keypair.publicKey
    const source = getAssociatedTokenAddressSync(token.mint, plan.owner.publicKey)
    const destinationAccount = getAssociatedTokenAddressSync(token.mint, destination, true)
    const [destinationInfo, destinationAccountInfo, hotInfo, sourceInfo] = yield* Errors.call(
      "reading the sweep's accounts",
      () => node.connection.getMultipleAccountsInfo([destination, destinationAccount, hot, source], "confirmed")
    )
    yield* checkWallet(destination, destinationInfo ?? null)
    const held = yield* Balances.unitsOf(source, sourceInfo ?? null)
    if (held < units) {
      const { normalize } = BigDecimal
      const amount = (n: bigint) => Money.format(normalize(Money.fromBaseUnits(n, token.decimals)))
      return yield* fail(
        "insufficient_funds",
        `funding address ${plan.owner.publicKey.toBase58()} holds ${amount(held)} ${token.currency}, ` +
          `the sweep moves ${amount(units)} ${token.currency}`
      )
    }
    const lamports = BigInt(hotInfo?.lamports ?? 0)
    const rent = (destinationAccountInfo == null ? wallet.rent.tokenAccount : 0n) + wallet.rent.wallet
    return yield* signer.sign(
      {
        what: "sweep",
        payer: wallet.keypair,
        cosigners: [plan.owner],
        instructions: instructions(hot, plan, held === units, yield* Memo.nonce),
        writable: [hot, source, destinationAccount],
        destinationExists: destinationAccountInfo != null,
        enough: Signing.enoughLamports(lamports, rent)
      },
      previous
    )
  })

  const draft = Effect.fnUntraced(function* (order: ChainGateway.SweepOrder) {
    const token = yield* tokenOf(node, order.rail)
    yield* checkIndex(order.rail, order.fundingIndex)
    if (order.fundingIndex > Hd.maxIndex) {
      return yield* fail("invalid_index", `HD index must be below 2^31, got ${order.fundingIndex}`)
    }
    const owner = Hd.keypair(account, order.fundingIndex)
    if (owner.publicKey.toBase58() !== order.source) {
      return yield* fail(
        "invalid_address",
        `${order.source} is not the funding address of index ${order.fundingIndex} (${owner.publicKey.toBase58()})`
      )
    }
    const units = yield* unitsOf(order.rail, token, order.amount, "sweep")
    if (hotWallet === undefined) return yield* fail("no_hot_wallet", "this gateway has no hot wallet key")
    const destination =
      order.destination === null ? hotWallet.keypair.publicKey : yield* parseAddress(order.destination)
    if (destination.equals(owner.publicKey)) {
      return yield* fail("invalid_address", `a sweep of ${order.source} cannot go to itself`)
    }
    const plan: Plan = {
      memoId: Memo.idOf(order.sweepId),
      token,
      fundingIndex: order.fundingIndex,
      owner,
      destination,
      units
    }
    const job: Persisted.Job = { kind: "sweep", fundingIndex: order.fundingIndex }
    // no nonce on Solana: signing (a fresh blockhash, the price of the moment) is the preparing
    return ChainGateway.withoutNonce(
      Effect.map(
        sign(hotWallet, plan, null),
        (version): ChainGateway.PreparedPayout => ({
          transactionHash: version.signature,
          persisted: Persisted.encode(job, [], version)
        })
      )
    )
  })

  /**
   * The next version of a persisted sweep, signed from its latest one's own instructions, checked
   * to be exactly what this gateway signs for its funding index (so only what was signed is signed
   * again); the close is decided anew from the balance now.
   */
  const resign = Effect.fnUntraced(function* (wallet: Signing.HotWallet, read: Persisted.Read, fundingIndex: number) {
    const invalid = (why: string) => fail("invalid_prepared", `the sweep cannot be signed again: ${why}`)
    const body = yield* Signing.bodyOf(read.latest.transaction)
    const moved = Signing.transferOf(body[0], body[1])
    const memo = body.length === 0 ? undefined : Memo.parse(body[body.length - 1]!)
    if (moved === undefined || memo === undefined || (body.length !== 3 && body.length !== 4)) {
      return yield* invalid("not a sweep transaction")
    }
    if (!Number.isSafeInteger(fundingIndex) || fundingIndex < 0 || fundingIndex > Hd.maxIndex) {
      return yield* invalid(`funding index ${fundingIndex} out of range`)
    }
    const token = [...node.tokens.values()].find((t) => t.mint.equals(moved.mint))
    if (token === undefined) return yield* invalid(`its mint ${moved.mint.toBase58()} is no longer configured`)
    const plan: Plan = {
      memoId: memo.id,
      token,
      fundingIndex,
      owner: Hd.keypair(account, fundingIndex),
      destination: moved.destination,
      units: moved.units
    }
    const again = instructions(wallet.keypair.publicKey, plan, body.length === 4, memo.nonce)
    if (!Signing.sameInstructions(again, body)) {
      return yield* invalid("its instructions are not the ones this gateway signs for its funding index")
    }
    return yield* sign(wallet, plan, read.latest.computeUnitPrice)
  })

  return { draft, resign }
}
