/**
 * Token balances of many addresses at the funding depth: `balanceOf` at the safe block (the one
 * funding observations scan up to), so a reconciliation sets the books against what the funding
 * pass can have seen, never a transfer still confirming.
 *
 * `balancesPerCall` addresses per chain call, a few calls at a time:
 * - `Multicall3` (the contract at the same address on ethereum, polygon and most EVM chains): one
 *   `eth_call` of `aggregate3` per chunk. A provider counts one call, and one `balanceOf` costs a
 *   few thousand gas, so a thousand stay far below the nodes' `eth_call` gas cap (geth: 50M).
 * - `Batch` (a node without Multicall3, as a bare anvil): the chunk's `eth_call`s in one JSON-RPC
 *   batch. One HTTP round trip too, but a provider bills and rate-limits each call of a batch,
 *   and many cap a batch's size; hence Multicall3 wherever it exists.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { Array as Arr, Effect } from "effect"
import type { Address, PublicClient } from "viem"
import { checkAddress } from "../checks.ts"
import * as Erc20 from "./erc20.ts"
import * as Errors from "./errors.ts"
import { type EvmNode, head, safeBlock, type Token, tokenOf } from "./node.ts"

/** Multicall3's address wherever it is deployed by its presigned transaction. */
export const multicall3Address: Address = "0xca11bde05977b3631167028862be2a173976ca11"

export const balancesPerCall = 1_000

/** Chain calls in flight at once. */
export const concurrentCalls = 4

export type Reader =
  | { readonly _tag: "Multicall3"; readonly address: Address }
  /** A client whose transport batches (at most `balancesPerCall` per request). */
  | { readonly _tag: "Batch"; readonly client: PublicClient }

const readChunk = (
  node: EvmNode,
  reader: Reader,
  token: Token,
  owners: ReadonlyArray<Address>,
  blockNumber: bigint
) => {
  const what = `reading ${owners.length} ${token.currency} balances`
  const balanceOf = (owner: Address) =>
    ({ address: token.address, abi: Erc20.abi, functionName: "balanceOf", args: [owner] }) as const
  return Errors.call(node.chain, what, () =>
    reader._tag === "Multicall3"
      ? // one aggregate3 call: no chunking by viem (batchSize 0), and a failed balanceOf fails the whole read
        node.client.multicall({
          contracts: owners.map(balanceOf),
          multicallAddress: reader.address,
          blockNumber,
          allowFailure: false,
          batchSize: 0
        })
      : // issued in one tick, so the transport sends them as one batch
        Promise.all(owners.map((owner) => reader.client.readContract({ ...balanceOf(owner), blockNumber })))
  )
}

export const make =
  (node: EvmNode, reader: Reader) =>
  (
    rail: ChainGateway.Rail,
    addresses: ReadonlyArray<string>
  ): Effect.Effect<ReadonlyArray<Money.Decimal>, ChainGateway.ChainError> =>
    Effect.gen(function* () {
      const token = yield* tokenOf(node, rail)
      for (const address of addresses) yield* checkAddress(rail, address)
      if (addresses.length === 0) return []
      // a chain younger than the depth: genesis, where no funding address holds anything
      const blockNumber = BigInt(Math.max(0, safeBlock(node, yield* head(node))))
      const owners = addresses.map((a) => a.toLowerCase() as Address)
      const chunks = yield* Effect.forEach(
        Arr.chunksOf(owners, balancesPerCall),
        (chunk) => readChunk(node, reader, token, chunk, blockNumber),
        { concurrency: concurrentCalls }
      )
      return chunks.flat().map((units) => Money.fromBaseUnits(units, token.decimals))
    })
