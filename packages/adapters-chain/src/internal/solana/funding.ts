/**
 * Funding by polling: the deposit owner's associated token account for the rail's mint is what
 * pays a contract; the owner's other SPL token accounts are watched for stray transfers.
 *
 * The cursor is a slot: everything at or below it has been scanned. One observation reads the
 * slot the node holds at the configured commitment (`tip`), then lists each watched account's
 * signatures newest first down to the cursor (pages of 1000, with `minContextSlot: tip`, so a
 * lagging node behind a load balancer refuses rather than answers with less), keeps the
 * successful ones in `(cursor, tip]`, and reads each transaction at the same commitment. The next
 * cursor is `tip`. Only slots at the commitment are ever read, so the commitment is the depth:
 * nothing rolled back is reported. Any failure fails the whole observation and the cursor stays.
 *
 * Transfers into the associated account are `transfers`; into any other token account of the
 * owner (another mint, or the rail's mint in a non-associated account) `stray`, for an operator.
 *
 * `null` scans the account's whole history: a deposit address is fresh, its history short.
 * Zero-amount transfers (address-poisoning spam) are dropped. Token accounts the owner has closed
 * are no longer listed, so stray transfers into them may be missed (the funds left with them).
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { PublicKey, type ConfirmedSignatureInfo, type SignaturesForAddressOptions } from "@solana/web3.js"
import { BigDecimal, DateTime, Effect } from "effect"
import { chainError, parseCursor } from "../checks.ts"
import * as Errors from "./errors.ts"
import { parseAddress, type SolanaNode, tokenOf } from "./node.ts"
import * as Transfers from "./transfers.ts"

const pageSize = 1000

/** The signatures of successful transactions touching `account` in slots `(after, tip]`, oldest first. */
const signaturesOf = Effect.fnUntraced(function* (node: SolanaNode, account: PublicKey, after: number, tip: number) {
  const found: Array<ConfirmedSignatureInfo> = []
  let before: string | undefined
  for (;;) {
    const options: SignaturesForAddressOptions = { limit: pageSize, minContextSlot: tip }
    if (before !== undefined) options.before = before
    const page = yield* Errors.call(`listing the transactions of ${account.toBase58()}`, () =>
      node.connection.getSignaturesForAddress(account, options, node.commitment)
    )
    for (const info of page) {
      if (info.slot <= after) return found.reverse()
      if (info.slot <= tip && info.err === null) found.push(info)
    }
    if (page.length < pageSize) return found.reverse()
    before = page[page.length - 1]!.signature
  }
})

/**
 * The owner's SPL token accounts and their mints (Token-2022 ones are not watched), or `undefined`
 * from a node that refuses the query (some disable the owner index it needs, -32010): then only
 * the associated account is watched and stray transfers go unreported, rather than funding stop.
 */
const tokenAccountsOf = (node: SolanaNode, owner: PublicKey) =>
  Errors.call(`listing the token accounts of ${owner.toBase58()}`, () =>
    node.connection.getTokenAccountsByOwner(owner, { programId: TOKEN_PROGRAM_ID }, node.commitment)
  ).pipe(
    Effect.map((found) =>
      found.value.map(
        ({ pubkey, account }) => [pubkey.toBase58(), new PublicKey(account.data.subarray(0, 32)).toBase58()] as const
      )
    ),
    Effect.catchIf(
      (error) => error.reason === "rpc_error",
      (error) => Effect.as(Effect.logWarning("solana funding: stray transfers not watched", error.message), undefined)
    )
  )

/**
 * A listed (or landed) transaction, at the commitment; a node that knows it but cannot return it
 * is behind.
 */
export const transactionOf = (node: SolanaNode, signature: string) =>
  Effect.flatMap(
    Errors.call(`reading transaction ${signature}`, () =>
      node.connection.getTransaction(signature, { commitment: node.commitment, maxSupportedTransactionVersion: 0 })
    ),
    (transaction) =>
      transaction === null
        ? Effect.fail(chainError("solana", "rpc_unavailable", `the node knows ${signature} but does not return it`))
        : Effect.succeed({ signature, transaction })
  )

export const observe = Effect.fnUntraced(function* (
  node: SolanaNode,
  rail: ChainGateway.Rail,
  address: string,
  cursor: string | null
): Effect.fn.Return<ChainGateway.FundingObservation, ChainGateway.ChainError> {
  const token = yield* tokenOf(node, rail)
  const owner = yield* parseAddress(address)
  const after = cursor === null ? -1 : yield* parseCursor(rail, cursor)
  const tip = yield* Errors.call("reading the slot", () => node.connection.getSlot(node.commitment))
  // a node behind the cursor (another one behind a load balancer) has nothing new to say
  if (tip <= after) return { transfers: [], cursor: String(after) }

  const ata = getAssociatedTokenAddressSync(token.mint, owner, true).toBase58()
  const others = yield* tokenAccountsOf(node, owner)
  // account → mint; the associated account first, listed even before it exists
  const watched = new Map([[ata, token.mint.toBase58()], ...(others ?? [])])
  const signatures = new Map<string, ConfirmedSignatureInfo>()
  for (const account of watched.keys()) {
    for (const info of yield* signaturesOf(node, new PublicKey(account), after, tip)) {
      signatures.set(info.signature, info)
    }
  }
  const ordered = [...signatures.values()].sort((a, b) => a.slot - b.slot)
  const transactions = yield* Effect.forEach(ordered, (info) => transactionOf(node, info.signature), {
    concurrency: 4
  })

  const transfers: Array<ChainGateway.ConfirmedTransfer> = []
  const stray: Array<ChainGateway.StrayTransfer> = []
  const confirmedAt = yield* DateTime.now
  for (const { signature, transaction } of transactions) {
    for (const movement of Transfers.movementsInto(transaction, new Set(watched.keys()))) {
      if (movement.amount === 0n) continue
      const seen = { transactionHash: signature, index: movement.index, blockNumber: transaction.slot }
      if (movement.destination === ata) {
        const amount = BigDecimal.normalize(Money.fromBaseUnits(movement.amount, token.decimals))
        transfers.push({ ...seen, amount, confirmedAt })
      } else {
        const mint = movement.mint ?? watched.get(movement.destination) ?? "unknown"
        stray.push({ ...seen, token: mint, baseUnits: movement.amount.toString() })
      }
    }
  }
  // `stray` absent: this node would not list the owner's other accounts
  return others === undefined ? { transfers, cursor: String(tip) } : { transfers, stray, cursor: String(tip) }
})
