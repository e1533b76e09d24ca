/**
 * Balances of many addresses at the funding depth: the token's `balanceOf`, or the native balance
 * (ether, POL: 18 decimals), at the safe block (the one funding observations scan up to), so a
 * reconciliation sets the books against what the funding pass can have seen, never a transfer,
 * payout or sweep still confirming.
 *
 * `balancesPerCall` addresses per chain call, a few calls at a time:
 * - `Multicall3` (the contract at the same address on ethereum, polygon and most EVM chains): one
 *   `eth_call` of `aggregate3` per chunk, of `balanceOf`s or of Multicall3's own `getEthBalance`s.
 *   A provider counts one call, and one `balanceOf` costs a few thousand gas, so a thousand stay
 *   far below the nodes' `eth_call` gas cap (geth: 50M).
 * - `Batch` (a node without Multicall3, as a bare anvil): the chunk's `eth_call`s, or
 *   `eth_getBalance`s, in one JSON-RPC batch. One HTTP round trip too, but a provider bills and
 *   rate-limits each call of a batch, and many cap a batch's size; hence Multicall3 wherever it
 *   exists.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { Array as Arr, Effect } from "effect"
import { type Address, multicall3Abi, type PublicClient } from "viem"
import { checkAddress } from "../checks.ts"
import * as Erc20 from "./erc20.ts"
import * as Errors from "./errors.ts"
import { checkServed, type EvmNode, head, safeBlock, type Token, tokenOf } from "./node.ts"

/** Multicall3's address wherever it is deployed by its presigned transaction. */
export const multicall3Address: Address = "0xca11bde05977b3631167028862be2a173976ca11"

export const balancesPerCall = 1_000

/** Chain calls in flight at once. */
export const concurrentCalls = 4

export type Reader =
  | { readonly _tag: "Multicall3"; readonly address: Address }
  /** A client whose transport batches (at most `balancesPerCall` per request). */
  | { readonly _tag: "Batch"; readonly client: PublicClient }

/** What is read of each address: a configured token's balance, or the chain's native currency's. */
type Asset = Token | "native"

const nativeDecimals = 18

const readChunk = (
  node: EvmNode,
  reader: Reader,
  asset: Asset,
  owners: ReadonlyArray<Address>,
  blockNumber: bigint
): Effect.Effect<ReadonlyArray<bigint>, ChainGateway.ChainError> => {
  const what = `reading ${owners.length} ${asset === "native" ? "native" : asset.currency} balances`
  const balanceOf = (token: Token, owner: Address) =>
    ({ address: token.address, abi: Erc20.abi, functionName: "balanceOf", args: [owner] }) as const
  // Multicall3's own `getEthBalance`: `owner.balance`, read in the same aggregate3 call
  const getEthBalance = (multicall: Address, owner: Address) =>
    ({ address: multicall, abi: multicall3Abi, functionName: "getEthBalance", args: [owner] }) as const
  // Multicall3: one aggregate3 call (no chunking by viem: batchSize 0), a failed read failing the
  // whole chunk; a batch: issued in one tick, so the transport sends them as one request
  return Errors.call(node.chain, what, () => {
    if (reader._tag === "Batch") {
      return Promise.all(
        owners.map((owner) =>
          asset === "native"
            ? reader.client.getBalance({ address: owner, blockNumber })
            : reader.client.readContract({ ...balanceOf(asset, owner), blockNumber })
        )
      )
    }
    const options = { multicallAddress: reader.address, blockNumber, allowFailure: false, batchSize: 0 } as const
    return asset === "native"
      ? node.client.multicall({ contracts: owners.map((owner) => getEthBalance(reader.address, owner)), ...options })
      : node.client.multicall({ contracts: owners.map((owner) => balanceOf(asset, owner)), ...options })
  })
}

/** The balances of `addresses` (checked for the rail's chain) at the safe block, in their order. */
const atDepth = (
  node: EvmNode,
  reader: Reader,
  rail: Omit<ChainGateway.Rail, "token">,
  asset: Asset,
  addresses: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<Money.Decimal>, ChainGateway.ChainError> =>
  Effect.gen(function* () {
    for (const address of addresses) yield* checkAddress(rail, address)
    if (addresses.length === 0) return []
    // a chain younger than the depth: genesis, where no funding address holds anything
    const blockNumber = BigInt(Math.max(0, safeBlock(node, yield* head(node))))
    const owners = addresses.map((a) => a.toLowerCase() as Address)
    const chunks = yield* Effect.forEach(
      Arr.chunksOf(owners, balancesPerCall),
      (chunk) => readChunk(node, reader, asset, chunk, blockNumber),
      { concurrency: concurrentCalls }
    )
    const decimals = asset === "native" ? nativeDecimals : asset.decimals
    return chunks.flat().map((units) => Money.fromBaseUnits(units, decimals))
  })

/** `ChainGateway.balances`: the rail's token. */
export const make =
  (node: EvmNode, reader: Reader) =>
  (
    rail: ChainGateway.Rail,
    addresses: ReadonlyArray<string>
  ): Effect.Effect<ReadonlyArray<Money.Decimal>, ChainGateway.ChainError> =>
    Effect.flatMap(tokenOf(node, rail), (token) => atDepth(node, reader, rail, token, addresses))

/** `ChainGateway.nativeBalances`: the chain's own currency, at the same depth. */
export const native =
  (node: EvmNode, reader: Reader) =>
  (
    rail: Omit<ChainGateway.Rail, "token">,
    addresses: ReadonlyArray<string>
  ): Effect.Effect<ReadonlyArray<Money.Decimal>, ChainGateway.ChainError> =>
    Effect.andThen(checkServed(node, rail), atDepth(node, reader, rail, "native", addresses))
