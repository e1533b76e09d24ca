/**
 * The transaction a payout is: a compute-unit limit and price (`signing.ts`), create the
 * destination's associated token account if missing (the hot wallet pays the rent),
 * `TransferChecked` from the hot wallet's associated account, and a memo
 * `ratelock:<payoutId>:<nonce>` (`memo.ts`).
 *
 * A version is signed from a plan (what is paid, and to whom) once the destination is a wallet and
 * the hot wallet can fund it; a later version's plan is read back from the version it follows, and
 * only if rebuilding it gives the very instructions signed.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync
} from "@solana/spl-token"
import type { PublicKey } from "@solana/web3.js"
import { BigDecimal, Effect } from "effect"
import { chainError, shortOfTokens } from "../checks.ts"
import * as Balances from "./balances.ts"
import * as Errors from "./errors.ts"
import * as Memo from "./memo.ts"
import { checkWallet, type SolanaNode, type Token } from "./node.ts"
import type * as Persisted from "./persisted.ts"
import * as Signing from "./signing.ts"

const fail = (reason: ChainGateway.FailureReason, message: string) => Effect.fail(chainError("solana", reason, message))

/** What a payout pays, and to whom: all a version is signed from. */
export interface Plan {
  /** The payout id as the memo carries it (its first 64 characters). */
  readonly memoId: string
  readonly token: Token
  /** The destination wallet (the owner of the token account credited). */
  readonly destination: PublicKey
  readonly units: bigint
}

/** A payout's instructions after its compute budget: create the account if missing, transfer, memo. */
const instructions = (hot: PublicKey, plan: Plan, nonce: string) => {
  const { mint, decimals } = plan.token
  const hotAccount = getAssociatedTokenAddressSync(mint, hot)
  const destinationAccount = getAssociatedTokenAddressSync(mint, plan.destination, true)
  return [
    createAssociatedTokenAccountIdempotentInstruction(hot, destinationAccount, plan.destination, mint),
    createTransferCheckedInstruction(hotAccount, mint, destinationAccount, hot, plan.units, decimals),
    Memo.instruction(plan.memoId, nonce)
  ]
}

export const make = (node: SolanaNode, signer: Signing.Signer) => {
  const connection = node.connection

  /**
   * Checks, prices and signs a version of `plan`: the first (`previous` null) at what the chain
   * asks, a later one above the `previous` price; both capped. The token balance must cover the
   * payout and `committed`, what payouts signed and not yet confirmed already owe (a new version
   * of a payout already signed passes none: it replaces what is owed, it adds nothing).
   */
  const sign = Effect.fnUntraced(function* (
    wallet: Signing.HotWallet,
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
    yield* checkWallet(destination, destinationInfo ?? null)
    const held = Money.fromBaseUnits(yield* Balances.unitsOf(hotAccount, hotAccountInfo ?? null), token.decimals)
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
    return yield* signer.sign(
      {
        what: "payout",
        payer: wallet.keypair,
        cosigners: [],
        instructions: instructions(hot, plan, yield* Memo.nonce),
        writable: [hot, hotAccount, destinationAccount],
        destinationExists: destinationAccountInfo != null,
        enough: Signing.enoughLamports(lamports, rent)
      },
      previous
    )
  })

  /** The plan a version was signed from, checked by building it again (so only what was signed is signed again). */
  const planOf = Effect.fnUntraced(function* (version: Persisted.Version, hot: PublicKey) {
    const invalid = (why: string) => fail("invalid_prepared", `the payout cannot be signed again: ${why}`)
    const body = yield* Signing.bodyOf(version.transaction)
    const moved = Signing.transferOf(body[0], body[1])
    const memo = body[2] === undefined ? undefined : Memo.parse(body[2])
    if (body.length !== 3 || moved === undefined || memo === undefined) {
      return yield* invalid("not a payout transaction")
    }
    const token = [...node.tokens.values()].find((t) => t.mint.equals(moved.mint))
    if (token === undefined) return yield* invalid(`its mint ${moved.mint.toBase58()} is no longer configured`)
    const plan: Plan = { memoId: memo.id, token, destination: moved.destination, units: moved.units }
    if (!Signing.sameInstructions(instructions(hot, plan, memo.nonce), body)) {
      return yield* invalid("its instructions are not the ones this gateway signs")
    }
    return plan
  })

  return { sign, planOf }
}
