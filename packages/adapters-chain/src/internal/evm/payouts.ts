/**
 * Payouts from the hot wallet: an EIP-1559 ERC-20 `transfer` signed locally, persisted by core,
 * then broadcast (again and again if need be: the same bytes can be mined once at most).
 *
 * `lookup` answers `Failed` only when the persisted transaction can never be mined any more, both
 * facts at depth: its receipt reverted, or the wallet's nonce count at the safe block is past its
 * nonce and it has no receipt. Everything else is `Pending` (the node has it) or `Unknown`, so
 * core broadcasts the same bytes again and a payout is never sent twice.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { Clock, DateTime, Effect, Semaphore } from "effect"
import {
  type Address,
  checksumAddress,
  encodeFunctionData,
  type Hash,
  isAddress,
  keccak256,
  type PrivateKeyAccount,
  zeroAddress
} from "viem"
import { chainError } from "../checks.ts"
import * as Erc20 from "./erc20.ts"
import * as Errors from "./errors.ts"
import { checkServed, type EvmNode, head, safeBlock, type Token, tokenOf } from "./node.ts"
import * as Nonces from "./nonces.ts"
import * as Persisted from "./persisted.ts"

/** A payout prepared by this process, reused while it can still be mined. */
interface Memo {
  readonly key: string
  readonly prepared: ChainGateway.PreparedPayout
  readonly from: Address
  readonly nonce: number
}

const memoLimit = 10_000

export interface Payouts {
  readonly prepare: (
    order: ChainGateway.PayoutOrder
  ) => Effect.Effect<ChainGateway.PreparedPayout, ChainGateway.ChainError>
  readonly broadcast: (
    rail: ChainGateway.Rail,
    prepared: ChainGateway.PreparedPayout
  ) => Effect.Effect<void, ChainGateway.ChainError>
  readonly lookup: (
    rail: ChainGateway.Rail,
    prepared: ChainGateway.PreparedPayout
  ) => Effect.Effect<ChainGateway.PayoutLookup, ChainGateway.ChainError>
}

/** EIP-55: a mixed-case address must carry a valid checksum (which catches typos); one case carries none. */
const isPayable = (address: string) => {
  if (!isAddress(address, { strict: false }) || address.toLowerCase() === zeroAddress) return false
  const hex = address.slice(2)
  return hex === hex.toLowerCase() || hex === hex.toUpperCase() || checksumAddress(address as Address) === address
}

const destinationOf = (order: ChainGateway.PayoutOrder) => {
  const destination = order.destination
  return isPayable(destination)
    ? Effect.succeed(destination.toLowerCase() as Address)
    : Effect.fail(
        chainError(order.rail.chain, "invalid_address", `not a payable ${order.rail.chain} address: ${destination}`)
      )
}

/** The amount in base units, refused unless positive and exact in the token's decimals. */
const baseUnitsOf = (order: ChainGateway.PayoutOrder, token: Token) => {
  const units = Money.toBaseUnits(order.amount, token.decimals)
  return Money.isPositive(order.amount) && Money.equals(Money.fromBaseUnits(units, token.decimals), order.amount)
    ? Effect.succeed(units)
    : Effect.fail(
        chainError(
          order.rail.chain,
          "invalid_amount",
          `a payout must be positive with at most ${token.decimals} decimals, got ${Money.format(order.amount)}`
        )
      )
}

export const make = (node: EvmNode, wallet: PrivateKeyAccount | undefined): Effect.Effect<Payouts> =>
  Effect.gen(function* () {
    const { chain, client } = node
    const lock = yield* Semaphore.make(1)
    const nonces = Nonces.make()
    const memo = new Map<string, Memo>()
    const call = <A>(what: string, f: () => Promise<A>) => Errors.call(chain, what, f)

    const receiptOf = (hash: Hash) =>
      call("reading a receipt", () =>
        client.getTransactionReceipt({ hash }).catch((e: unknown) => {
          if (e instanceof Error && e.name === "TransactionReceiptNotFoundError") return null
          throw e
        })
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

    /** The memoised transaction can still be mined (or already was, successfully). */
    const viable = Effect.fnUntraced(function* (known: Memo) {
      const receipt = yield* receiptOf(known.prepared.transactionHash as Hash)
      if (receipt !== null) return receipt.status === "success"
      const mined = yield* call("reading the wallet's nonce", () => client.getTransactionCount({ address: known.from }))
      return mined <= known.nonce
    })

    const sign = Effect.fnUntraced(function* (
      account: PrivateKeyAccount,
      rail: ChainGateway.Rail,
      token: Token,
      destination: Address,
      units: bigint
    ) {
      const from = account.address
      const [tokenBalance, nativeBalance, pending, block, priorityFee] = yield* Effect.all(
        [
          call("reading the hot wallet's token balance", () =>
            client.readContract({ address: token.address, abi: Erc20.abi, functionName: "balanceOf", args: [from] })
          ),
          call("reading the hot wallet's balance", () => client.getBalance({ address: from })),
          call("reading the hot wallet's nonce", () =>
            client.getTransactionCount({ address: from, blockTag: "pending" })
          ),
          call("reading the latest block", () => client.getBlock({ blockTag: "latest" })),
          call("reading the priority fee", () => client.estimateMaxPriorityFeePerGas())
        ],
        { concurrency: "unbounded" }
      )
      if (tokenBalance < units) {
        return yield* chainError(
          chain,
          "insufficient_funds",
          `the hot wallet holds ${Money.format(Money.fromBaseUnits(tokenBalance, token.decimals))} ${rail.token}`
        )
      }
      const data = encodeFunctionData({ abi: Erc20.abi, functionName: "transfer", args: [destination, units] })
      const estimate = yield* Effect.mapError(
        Errors.attempt(() => client.estimateGas({ account: from, to: token.address, data })),
        (failure) =>
          failure._tag === "Node" && /insufficient funds/i.test(failure.message)
            ? chainError(chain, "insufficient_funds", `estimating gas: ${failure.message}`)
            : Errors.toChainError(chain, "estimating gas for the transfer", failure)
      )
      // generous: only the gas used is paid, and a transfer must not run out of gas if the state moves
      const gas = (estimate * 3n) / 2n
      // twice the base fee stays above it through six full blocks of increases
      const maxFeePerGas = (block.baseFeePerGas ?? 0n) * 2n + priorityFee
      if (nativeBalance < gas * maxFeePerGas) {
        return yield* chainError(
          chain,
          "insufficient_funds",
          `the hot wallet lacks native currency for gas (${nativeBalance} wei)`
        )
      }
      const nonce = Nonces.allocate(nonces, pending, yield* Clock.currentTimeMillis)
      const serialized = yield* Effect.promise(() =>
        account.signTransaction({
          type: "eip1559",
          chainId: node.chainId,
          nonce,
          to: token.address,
          data,
          value: 0n,
          gas,
          maxFeePerGas,
          maxPriorityFeePerGas: priorityFee
        })
      )
      const persisted = Persisted.encode({ v: 1, chainId: node.chainId, from: from.toLowerCase(), nonce, serialized })
      return { nonce, prepared: { transactionHash: keccak256(serialized), persisted } }
    })

    const prepare = Effect.fnUntraced(function* (order: ChainGateway.PayoutOrder) {
      const token = yield* tokenOf(node, order.rail)
      if (wallet === undefined) {
        return yield* chainError(
          chain,
          "no_hot_wallet",
          `no hot wallet key is configured for ${chain} ${node.environment}`
        )
      }
      const destination = yield* destinationOf(order)
      const units = yield* baseUnitsOf(order, token)
      const key = `${token.address}:${destination}:${units}`
      return yield* lock.withPermit(
        Effect.gen(function* () {
          const known = memo.get(order.payoutId)
          if (known !== undefined && known.key === key && (yield* viable(known))) return known.prepared
          const signed = yield* sign(wallet, order.rail, token, destination, units)
          memo.delete(order.payoutId)
          memo.set(order.payoutId, { key, prepared: signed.prepared, from: wallet.address, nonce: signed.nonce })
          // a Map iterates in insertion order: the first key is the oldest
          if (memo.size > memoLimit) memo.delete(memo.keys().next().value as string)
          return signed.prepared
        })
      )
    })

    const broadcast = Effect.fnUntraced(function* (rail: ChainGateway.Rail, prepared: ChainGateway.PreparedPayout) {
      yield* checkServed(node, rail)
      const persisted = yield* Persisted.read(chain, node.chainId, prepared)
      const hash = prepared.transactionHash.toLowerCase() as Hash
      const sent = yield* Effect.result(
        Errors.attempt(() => client.sendRawTransaction({ serializedTransaction: persisted.serialized as never }))
      )
      if (sent._tag === "Success") return
      const failure = sent.failure
      if (failure._tag !== "Node") return yield* Errors.toChainError(chain, "broadcasting the payout", failure)
      const what = `broadcasting the payout: ${failure.message}`
      const rejection = Errors.rejection(failure.message)
      switch (rejection) {
        case "duplicate":
          return
        case "insufficient_funds":
          return yield* chainError(chain, "insufficient_funds", what)
        case "fee_too_low":
          return yield* chainError(chain, "fee_too_low", what)
        case "nonce_taken":
        case "nonce_conflict": {
          // a repeat of a transaction the chain already has (mined or pending) is a success
          if ((yield* receiptOf(hash)) !== null || (yield* nodeKnows(hash))) return
          const reason = rejection === "nonce_taken" ? "nonce_consumed" : "nonce_conflict"
          return yield* chainError(chain, reason, `${what} (nonce ${persisted.nonce} holds another transaction)`)
        }
      }
      return yield* Errors.toChainError(chain, "broadcasting the payout", failure)
    })

    const lookup = Effect.fnUntraced(function* (
      rail: ChainGateway.Rail,
      prepared: ChainGateway.PreparedPayout
    ): Effect.fn.Return<ChainGateway.PayoutLookup, ChainGateway.ChainError> {
      yield* checkServed(node, rail)
      const persisted = yield* Persisted.read(chain, node.chainId, prepared)
      const hash = prepared.transactionHash.toLowerCase() as Hash
      const headBlock = yield* head(node)
      const receipt = yield* receiptOf(hash)
      if (receipt !== null) {
        // a shallow receipt may still be reorganised away, whatever its status
        if (headBlock - Number(receipt.blockNumber) + 1 < node.confirmations) return { _tag: "Pending" }
        if (receipt.status !== "success") return { _tag: "Failed", reason: "reverted" }
        return { _tag: "Confirmed", blockNumber: Number(receipt.blockNumber), confirmedAt: yield* DateTime.now }
      }
      const safe = safeBlock(node, headBlock)
      if (safe >= 0) {
        const minedAtDepth = yield* call("reading the wallet's nonce", () =>
          client.getTransactionCount({ address: persisted.from as Address, blockNumber: BigInt(safe) })
        )
        // read the receipt again: it may have appeared since, and Failed must never be said of a mined transaction
        if (minedAtDepth > persisted.nonce && (yield* receiptOf(hash)) === null) {
          return { _tag: "Failed", reason: "nonce_consumed" }
        }
      }
      return (yield* nodeKnows(hash)) ? { _tag: "Pending" } : { _tag: "Unknown" }
    })

    return { prepare, broadcast, lookup }
  })
