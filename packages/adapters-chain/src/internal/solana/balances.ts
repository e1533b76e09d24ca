/**
 * Balances: what an SPL token account holds; the balances of many owners' associated accounts for
 * a rail's mint; the lamports of many accounts (SOL, 9 decimals). Read `getMultipleAccounts` 100
 * accounts a call (the RPC's limit), at the commitment funding counts at, so a reconciliation of
 * thousands of funding addresses costs tens of calls and sets the books against what the funding
 * pass can have seen. An owner without the account holds 0.
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { getAssociatedTokenAddressSync, unpackAccount } from "@solana/spl-token"
import type { AccountInfo, PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import { chainError } from "../checks.ts"
import * as Errors from "./errors.ts"
import { solDecimals } from "./native.ts"
import { checkServed, parseAddress, type SolanaNode, tokenOf } from "./node.ts"

/** `getMultipleAccounts` answers for at most this many accounts per call. */
export const accountsPerCall = 100

/** The base units `account` holds (its `info`; null: no account, 0). */
export const unitsOf = (
  account: PublicKey,
  info: AccountInfo<Buffer> | null
): Effect.Effect<bigint, ChainGateway.ChainError> =>
  info === null
    ? Effect.succeed(0n)
    : Effect.try({
        try: () => unpackAccount(account, info).amount,
        catch: () =>
          chainError("solana", "rpc_error", `${account.toBase58()} is not an SPL token account, as the node reads it`)
      })

/** The accounts' infos, `accountsPerCall` at a time, in their order. */
const accountsOf = (node: SolanaNode, accounts: ReadonlyArray<PublicKey>, what: string) =>
  Effect.map(
    Effect.forEach(
      Array.from({ length: Math.ceil(accounts.length / accountsPerCall) }, (_, i) =>
        accounts.slice(i * accountsPerCall, (i + 1) * accountsPerCall)
      ),
      (chunk) => Errors.call(what, () => node.connection.getMultipleAccountsInfo(chunk, node.commitment)),
      { concurrency: 2 }
    ),
    (chunks) => chunks.flat()
  )

export const read = Effect.fnUntraced(function* (
  node: SolanaNode,
  rail: ChainGateway.Rail,
  addresses: ReadonlyArray<string>
): Effect.fn.Return<ReadonlyArray<Money.Decimal>, ChainGateway.ChainError> {
  const token = yield* tokenOf(node, rail)
  const owners = yield* Effect.forEach(addresses, parseAddress)
  // off the curve too: a program-derived address owns token accounts like a wallet
  const accounts = owners.map((owner) => getAssociatedTokenAddressSync(token.mint, owner, true))
  const infos = yield* accountsOf(node, accounts, "reading token balances")
  yield* Effect.annotateCurrentSpan("rpc_calls", Math.ceil(accounts.length / accountsPerCall))
  return yield* Effect.forEach(accounts, (account, i) =>
    Effect.map(unitsOf(account, infos[i] ?? null), (units) => Money.fromBaseUnits(units, token.decimals))
  )
})

/** The lamports of `addresses` (wallets, as any account: none is 0), as SOL. */
export const native = Effect.fnUntraced(function* (
  node: SolanaNode,
  rail: Omit<ChainGateway.Rail, "token">,
  addresses: ReadonlyArray<string>
): Effect.fn.Return<ReadonlyArray<Money.Decimal>, ChainGateway.ChainError> {
  yield* checkServed(node, rail)
  const accounts = yield* Effect.forEach(addresses, parseAddress)
  const infos = yield* accountsOf(node, accounts, "reading SOL balances")
  yield* Effect.annotateCurrentSpan("rpc_calls", Math.ceil(accounts.length / accountsPerCall))
  return accounts.map((_, i) => Money.fromBaseUnits(BigInt(infos[i]?.lamports ?? 0), solDecimals))
})
