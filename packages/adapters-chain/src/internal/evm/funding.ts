/**
 * Funding by polling `eth_getLogs` for ERC-20 `Transfer(from, to, value)` logs into an address.
 *
 * The cursor is the last block fully scanned. One observation scans `(cursor, safe]`, where `safe`
 * is the highest block with the configured depth, in pages of `maxLogRange` blocks (at most
 * `pagesPerObservation` of them; the returned cursor says where the next one resumes). Only blocks
 * at depth are ever read, so a transfer reorganised away before reaching depth is never reported.
 *
 * `null` (a new contract) starts `lookbackBlocks` below the safe block rather than at it: the
 * address was handed out moments ago, but the first observation may come late (workers down), and
 * a payment made in between must still count. Nothing older can pay into a fresh HD index.
 *
 * Logs are not filtered by contract: the configured token's transfers are `transfers`, any other
 * contract's are `stray`. Zero-value transfers (address-poisoning spam) are dropped.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { BigDecimal, DateTime, Effect } from "effect"
import type { Address } from "viem"
import { checkAddress, parseCursor } from "../checks.ts"
import * as Erc20 from "./erc20.ts"
import * as Errors from "./errors.ts"
import { type EvmNode, head, safeBlock, tokenOf } from "./node.ts"

export const pagesPerObservation = 20

export const observe = Effect.fnUntraced(function* (
  node: EvmNode,
  rail: ChainGateway.Rail,
  address: string,
  cursor: string | null
): Effect.fn.Return<ChainGateway.FundingObservation, ChainGateway.ChainError> {
  const token = yield* tokenOf(node, rail)
  yield* checkAddress(rail, address)
  const to = address.toLowerCase() as Address
  const safe = safeBlock(node, yield* head(node))
  // block 0 is genesis, which holds no logs: counting it as scanned keeps cursors non-negative
  let last = cursor === null ? Math.max(0, safe - node.lookbackBlocks) : yield* parseCursor(rail, cursor)
  const transfers: Array<ChainGateway.ConfirmedTransfer> = []
  const stray: Array<ChainGateway.StrayTransfer> = []
  const confirmedAt = yield* DateTime.now
  for (let page = 0; page < pagesPerObservation && last < safe; page++) {
    const fromBlock = last + 1
    const toBlock = Math.min(last + node.maxLogRange, safe)
    const logs = yield* Errors.call(node.chain, `reading transfers into ${to}`, () =>
      node.client.getLogs({
        event: Erc20.transferEvent,
        args: { to },
        fromBlock: BigInt(fromBlock),
        toBlock: BigInt(toBlock),
        // drops ERC-721 transfers, which share the event's signature but index the token id
        strict: true
      })
    )
    for (const log of logs) {
      const value = log.args.value
      if (log.removed || value === 0n || log.blockNumber === null || log.transactionHash === null) continue
      const seen = { transactionHash: log.transactionHash, index: log.logIndex, blockNumber: Number(log.blockNumber) }
      if (log.address.toLowerCase() === token.address) {
        // normalised ("100.5", not "100.500000"), as the amount a partner would write
        const amount = BigDecimal.normalize(Money.fromBaseUnits(value, token.decimals))
        transfers.push({ ...seen, amount, confirmedAt })
      } else {
        stray.push({ ...seen, token: log.address.toLowerCase(), baseUnits: value.toString() })
      }
    }
    last = toBlock
  }
  const order = (a: { blockNumber: number; index: number }, b: { blockNumber: number; index: number }) =>
    a.blockNumber - b.blockNumber || a.index - b.index
  return { transfers: transfers.sort(order), stray: stray.sort(order), cursor: String(last) }
})
