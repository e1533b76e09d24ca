/**
 * An ERC-20 `transfer` as payouts (from the hot wallet) and sweeps (from a funding address) sign
 * it: a payable destination, the amount in base units (exact in the token's decimals), the call
 * data, and the gas limit (the sender's estimate × 1.5).
 */
import { type ChainGateway, Money } from "@ratelock/core"
import { Effect } from "effect"
import { type Address, checksumAddress, encodeFunctionData, type Hex, isAddress, zeroAddress } from "viem"
import { chainError } from "../checks.ts"
import * as Erc20 from "./erc20.ts"
import * as Errors from "./errors.ts"
import { gasLimitOf } from "./fees.ts"
import type { EvmNode, Token } from "./node.ts"

/** EIP-55: a mixed-case address must carry a valid checksum (which catches typos); one case carries none. */
const isPayable = (address: string) => {
  if (!isAddress(address, { strict: false }) || address.toLowerCase() === zeroAddress) return false
  const hex = address.slice(2)
  return hex === hex.toLowerCase() || hex === hex.toUpperCase() || checksumAddress(address as Address) === address
}

/** The rule `isPayable` keeps, for messages. */
const payableRule = "0x and 40 hex digits, not the zero address, a valid EIP-55 checksum when mixed case"

/** An address a payout may go to on `chain`, lowercase; `invalid_address` naming the rule otherwise. */
export const payableAddress = (chain: string, address: string) =>
  isPayable(address)
    ? Effect.succeed(address.toLowerCase() as Address)
    : Effect.fail(chainError(chain, "invalid_address", `not a payable ${chain} address (${payableRule}): ${address}`))

/** The amount in base units, refused unless positive and exact in the token's decimals. */
export const baseUnitsOf = (rail: ChainGateway.Rail, amount: Money.Decimal, token: Token, what: "payout" | "sweep") => {
  const units = Money.toBaseUnits(amount, token.decimals)
  return Money.isPositive(amount) && Money.equals(Money.fromBaseUnits(units, token.decimals), amount)
    ? Effect.succeed(units)
    : Effect.fail(
        chainError(
          rail.chain,
          "invalid_amount",
          `a ${what} must be positive with at most ${token.decimals} decimals, got ${Money.format(amount)}`
        )
      )
}

export const transferData = (destination: Address, units: bigint): Hex =>
  encodeFunctionData({ abi: Erc20.abi, functionName: "transfer", args: [destination, units] })

/** The gas limit of `from`'s transfer: the node's estimate with room for the state to move. */
export const gasLimit = (node: EvmNode, from: Address, token: Token, data: Hex) =>
  Effect.map(
    Effect.mapError(
      Errors.attempt(() => node.client.estimateGas({ account: from, to: token.address, data })),
      (failure) =>
        failure._tag === "Node" && /insufficient funds/i.test(failure.message)
          ? chainError(node.chain, "insufficient_funds", `estimating gas: ${failure.message}`)
          : Errors.toChainError(node.chain, "estimating gas for the transfer", failure)
    ),
    gasLimitOf
  )

/** `owner`'s balance of the token at the latest block, in base units. */
export const tokenBalance = (node: EvmNode, token: Token, owner: Address, whose: string) =>
  Errors.call(node.chain, `reading ${whose} ${token.currency} balance`, () =>
    node.client.readContract({ address: token.address, abi: Erc20.abi, functionName: "balanceOf", args: [owner] })
  )
