/**
 * What every Solana gateway operation shares once the layer is built: the RPC connection, the
 * commitment that counts as confirmed, and the configured mints (decimals read from the chain),
 * plus the rail and address checks.
 */
import type { ChainGateway, Partner, Rail } from "@ratelock/core"
import { PublicKey, type Connection } from "@solana/web3.js"
import { Effect } from "effect"
import * as Base58 from "../base58.ts"
import { chainError } from "../checks.ts"

export type Commitment = "confirmed" | "finalized"

export interface Token {
  readonly currency: Rail.FundsCurrency
  readonly mint: PublicKey
  readonly decimals: number
}

export interface SolanaNode {
  readonly environment: Partner.Environment
  readonly connection: Connection
  /** Transfers and payouts count once the node reports them at this commitment. */
  readonly commitment: Commitment
  readonly tokens: ReadonlyMap<Rail.FundsCurrency, Token>
}

/** The rail is Solana in this gateway's environment. */
export const checkServed = (node: SolanaNode, rail: Pick<ChainGateway.Rail, "chain" | "environment">) =>
  rail.chain === "solana" && rail.environment === node.environment
    ? Effect.void
    : Effect.fail(
        chainError(
          rail.chain,
          "unsupported_rail",
          `this gateway serves solana ${node.environment}, not ${rail.chain} ${rail.environment}`
        )
      )

/** The rail's token as configured, after `checkServed`. */
export const tokenOf = (node: SolanaNode, rail: ChainGateway.Rail) =>
  Effect.flatMap(checkServed(node, rail), () => {
    const token = node.tokens.get(rail.token)
    return token === undefined
      ? Effect.fail(chainError("solana", "unsupported_token", `${rail.token} is not configured on solana`))
      : Effect.succeed(token)
  })

/**
 * A wallet address: base58 of 32 bytes. On the ed25519 curve or not: program-derived addresses
 * (multisig vaults, exchange deposit programs) own token accounts too.
 */
export const parseAddress = (address: string) =>
  Base58.decode(address)?.length === 32
    ? Effect.succeed(new PublicKey(address))
    : Effect.fail(chainError("solana", "invalid_address", `not a solana address (base58 of 32 bytes): ${address}`))
