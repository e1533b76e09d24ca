/**
 * Payouts from the hot wallet: an EIP-1559 ERC-20 `transfer` signed locally at the nonce core's
 * store allocates, persisted by core with every later version (fee replacements, a cancellation),
 * then broadcast (again and again if need be: the versions share one nonce, so at most one of
 * them can ever be mined).
 *
 * `lookup` reads the receipts of every version and answers for whichever was mined. It answers
 * `Failed` only when no version can ever be mined any more, both facts at depth: the mined
 * version reverted, or the wallet's nonce count at the safe block is past the nonce and no
 * version has a receipt. Everything else is `Pending` (the node has a version) or `Unknown`, so
 * core broadcasts the latest version again and a payout is never sent twice.
 *
 * `replace` signs a new version at the same nonce, both fees at least 12.5 % above the version it
 * replaces and at least what the chain asks now (2 × the head's base fee + the node's tip), never
 * above the operator's cap. It does no broadcasting: core persists the answer first.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { Clock, DateTime, Effect } from "effect"
import {
  type Address,
  checksumAddress,
  encodeFunctionData,
  formatGwei,
  type Hash,
  isAddress,
  type PrivateKeyAccount,
  zeroAddress
} from "viem"
import { chainError, shortOfTokens } from "../checks.ts"
import * as Erc20 from "./erc20.ts"
import * as Errors from "./errors.ts"
import { checkServed, type EvmNode, head, safeBlock, type Token, tokenOf } from "./node.ts"
import * as Persisted from "./persisted.ts"

/** When and how far a payout's fee is raised. */
export interface FeePolicy {
  /** A version not mined this long after it was signed (and priced below what the chain asks) is replaced. */
  readonly replaceAfterMillis: number
  /** The operator's cap on `maxFeePerGas`, in wei: no version pays more. */
  readonly maxFeePerGas: bigint
  /** The name of the cap's setting, for messages. */
  readonly capSetting: string
}

export interface Payouts {
  readonly draft: (order: ChainGateway.PayoutOrder) => Effect.Effect<ChainGateway.PayoutDraft, ChainGateway.ChainError>
  readonly broadcast: (
    rail: ChainGateway.Rail,
    prepared: ChainGateway.PreparedPayout
  ) => Effect.Effect<void, ChainGateway.ChainError>
  readonly lookup: (
    rail: ChainGateway.Rail,
    prepared: ChainGateway.PreparedPayout
  ) => Effect.Effect<ChainGateway.PayoutLookup, ChainGateway.ChainError>
  readonly replace: (
    rail: ChainGateway.Rail,
    prepared: ChainGateway.PreparedPayout,
    mode: ChainGateway.ReplaceMode
  ) => Effect.Effect<ChainGateway.Replacement, ChainGateway.ChainError>
  readonly inspect: (
    rail: ChainGateway.Rail,
    prepared: ChainGateway.PreparedPayout
  ) => Effect.Effect<ChainGateway.PayoutInspection, ChainGateway.ChainError>
  readonly hotWallet: (
    rail: Omit<ChainGateway.Rail, "token">
  ) => Effect.Effect<ChainGateway.HotWallet | null, ChainGateway.ChainError>
}

/** `x` raised by 12.5 %, rounded up, in exact integer arithmetic. */
export const raised = (x: bigint): bigint => (x * 9n + 7n) / 8n

const maxOf = (a: bigint, b: bigint) => (a > b ? a : b)
const minOf = (a: bigint, b: bigint) => (a < b ? a : b)

/** What a transaction signed now would pay: twice the head's base fee (six full blocks of rises) plus the tip. */
export interface Asks {
  readonly baseFee: bigint
  readonly tip: bigint
  readonly maxFeePerGas: bigint
}

export const asksOf = (baseFee: bigint, tip: bigint): Asks => ({ baseFee, tip, maxFeePerGas: baseFee * 2n + tip })

/**
 * The fees of a version replacing one signed with `previous`: each at least 12.5 % more (what
 * nodes require of a replacement, with room) and at least what the chain asks; the max fee
 * clamped to the cap. `null` when the cap leaves no room for a valid replacement.
 */
export const replacementFees = (
  previous: { readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint },
  asks: Asks,
  cap: bigint
): { readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint } | null => {
  const tip = maxOf(raised(previous.maxPriorityFeePerGas), asks.tip)
  const wanted = maxOf(raised(previous.maxFeePerGas), asks.baseFee * 2n + tip)
  const maxFeePerGas = minOf(wanted, cap)
  if (maxFeePerGas < raised(previous.maxFeePerGas)) return null
  // the max fee is at least 12.5 % above the old one, itself at least the old tip: the tip keeps its raise
  return { maxFeePerGas, maxPriorityFeePerGas: minOf(tip, maxFeePerGas) }
}

const gwei = (wei: bigint) => formatGwei(wei)

/** EIP-55: a mixed-case address must carry a valid checksum (which catches typos); one case carries none. */
const isPayable = (address: string) => {
  if (!isAddress(address, { strict: false }) || address.toLowerCase() === zeroAddress) return false
  const hex = address.slice(2)
  return hex === hex.toLowerCase() || hex === hex.toUpperCase() || checksumAddress(address as Address) === address
}

/** The rule `isPayable` keeps, for messages. */
const payableRule = "0x and 40 hex digits, not the zero address, a valid EIP-55 checksum when mixed case"

/** An address a payout may go to on `chain`, lowercase; `invalid_address` naming the rule otherwise. */
export const payableAddress = (chain: string, address: string) =>
  isPayable(address)
    ? Effect.succeed(address.toLowerCase() as Address)
    : Effect.fail(chainError(chain, "invalid_address", `not a payable ${chain} address (${payableRule}): ${address}`))

const destinationOf = (order: ChainGateway.PayoutOrder) => payableAddress(order.rail.chain, order.destination)

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

/** A cancellation's gas: a plain transfer of nothing. */
const cancelGas = 21_000n

export const make = (node: EvmNode, wallet: PrivateKeyAccount | undefined, policy: FeePolicy): Payouts => {
  const { chain, client } = node
  const call = <A>(what: string, f: () => Promise<A>) => Errors.call(chain, what, f)
  const cap = policy.maxFeePerGas

  const noHotWallet = () =>
    chainError(chain, "no_hot_wallet", `no hot wallet key is configured for ${chain} ${node.environment}`)

  const receiptOf = (hash: Hash) =>
    call("reading a receipt", () =>
      client.getTransactionReceipt({ hash }).catch((e: unknown) => {
        if (e instanceof Error && e.name === "TransactionReceiptNotFoundError") return null
        throw e
      })
    )

  /** The first version with a receipt (the versions share a nonce: at most one is mined). */
  const minedVersion = (payout: Persisted.Payout) =>
    Effect.map(
      Effect.forEach(payout.versions, (v) => Effect.map(receiptOf(v.hash), (receipt) => ({ version: v, receipt })), {
        concurrency: "unbounded"
      }),
      (found) => found.find((f) => f.receipt !== null) ?? null
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

  const nodeKnowsAny = (payout: Persisted.Payout) =>
    Effect.map(
      Effect.forEach(payout.versions, (v) => nodeKnows(v.hash), { concurrency: "unbounded" }),
      (known) => known.some((k) => k)
    )

  /** The head's base fee and the node's tip. */
  const readAsks = Effect.map(
    Effect.all(
      [
        call("reading the latest block", () => client.getBlock({ blockTag: "latest" })),
        call("reading the priority fee", () => client.estimateMaxPriorityFeePerGas())
      ],
      { concurrency: "unbounded" }
    ),
    ([block, tip]) => asksOf(block.baseFeePerGas ?? 0n, tip)
  )

  const readPersisted = (rail: ChainGateway.Rail, prepared: ChainGateway.PreparedPayout) =>
    Effect.flatMap(checkServed(node, rail), () => Persisted.read(chain, node.chainId, prepared))

  const signAt = (
    account: PrivateKeyAccount,
    nonce: number,
    call: { readonly to: Address; readonly data: `0x${string}`; readonly gas: bigint },
    fees: { readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint },
    kind: Persisted.Kind
  ) =>
    Effect.gen(function* () {
      const signedAt = yield* Clock.currentTimeMillis
      // local: the key signs in memory, no RPC
      const serialized = yield* Effect.promise(() =>
        account.signTransaction({
          type: "eip1559",
          chainId: node.chainId,
          nonce,
          to: call.to,
          data: call.data,
          value: 0n,
          gas: call.gas,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas
        })
      )
      return { serialized, kind, ...fees, signedAt } satisfies Persisted.Signed
    })

  const draft = Effect.fnUntraced(function* (order: ChainGateway.PayoutOrder) {
    const token = yield* tokenOf(node, order.rail)
    if (wallet === undefined) return yield* noHotWallet()
    const account = wallet
    const destination = yield* destinationOf(order)
    const units = yield* baseUnitsOf(order, token)
    const from = account.address
    const [tokenBalance, nativeBalance, floor, pending, asks] = yield* Effect.all(
      [
        call("reading the hot wallet's token balance", () =>
          client.readContract({ address: token.address, abi: Erc20.abi, functionName: "balanceOf", args: [from] })
        ),
        call("reading the hot wallet's balance", () => client.getBalance({ address: from })),
        call("reading the hot wallet's nonce", () => client.getTransactionCount({ address: from, blockTag: "latest" })),
        call("reading the hot wallet's pending nonce", () =>
          client.getTransactionCount({ address: from, blockTag: "pending" })
        ),
        readAsks
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
    // what the chain asks, but never above the cap: above it, the payout waits for fees to fall
    const maxFeePerGas = minOf(asks.maxFeePerGas, cap)
    const fees = { maxFeePerGas, maxPriorityFeePerGas: minOf(asks.tip, maxFeePerGas) }
    if (nativeBalance < gas * maxFeePerGas) {
      return yield* chainError(
        chain,
        "insufficient_funds",
        `the hot wallet lacks native currency for gas (${nativeBalance} wei)`
      )
    }
    const header = { chainId: node.chainId, from: from.toLowerCase(), nonce: 0 }
    const sign = (nonce: number | null) =>
      nonce === null || !Number.isSafeInteger(nonce) || nonce < 0
        ? Effect.die(new Error(`an EVM payout is signed at a nonce, got ${nonce}`))
        : Effect.map(signAt(account, nonce, { to: token.address, data, gas }, fees, "transfer"), (signed) =>
            Persisted.prepared({ ...header, nonce }, [signed])
          )
    return {
      nonceAccount: { signer: from.toLowerCase(), floor, pending },
      sign
    } satisfies ChainGateway.PayoutDraft
  })

  const broadcast = Effect.fnUntraced(function* (rail: ChainGateway.Rail, prepared: ChainGateway.PreparedPayout) {
    const payout = yield* readPersisted(rail, prepared)
    const latest = Persisted.latest(payout)
    const sent = yield* Effect.result(
      Errors.attempt(() => client.sendRawTransaction({ serializedTransaction: latest.serialized as never }))
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
        return yield* chainError(
          chain,
          "fee_too_low",
          `${what} (it pays at most ${gwei(latest.maxFeePerGas)} gwei per gas)`
        )
      case "nonce_taken":
      case "nonce_conflict": {
        // a version already mined, or the latest already held by the node: the broadcast has nothing to add
        if ((yield* minedVersion(payout)) !== null || (yield* nodeKnows(latest.hash))) return
        const reason = rejection === "nonce_taken" ? "nonce_consumed" : "nonce_conflict"
        return yield* chainError(chain, reason, `${what} (nonce ${payout.nonce} holds another transaction)`)
      }
    }
    return yield* Errors.toChainError(chain, "broadcasting the payout", failure)
  })

  const lookup = Effect.fnUntraced(function* (
    rail: ChainGateway.Rail,
    prepared: ChainGateway.PreparedPayout
  ): Effect.fn.Return<ChainGateway.PayoutLookup, ChainGateway.ChainError> {
    const payout = yield* readPersisted(rail, prepared)
    const headBlock = yield* head(node)
    const mined = yield* minedVersion(payout)
    if (mined !== null && mined.receipt !== null) {
      const receipt = mined.receipt
      // a shallow receipt may still be reorganised away, whatever its status
      if (headBlock - Number(receipt.blockNumber) + 1 < node.confirmations) return { _tag: "Pending" }
      if (receipt.status !== "success") return { _tag: "Failed", reason: "reverted" }
      return {
        _tag: "Confirmed",
        blockNumber: Number(receipt.blockNumber),
        confirmedAt: yield* DateTime.now,
        transactionHash: mined.version.hash,
        cancelled: mined.version.kind === "cancel"
      }
    }
    const safe = safeBlock(node, headBlock)
    if (safe >= 0) {
      const minedAtDepth = yield* call("reading the wallet's nonce", () =>
        client.getTransactionCount({ address: payout.from, blockNumber: BigInt(safe) })
      )
      // read the receipts again: one may have appeared since, and Failed must never be said of a mined version
      if (minedAtDepth > payout.nonce && (yield* minedVersion(payout)) === null) {
        return { _tag: "Failed", reason: "nonce_consumed" }
      }
    }
    return (yield* nodeKnowsAny(payout)) ? { _tag: "Pending" } : { _tag: "Unknown" }
  })

  const replace = Effect.fnUntraced(function* (
    rail: ChainGateway.Rail,
    prepared: ChainGateway.PreparedPayout,
    mode: ChainGateway.ReplaceMode
  ): Effect.fn.Return<ChainGateway.Replacement, ChainGateway.ChainError> {
    const payout = yield* readPersisted(rail, prepared)
    if (wallet === undefined) return yield* noHotWallet()
    if (wallet.address.toLowerCase() !== payout.from) {
      return yield* chainError(
        chain,
        "invalid_prepared",
        `the payout was signed by ${payout.from}, not by the configured hot wallet: it cannot be replaced`
      )
    }
    const latest = Persisted.latest(payout)
    const [asks, count, mined] = yield* Effect.all(
      [
        readAsks,
        call("reading the hot wallet's nonce", () =>
          client.getTransactionCount({ address: payout.from, blockTag: "latest" })
        ),
        minedVersion(payout)
      ],
      { concurrency: "unbounded" }
    )
    const waiting = (reason: ChainGateway.PayoutWait, message: string): ChainGateway.Replacement => ({
      _tag: "Waiting",
      reason,
      message
    })
    if (mined !== null && mined.receipt !== null) {
      return waiting(
        "mining",
        `version ${mined.version.hash} was mined in block ${mined.receipt.blockNumber}: nothing to replace`
      )
    }
    if (count > payout.nonce) {
      // consumed, by no version we could find yet (or one mined since): the lookup settles it at depth
      return waiting("mining", `nonce ${payout.nonce} is already taken on chain: the lookup decides at depth`)
    }
    const asked = `the chain asks ${gwei(asks.maxFeePerGas)} gwei (base fee ${gwei(asks.baseFee)} × 2 + tip ${gwei(asks.tip)})`
    if (mode === "due") {
      if (count < payout.nonce) {
        return waiting(
          "behind_nonce",
          `nonce ${payout.nonce} waits for the hot wallet's nonce ${count} (and any between) to be mined`
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
    const target =
      kind === "cancel"
        ? { to: payout.from, data: "0x" as const, gas: cancelGas }
        : { to: latest.to, data: latest.data, gas: latest.gas }
    const signed = yield* signAt(wallet, payout.nonce, target, fees, kind)
    return {
      _tag: "Replaced",
      prepared: Persisted.prepared(payout, [...payout.versions, signed])
    }
  })

  const inspect = Effect.fnUntraced(function* (rail: ChainGateway.Rail, prepared: ChainGateway.PreparedPayout) {
    const payout = yield* readPersisted(rail, prepared)
    const asks = yield* readAsks
    return {
      versions: payout.versions.map(
        (v): ChainGateway.PayoutVersion => ({
          transactionHash: v.hash,
          nonce: payout.nonce,
          kind: v.kind,
          fees: {
            max_fee_per_gas_gwei: gwei(v.maxFeePerGas),
            max_priority_fee_per_gas_gwei: gwei(v.maxPriorityFeePerGas)
          },
          signedAt: DateTime.makeUnsafe(v.signedAt)
        })
      ),
      chainAsks: {
        base_fee_gwei: gwei(asks.baseFee),
        max_fee_per_gas_gwei: gwei(asks.maxFeePerGas),
        max_priority_fee_per_gas_gwei: gwei(asks.tip),
        cap_gwei: gwei(cap)
      }
    } satisfies ChainGateway.PayoutInspection
  })

  const hotWallet = Effect.fnUntraced(function* (rail: Omit<ChainGateway.Rail, "token">) {
    yield* checkServed(node, rail)
    if (wallet === undefined) return null
    const address = wallet.address
    const native = call("reading the hot wallet's balance", () => client.getBalance({ address })).pipe(
      Effect.map((wei) => ({ asset: "NATIVE" as const, amount: Money.fromBaseUnits(wei, 18) }))
    )
    const tokens = Array.from(node.tokens.values(), (token) =>
      call(`reading the hot wallet's ${token.currency} balance`, () =>
        client.readContract({ address: token.address, abi: Erc20.abi, functionName: "balanceOf", args: [address] })
      ).pipe(Effect.map((units) => ({ asset: token.currency, amount: Money.fromBaseUnits(units, token.decimals) })))
    )
    const balances = yield* Effect.all([native, ...tokens], { concurrency: "unbounded" })
    return { address: address.toLowerCase(), balances } satisfies ChainGateway.HotWallet
  })

  return { draft, broadcast, lookup, replace, inspect, hotWallet }
}
