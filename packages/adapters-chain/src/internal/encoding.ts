/**
 * Well-formed simulated addresses and transaction hashes per chain: EVM `0x` + hex, Solana base58.
 */
import { type ChainGateway, Money, type Rail } from "@ratelock/core"
import { Effect } from "effect"
import { Digest } from "effect/crypto"
import { Hex } from "effect/encoding"
import * as Base58 from "./base58.ts"

const isEvm = (chain: Rail.Chain) => chain !== "solana"

const bytesOf = (text: string) => new TextEncoder().encode(text)

/** An address on `chain` from a SHA-256 of `seed`: EVM its first 20 bytes as hex, Solana all 32 in base58. */
const addressOf = (digest: Digest.Digest["Service"], chain: Rail.Chain, seed: string) =>
  Effect.map(digest.digest(Digest.sha256, bytesOf(seed)), (hash) =>
    isEvm(chain) ? `0x${Hex.encode(hash.subarray(0, 20))}` : Base58.encode(hash)
  )

/** The funding address for an HD index: from a SHA-256 of `(environment, chain, index)`. */
export const address = (digest: Digest.Digest["Service"], rail: ChainGateway.Rail, index: number) =>
  addressOf(digest, rail.chain, `ratelock-sim:address:${rail.environment}:${rail.chain}:${index}`)

/**
 * The simulated hot wallet of a chain and environment, where a sweep without a destination lands:
 * from a SHA-256 of `(environment, chain)`, so fixed (the README lists them) and no funding address.
 */
export const hotWallet = (digest: Digest.Digest["Service"], rail: Omit<ChainGateway.Rail, "token">) =>
  addressOf(digest, rail.chain, `ratelock-sim:hot-wallet:${rail.environment}:${rail.chain}`)

/** A transaction hash for `label` on the rail's network: EVM 32 bytes as hex, Solana a 64-byte signature. */
export const transactionHash = (digest: Digest.Digest["Service"], rail: ChainGateway.Rail, label: string) => {
  const data = bytesOf(`ratelock-sim:tx:${rail.environment}:${rail.chain}:${label}`)
  return isEvm(rail.chain)
    ? Effect.map(digest.digest(Digest.sha256, data), (hash) => `0x${Hex.encode(hash)}`)
    : Effect.map(digest.digest(Digest.sha512, data), Base58.encode)
}

/**
 * The label a transfer's hash is derived from: unique per transfer (a sequence or nonce), or per
 * sender's `reference`, so the same reference always names the same transaction.
 */
export const transferLabel = (unique: string | number, address: string, amount: Money.Decimal) =>
  `transfer:${typeof unique === "number" ? unique : `ref:${unique}`}:${address}:${Money.format(amount)}`

const evmAddress = /^0x[0-9a-fA-F]{40}$/

export const isAddress = (chain: Rail.Chain, text: string): boolean =>
  isEvm(chain) ? evmAddress.test(text) : Base58.decode(text)?.length === 32

/** What `isAddress` asks of an address on `chain`, for messages. */
export const addressRule = (chain: Rail.Chain): string => (isEvm(chain) ? "0x and 40 hex digits" : "base58 of 32 bytes")

/** An address as it is stored: EVM lowercase (hex has two spellings), Solana as written (base58 has one). */
export const canonicalAddress = (chain: Rail.Chain, address: string): string =>
  isEvm(chain) ? address.toLowerCase() : address
