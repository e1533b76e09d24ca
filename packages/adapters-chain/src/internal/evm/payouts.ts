/**
 * Payouts from the hot wallet: an EIP-1559 ERC-20 `transfer` signed locally at the nonce core's
 * store allocates, persisted by core with every later version (fee replacements, a cancellation),
 * then broadcast (again and again if need be: the versions share one nonce, so at most one of
 * them can ever be mined).
 *
 * `lookup` reads the receipts of every version and answers for whichever was mined, with the
 * ether it cost (the hot wallet paid the fee). It answers `Failed` only when no version can ever
 * be mined any more (`Legs.settle`): the mined version reverted, or the nonce went to none of
 * them. Everything else is `Pending` (the node has a version) or `Unknown`, so core broadcasts
 * the latest version again and a payout is never sent twice.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import type { PrivateKeyAccount } from "viem"
import { chainError, shortOfTokens } from "../checks.ts"
import { firstFees } from "./fees.ts"
import * as Legs from "./legs.ts"
import { checkServed, type EvmNode, head, tokenOf } from "./node.ts"
import * as Persisted from "./persisted.ts"
import * as TokenTransfer from "./tokenTransfer.ts"

/** Ether at 18 decimals, for the ledger. */
export const ether = (wei: bigint) => Money.fromBaseUnits(wei, 18)

export const make = (node: EvmNode, legs: Legs.Legs, wallet: PrivateKeyAccount | undefined) => {
  const { chain, client } = node
  const call = legs.call

  const draft = Effect.fnUntraced(function* (order: ChainGateway.PayoutOrder) {
    const token = yield* tokenOf(node, order.rail)
    if (wallet === undefined) return yield* Legs.noHotWallet(node)
    const account = wallet
    const destination = yield* TokenTransfer.payableAddress(chain, order.destination)
    const units = yield* TokenTransfer.baseUnitsOf(order.rail, order.amount, token, "payout")
    const from = account.address
    const [tokenBalance, nativeBalance, nonceAccount, asks] = yield* Effect.all(
      [
        TokenTransfer.tokenBalance(node, token, from, "the hot wallet's"),
        call("reading the hot wallet's balance", () => client.getBalance({ address: from })),
        legs.nonceAccount(from),
        legs.readAsks
      ],
      { concurrency: "unbounded" }
    )
    // the payouts signed and not yet confirmed draw on the same balance: signed without room for
    // them, one of the transfers would be mined, revert and burn its gas
    const held = Money.fromBaseUnits(tokenBalance, token.decimals)
    if (Money.lessThan(held, Money.sum(order.committed, order.amount))) {
      return yield* chainError(
        chain,
        "insufficient_funds",
        shortOfTokens(held, order.committed, order.amount, order.rail.token)
      )
    }
    const data = TokenTransfer.transferData(destination, units)
    const gas = yield* TokenTransfer.gasLimit(node, from, token, data)
    const fees = firstFees(asks, legs.cap)
    if (nativeBalance < gas * fees.maxFeePerGas) {
      return yield* chainError(
        chain,
        "insufficient_funds",
        `the hot wallet lacks native currency for gas (${nativeBalance} wei)`
      )
    }
    const target = { to: token.address, data, value: 0n, gas }
    const sign = (nonce: number | null) =>
      Legs.atNonce(nonce, "payout", (n) =>
        Effect.map(legs.signAt(account, n, target, fees, "transfer"), (signed) =>
          Persisted.prepared({ chainId: node.chainId, from, nonce: n }, [signed])
        )
      )
    return { nonceAccount, sign } satisfies ChainGateway.PayoutDraft
  })

  const broadcast = (payout: Persisted.Payout) => legs.broadcast(payout, "the payout")

  const lookup = Effect.fnUntraced(function* (
    payout: Persisted.Payout
  ): Effect.fn.Return<ChainGateway.PayoutLookup, ChainGateway.ChainError> {
    const settled = yield* legs.settle(payout, yield* head(node))
    switch (settled._tag) {
      case "Shallow":
        return { _tag: "Pending" }
      case "Consumed":
        return { _tag: "Failed", reason: "nonce_consumed" }
      case "Unmined":
        return (yield* legs.nodeKnowsAny([payout])) ? { _tag: "Pending" } : { _tag: "Unknown" }
      case "Mined": {
        // the hot wallet paid the fee, a cancellation's and a reverted one's too
        const fee = ether(Legs.feeOf(settled.receipt))
        const paid = {
          hotWallet: Money.subtract(Money.zero, fee),
          fundingAddress: Money.zero,
          fees: fee,
          rent: Money.zero
        }
        if (settled.receipt.status !== "success") return { _tag: "Failed", reason: "reverted", native: paid }
        return {
          _tag: "Confirmed",
          blockNumber: Number(settled.receipt.blockNumber),
          confirmedAt: yield* DateTime.now,
          transactionHash: settled.version.hash,
          cancelled: settled.version.kind === "cancel",
          native: paid
        }
      }
    }
  })

  const replace = Effect.fnUntraced(function* (
    payout: Persisted.Payout,
    mode: ChainGateway.ReplaceMode
  ): Effect.fn.Return<ChainGateway.Replacement, ChainGateway.ChainError> {
    if (wallet === undefined) return yield* Legs.noHotWallet(node)
    const next = yield* legs.replace(payout, wallet, mode)
    return next._tag === "Waiting"
      ? next
      : { _tag: "Replaced", prepared: Persisted.prepared(payout, [...payout.versions, next.signed]) }
  })

  const inspect = (payout: Persisted.Payout) => legs.inspect([payout])

  const hotWallet = Effect.fnUntraced(function* (rail: Omit<ChainGateway.Rail, "token">) {
    yield* checkServed(node, rail)
    if (wallet === undefined) return null
    const address = wallet.address
    const native = call("reading the hot wallet's balance", () => client.getBalance({ address })).pipe(
      Effect.map((wei) => ({ asset: "NATIVE" as const, amount: ether(wei) }))
    )
    const tokens = Array.from(node.tokens.values(), (token) =>
      TokenTransfer.tokenBalance(node, token, address, "the hot wallet's").pipe(
        Effect.map((units) => ({ asset: token.currency, amount: Money.fromBaseUnits(units, token.decimals) }))
      )
    )
    const balances = yield* Effect.all([native, ...tokens], { concurrency: "unbounded" })
    return { address: address.toLowerCase(), balances } satisfies ChainGateway.HotWallet
  })

  return { draft, broadcast, lookup, replace, inspect, hotWallet }
}
