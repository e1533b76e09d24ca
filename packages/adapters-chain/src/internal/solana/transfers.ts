/**
 * The SPL Token movements into watched token accounts that one confirmed transaction made, read
 * from its instructions, outer and inner (a payment routed through another program, a swap or a
 * bridge, moves tokens in an inner instruction).
 *
 * Counted: `Transfer` (3), `TransferChecked` (12), `MintTo` (7) and `MintToChecked` (14) of the
 * SPL Token program (bridged USDC arrives minted, e.g. by CCTP). Token-2022 accounts are not
 * watched. A failed transaction moved nothing.
 *
 * Each movement's index is `outer × 1000` for an outer instruction and `outer × 1000 + k` for the
 * k-th (from 1) inner instruction under it: stable for a transaction, so (signature, index) keys
 * a transfer however often it is observed. The runtime caps inner instructions per transaction
 * far below 1000.
 */
import { TOKEN_PROGRAM_ID } from "@solana/spl-token"
import type { VersionedTransactionResponse } from "@solana/web3.js"
import * as Base58 from "../base58.ts"

export interface Movement {
  readonly index: number
  /** The token account credited. */
  readonly destination: string
  /** The mint, when the instruction names it (checked variants and mints). */
  readonly mint: string | undefined
  readonly amount: bigint
}

const tokenProgram = TOKEN_PROGRAM_ID.toBase58()

/** Instruction tag → positions of (mint, destination) among its accounts (mint -1: not named). */
const layouts = new Map<number, { readonly mint: number; readonly destination: number }>([
  [3, { mint: -1, destination: 1 }], // Transfer: source, destination, authority
  [12, { mint: 1, destination: 2 }], // TransferChecked: source, mint, destination, authority
  [7, { mint: 0, destination: 1 }], // MintTo: mint, destination, authority
  [14, { mint: 0, destination: 1 }] // MintToChecked: mint, destination, authority
])

const decode = (
  keys: ReadonlyArray<string>,
  programIndex: number,
  accounts: ReadonlyArray<number>,
  data: Uint8Array | undefined,
  index: number
): Movement | undefined => {
  if (keys[programIndex] !== tokenProgram || data === undefined || data.length < 9) return undefined
  const layout = layouts.get(data[0]!)
  if (layout === undefined) return undefined
  const destination = keys[accounts[layout.destination] ?? -1]
  if (destination === undefined) return undefined
  const amount = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true)
  const mint = layout.mint < 0 ? undefined : keys[accounts[layout.mint] ?? -1]
  return { index, destination, mint, amount }
}

/** The movements of `transaction` into any of `watched` (token account addresses), in instruction order. */
export const movementsInto = (
  transaction: VersionedTransactionResponse,
  watched: ReadonlySet<string>
): Array<Movement> => {
  const meta = transaction.meta
  if (meta === null || meta.err !== null) return []
  const message = transaction.transaction.message
  // the order the runtime indexes accounts in: static keys, then lookup-table writable, readonly
  const keys = [
    ...message.staticAccountKeys,
    ...(meta.loadedAddresses?.writable ?? []),
    ...(meta.loadedAddresses?.readonly ?? [])
  ].map((key) => key.toBase58())
  const inner = new Map((meta.innerInstructions ?? []).map((group) => [group.index, group.instructions]))
  const found: Array<Movement> = []
  const keep = (movement: Movement | undefined) => {
    if (movement !== undefined && watched.has(movement.destination)) found.push(movement)
  }
  message.compiledInstructions.forEach((outer, position) => {
    keep(decode(keys, outer.programIdIndex, outer.accountKeyIndexes, outer.data, position * 1000))
    inner.get(position)?.forEach((instruction, k) => {
      keep(
        decode(
          keys,
          instruction.programIdIndex,
          instruction.accounts,
          Base58.decode(instruction.data),
          position * 1000 + k + 1
        )
      )
    })
  })
  return found
}
