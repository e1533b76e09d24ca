/**
 * What every EVM gateway operation shares once the layer is built: the RPC client, the chain's
 * id, the depth rule and the configured tokens (decimals verified on chain), plus the rail checks.
 */
import type { ChainGateway, Partner, Rail } from "@ratelock/core"
import { Effect } from "effect"
import type { Address, PublicClient } from "viem"
import { chainError } from "../checks.ts"
import * as Errors from "./errors.ts"

export type EvmChain = "ethereum" | "polygon"

export interface Token {
  readonly currency: Rail.FundsCurrency
  /** Lowercase contract address. */
  readonly address: Address
  readonly decimals: number
}

export interface EvmNode {
  readonly chain: EvmChain
  readonly environment: Partner.Environment
  readonly client: PublicClient
  readonly chainId: number
  readonly confirmations: number
  readonly maxLogRange: number
  readonly lookbackBlocks: number
  readonly tokens: ReadonlyMap<Rail.FundsCurrency, Token>
}

/** The rail (its token aside) is this gateway's chain and environment. */
export const checkServed = (node: EvmNode, rail: Omit<ChainGateway.Rail, "token">) =>
  rail.chain === node.chain && rail.environment === node.environment
    ? Effect.void
    : Effect.fail(
        chainError(
          rail.chain,
          "unsupported_rail",
          `this gateway serves ${node.chain} ${node.environment}, not ${rail.chain} ${rail.environment}`
        )
      )

/** The rail's token as configured, after `checkServed`. */
export const tokenOf = (node: EvmNode, rail: ChainGateway.Rail) =>
  Effect.flatMap(checkServed(node, rail), () => {
    const token = node.tokens.get(rail.token)
    return token === undefined
      ? Effect.fail(chainError(rail.chain, "unsupported_token", `${rail.token} is not configured on ${rail.chain}`))
      : Effect.succeed(token)
  })

/** The latest block number, never from viem's cache (depth is counted from it). */
export const head = (node: EvmNode) =>
  Effect.map(
    Errors.call(node.chain, "reading the head block", () => node.client.getBlockNumber({ cacheTime: 0 })),
    Number
  )

/** The highest block with `confirmations` depth: a transfer in block b counts once head − b + 1 ≥ confirmations. */
export const safeBlock = (node: EvmNode, headBlock: number) => headBlock - node.confirmations + 1
