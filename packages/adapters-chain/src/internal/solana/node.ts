/**
 * What every Solana gateway operation shares once the layer is built: the RPC connection, the
 * commitment that counts as confirmed, and the configured mints (decimals read from the chain),
 * plus the rail, address and amount checks.
 */
import { type ChainGateway, Money, type Partner, type Rail } from "@ratelock/core"
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { type AccountInfo, type Connection, PublicKey } from "@solana/web3.js"
import { BigDecimal, Effect } from "effect"
import * as Base58 from "../base58.ts"
import { chainError, checkAmount } from "../checks.ts"

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

/**
 * A destination that can own a token account: tokens paid "to" a token account, a mint or a
 * program would sit where nobody can move them. `info` is the address's account (null: none yet).
 */
export const checkWallet = (address: PublicKey, info: AccountInfo<Buffer> | null) => {
  const owner = info?.owner
  if (owner !== undefined && (owner.equals(TOKEN_PROGRAM_ID) || owner.equals(TOKEN_2022_PROGRAM_ID))) {
    return Effect.fail(
      chainError("solana", "invalid_address", `${address.toBase58()} is a token account or mint, not a wallet`)
    )
  }
  return info?.executable === true
    ? Effect.fail(chainError("solana", "invalid_address", `${address.toBase58()} is a program, not a wallet`))
    : Effect.void
}

/** `amount` in `token`'s base units: positive, whole in base units, and within SPL Token's u64. */
export const unitsOf = (rail: ChainGateway.Rail, token: Token, amount: Money.Decimal, what: "payout" | "sweep") =>
  Effect.flatMap(checkAmount(rail, amount, what), () => {
    const units = Money.toBaseUnits(amount, token.decimals)
    return BigDecimal.equals(Money.fromBaseUnits(units, token.decimals), amount) && units < 2n ** 64n
      ? Effect.succeed(units)
      : Effect.fail(
          chainError(
            "solana",
            "invalid_amount",
            `${Money.format(amount)} is not a whole number of ${token.currency} base units`
          )
        )
  })
