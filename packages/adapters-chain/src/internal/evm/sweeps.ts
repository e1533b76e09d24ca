/**
 * Sweeps of funding addresses: the whole amount of the token on an address derived at
 * `fundingIndex`, to the treasury or to the hot wallet. A funding address holds no ether, so a
 * sweep is two legs signed together and persisted as one job (`Persisted.Sweep`):
 *
 * 1. the gas top-up: ether from the hot wallet, at the nonce core's store allocates, of exactly
 *    what the transfer may cost at the fees it is signed with (gas limit × max fee per gas) less
 *    what the address already holds; none when that covers it (the store then allocates no nonce);
 * 2. the transfer: the token's `transfer`, signed with the funding address's key at the address's
 *    own nonce (its transaction count at the latest block, so two sweeps of one address signed
 *    before either is mined share it: at most one is ever mined).
 *
 * The transfer is broadcast once the top-up is mined (before, a node refuses it for want of
 * gas). It is never signed again: a higher fee would need a second top-up; the top-up follows the
 * payouts' replacement rules. The lookup answers `Confirmed` once both legs are mined at depth,
 * with the ether each side moved.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { DateTime, Effect } from "effect"
import type { Address, PrivateKeyAccount } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import type { HDKey } from "@scure/bip32"
import { chainError, checkIndex } from "../checks.ts"
import { firstFees, gwei } from "./fees.ts"
import * as Hd from "./hd.ts"
import * as Legs from "./legs.ts"
import { checkServed, type EvmNode, head, tokenOf } from "./node.ts"
import { ether } from "./payouts.ts"
import * as Persisted from "./persisted.ts"
import * as TokenTransfer from "./tokenTransfer.ts"

export const make = (node: EvmNode, legs: Legs.Legs, wallet: PrivateKeyAccount | undefined, external: HDKey) => {
  const { chain, client } = node
  const call = legs.call

  const fundingKeys = (rail: Omit<ChainGateway.Rail, "token">) =>
    Effect.as(checkServed(node, rail), Hd.holdsKeys(external) ? ("held" as const) : ("watch_only" as const))

  /** The funding address's key, checked to derive `order.source`. */
  const funder = Effect.fnUntraced(function* (order: ChainGateway.SweepOrder) {
    const index = order.fundingIndex
    yield* checkIndex(order.rail, index)
    if (index > Hd.maxIndex) {
      return yield* chainError(chain, "invalid_index", `HD index must be below 2^31, got ${index}`)
    }
    const key = Hd.signingKey(external, index)
    if (key === null) {
      return yield* chainError(
        chain,
        "invalid_config",
        `the ${chain} funding keys are watch-only (an xpub): a sweep of ${order.source} cannot be signed without the funding mnemonic`
      )
    }
    const account = privateKeyToAccount(key)
    if (account.address.toLowerCase() !== order.source.toLowerCase()) {
      return yield* chainError(
        chain,
        "invalid_index",
        `the funding address at index ${index} is ${account.address.toLowerCase()}, not ${order.source}`
      )
    }
    return account
  })

  const draft = Effect.fnUntraced(function* (order: ChainGateway.SweepOrder) {
    const token = yield* tokenOf(node, order.rail)
    if (wallet === undefined) return yield* Legs.noHotWallet(node)
    const hot = wallet
    const account = yield* funder(order)
    const source = account.address
    const destination =
      order.destination === null
        ? (hot.address.toLowerCase() as Address)
        : yield* TokenTransfer.payableAddress(chain, order.destination)
    const units = yield* TokenTransfer.baseUnitsOf(order.rail, order.amount, token, "sweep")
    const [held, gasHeld, transferNonce, hotNative, nonceAccount, asks] = yield* Effect.all(
      [
        TokenTransfer.tokenBalance(node, token, source, "the funding address's"),
        call("reading the funding address's balance", () => client.getBalance({ address: source })),
        call("reading the funding address's nonce", () =>
          client.getTransactionCount({ address: source, blockTag: "latest" })
        ),
        call("reading the hot wallet's balance", () => client.getBalance({ address: hot.address })),
        legs.nonceAccount(hot.address),
        legs.readAsks
      ],
      { concurrency: "unbounded" }
    )
    if (held < units) {
      return yield* chainError(
        chain,
        "insufficient_funds",
        `the funding address ${source.toLowerCase()} holds ${Money.format(Money.fromBaseUnits(held, token.decimals))} ${token.currency}, the sweep is of ${Money.format(order.amount)}`
      )
    }
    const data = TokenTransfer.transferData(destination, units)
    const gas = yield* TokenTransfer.gasLimit(node, source, token, data)
    const fees = firstFees(asks, legs.cap)
    // what the node requires the sender to hold before it takes the transfer
    const needed = gas * fees.maxFeePerGas
    const topUpValue = needed > gasHeld ? needed - gasHeld : 0n
    if (topUpValue > 0n && hotNative < topUpValue + Legs.plainTransferGas * fees.maxFeePerGas) {
      return yield* chainError(
        chain,
        "insufficient_funds",
        `the hot wallet holds ${hotNative} wei, and the sweep's gas top-up needs ${topUpValue} wei plus its own fee`
      )
    }
    const transferLeg = Effect.map(
      legs.signAt(account, transferNonce, { to: token.address, data, value: 0n, gas }, fees, "transfer"),
      (signed): Persisted.SignedLeg => ({ from: source, nonce: transferNonce, versions: [signed] })
    )
    if (topUpValue === 0n) {
      return {
        nonceAccount: null,
        sign: () => Effect.map(transferLeg, (transfer) => Persisted.preparedSweep(node.chainId, null, transfer))
      } satisfies ChainGateway.PayoutDraft
    }
    const topUp = { to: source, data: "0x" as const, value: topUpValue, gas: Legs.plainTransferGas }
    const sign = (nonce: number | null) =>
      Legs.atNonce(nonce, "sweep's gas top-up", (n) =>
        Effect.all([legs.signAt(hot, n, topUp, fees, "transfer"), transferLeg]).pipe(
          Effect.map(([signed, transfer]) =>
            Persisted.preparedSweep(node.chainId, { from: hot.address, nonce: n, versions: [signed] }, transfer)
          )
        )
      )
    return { nonceAccount, sign } satisfies ChainGateway.PayoutDraft
  })

  /** The top-up until it is mined, then the transfer: each broadcast again is harmless. */
  const broadcast = Effect.fnUntraced(function* (sweep: Persisted.Sweep) {
    if (sweep.topUp !== null && (yield* legs.minedVersion(sweep.topUp)) === null) {
      yield* legs.broadcast(sweep.topUp, "the sweep's gas top-up")
      // a node that mines at once (or a top-up mined meanwhile) lets the transfer go in the same pass
      if ((yield* legs.minedVersion(sweep.topUp)) === null) return
    }
    yield* legs.broadcast(sweep.transfer, "the sweep's transfer")
  })

  const lookup = Effect.fnUntraced(function* (
    sweep: Persisted.Sweep
  ): Effect.fn.Return<ChainGateway.PayoutLookup, ChainGateway.ChainError> {
    const headBlock = yield* head(node)
    const [transfer, topUp] = yield* Effect.all(
      [
        legs.settle(sweep.transfer, headBlock),
        sweep.topUp === null ? Effect.succeed(null) : legs.settle(sweep.topUp, headBlock)
      ],
      { concurrency: "unbounded" }
    )
    switch (transfer._tag) {
      case "Shallow":
        return { _tag: "Pending" }
      case "Consumed":
        // another transfer took the funding address's nonce: this one can never be mined
        return { _tag: "Failed", reason: "nonce_consumed" }
      case "Unmined": {
        if (topUp?._tag === "Consumed") return { _tag: "Failed", reason: "nonce_consumed" }
        if (topUp?._tag === "Mined" && topUp.receipt.status !== "success") return { _tag: "Failed", reason: "reverted" }
        const started = topUp?._tag === "Mined" || topUp?._tag === "Shallow"
        return started ||
          (yield* legs.nodeKnowsAny(sweep.topUp === null ? [sweep.transfer] : [sweep.topUp, sweep.transfer]))
          ? { _tag: "Pending" }
          : { _tag: "Unknown" }
      }
      case "Mined": {
        // the top-up, if any, must be settled too: an unmined one still holds a hot wallet nonce
        if (topUp !== null && topUp._tag !== "Mined" && topUp._tag !== "Consumed") return { _tag: "Pending" }
        const topUpMined = topUp?._tag === "Mined" ? topUp.receipt : null
        const sent = topUpMined?.status === "success" ? Persisted.latest(sweep.topUp!).value : 0n
        const topUpFee = topUpMined === null ? 0n : Legs.feeOf(topUpMined)
        const transferFee = Legs.feeOf(transfer.receipt)
        const native = {
          hotWallet: ether(-(sent + topUpFee)),
          fundingAddress: ether(sent - transferFee),
          fees: ether(topUpFee + transferFee),
          rent: Money.zero
        }
        // reverted, it still cost the fees and the gas sent: booked, though nothing moved
        if (transfer.receipt.status !== "success") return { _tag: "Failed", reason: "reverted", native }
        return {
          _tag: "Confirmed",
          blockNumber: Number(transfer.receipt.blockNumber),
          confirmedAt: yield* DateTime.now,
          transactionHash: transfer.version.hash,
          cancelled: false,
          native
        }
      }
    }
  })

  const replace = Effect.fnUntraced(function* (
    sweep: Persisted.Sweep,
    mode: ChainGateway.ReplaceMode
  ): Effect.fn.Return<ChainGateway.Replacement, ChainGateway.ChainError> {
    const mined = yield* legs.minedVersion(sweep.transfer)
    if (mined !== null) {
      return Legs.waiting(
        "mining",
        `the sweep's transfer ${mined.version.hash} was mined in block ${mined.receipt.blockNumber}: nothing to replace`
      )
    }
    if (mode === "cancel") {
      return Legs.waiting(
        "mining",
        "a sweep is not cancelled: its transfer is signed with the funding key at the funding address's own nonce, which only the transfer itself can take; it waits to be mined"
      )
    }
    const topUp = sweep.topUp
    if (topUp !== null && (yield* legs.minedVersion(topUp)) === null) {
      if (wallet === undefined) return yield* Legs.noHotWallet(node)
      const next = yield* legs.replace(topUp, wallet, mode)
      return next._tag === "Waiting"
        ? next
        : {
            _tag: "Replaced",
            prepared: Persisted.preparedSweep(
              node.chainId,
              { ...topUp, versions: [...topUp.versions, next.signed] },
              sweep.transfer
            )
          }
    }
    const transfer = Persisted.latest(sweep.transfer)
    return Legs.waiting(
      "mining",
      `the sweep's transfer is never replaced (a higher fee would need a second gas top-up): ${transfer.hash} pays up to ${gwei(transfer.maxFeePerGas)} gwei per gas and waits for a block that takes it`
    )
  })

  const inspect = (sweep: Persisted.Sweep) =>
    legs.inspect(sweep.topUp === null ? [sweep.transfer] : [sweep.topUp, sweep.transfer])

  return { fundingKeys, draft, broadcast, lookup, replace, inspect }
}
