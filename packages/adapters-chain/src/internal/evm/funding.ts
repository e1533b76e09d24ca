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

/**
 * Observes several addresses in one scan: `eth_getLogs` with the addresses as the indexed `to`
 * (an OR list), from the lowest cursor up to the safe block. Each address keeps the logs past its
 * own cursor, and resumes from the scan's end or its own cursor, whichever is later.
 */
export const observeMany = Effect.fnUntraced(function* (
  node: EvmNode,
  rail: ChainGateway.Rail,
  targets: ReadonlyArray<ChainGateway.FundingTarget>
): Effect.fn.Return<ReadonlyArray<ChainGateway.FundingObservation>, ChainGateway.ChainError> {
  if (targets.length === 0) return []
  const token = yield* tokenOf(node, rail)
  for (const target of targets) yield* checkAddress(rail, target.address)
  const tos = targets.map((t) => t.address.toLowerCase() as Address)
  const distinct = [...new Set(tos)]
  const safe = safeBlock(node, yield* head(node))
  // block 0 is genesis, which holds no logs: counting it as scanned keeps cursors non-negative
  const starts = yield* Effect.forEach(targets, (t) =>
    t.cursor === null ? Effect.succeed(Math.max(0, safe - node.lookbackBlocks)) : parseCursor(rail, t.cursor)
  )
  const seen = new Map<
    string,
    { transfers: Array<ChainGateway.ConfirmedTransfer>; stray: Array<ChainGateway.StrayTransfer> }
  >(tos.map((to) => [to, { transfers: [], stray: [] }]))
  const confirmedAt = yield* DateTime.now
  let last = Math.min(...starts)
  for (let page = 0; page < pagesPerObservation && last < safe; page++) {
    const fromBlock = last + 1
    const toBlock = Math.min(last + node.maxLogRange, safe)
    const logs = yield* Errors.call(node.chain, `reading transfers into ${tos.length} addresses`, () =>
      node.client.getLogs({
        event: Erc20.transferEvent,
        args: { to: distinct },
        fromBlock: BigInt(fromBlock),
        toBlock: BigInt(toBlock),
        // drops ERC-721 transfers, which share the event's signature but index the token id
        strict: true
      })
    )
    for (const log of logs) {
      const value = log.args.value
      if (log.removed || value === 0n || log.blockNumber === null || log.transactionHash === null) continue
      const into = seen.get(log.args.to.toLowerCase())
      if (into === undefined) continue
      const at = { transactionHash: log.transactionHash, index: log.logIndex, blockNumber: Number(log.blockNumber) }
      if (log.address.toLowerCase() === token.address) {
        // normalised ("100.5", not "100.500000"), as the amount a partner would write
        const amount = BigDecimal.normalize(Money.fromBaseUnits(value, token.decimals))
        into.transfers.push({ ...at, amount, confirmedAt })
      } else {
        into.stray.push({ ...at, token: log.address.toLowerCase(), baseUnits: value.toString() })
      }
    }
    last = toBlock
  }
  const order = (a: { blockNumber: number; index: number }, b: { blockNumber: number; index: number }) =>
    a.blockNumber - b.blockNumber || a.index - b.index
  return targets.map((_, i) => {
    const { transfers, stray } = seen.get(tos[i]!)!
    const past = (t: { readonly blockNumber: number }) => t.blockNumber > starts[i]!
    return {
      transfers: transfers.filter(past).sort(order),
      stray: stray.filter(past).sort(order),
      cursor: String(Math.max(starts[i]!, last))
    }
  })
})

/** One address: `observeMany` of it alone. */
export const observe = (node: EvmNode, rail: ChainGateway.Rail, address: string, cursor: string | null) =>
  Effect.map(observeMany(node, rail, [{ address, cursor }]), (observations) => observations[0]!)
