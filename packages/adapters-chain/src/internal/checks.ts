/**
 * What both simulated chains refuse, as `ChainError` reasons: tokens not
 * issued on a chain, malformed addresses, HD indexes and cursors, non-positive amounts.
 */
import { ChainGateway, Money, Rail } from "@ratelock/core"
import { Effect } from "effect"
import * as Encoding from "./encoding.ts"

export const chainError = (chain: string, reason: ChainGateway.FailureReason, message: string) =>
  new ChainGateway.ChainError({ chain, reason, message })

export const checkRail = (rail: ChainGateway.Rail) =>
  Rail.tokenDecimals(rail.token, rail.chain) === undefined
    ? Effect.fail(chainError(rail.chain, "unsupported_token", `${rail.token} is not issued on ${rail.chain}`))
    : Effect.void

export const checkAddress = (rail: Pick<ChainGateway.Rail, "chain">, address: string) =>
  Encoding.isAddress(rail.chain, address)
    ? Effect.void
    : Effect.fail(
        chainError(
          rail.chain,
          "invalid_address",
          `not a ${rail.chain} address (${Encoding.addressRule(rail.chain)}): ${address}`
        )
      )

export const checkIndex = (rail: ChainGateway.Rail, index: number) =>
  Number.isSafeInteger(index) && index >= 0
    ? Effect.void
    : Effect.fail(chainError(rail.chain, "invalid_index", `HD index must be a whole number ≥ 0, got ${index}`))

type Movement = "transfer" | "payout" | "sweep"

export const checkAmount = (rail: ChainGateway.Rail, amount: Money.Decimal, what: Movement) =>
  Money.isPositive(amount)
    ? Effect.void
    : Effect.fail(chainError(rail.chain, "invalid_amount", `a ${what} must be positive, got ${Money.format(amount)}`))

/** What a simulated transfer, payout or sweep must be: a token of the rail, at one of its addresses, above zero. */
export const checkMovement = (rail: ChainGateway.Rail, address: string, amount: Money.Decimal, what: Movement) =>
  Effect.andThen(checkRail(rail), Effect.andThen(checkAddress(rail, address), checkAmount(rail, amount, what)))

/** A funding cursor: the last block seen (`null` = from the start, block 0). */
export const parseCursor = (rail: ChainGateway.Rail, cursor: string | null) =>
  cursor === null
    ? Effect.succeed(0)
    : /^[0-9]{1,15}$/.test(cursor)
      ? Effect.succeed(Number(cursor))
      : Effect.fail(chainError(rail.chain, "invalid_cursor", `not a block number: ${cursor}`))

/**
 * Why a real gateway refuses a draft for want of the token (`insufficient_funds`): the hot
 * wallet's balance, what payouts signed and not yet confirmed already committed of it, and the
 * amount. A draft passes only when the balance covers `committed + amount`.
 */
export const shortOfTokens = (
  held: Money.Decimal,
  committed: Money.Decimal,
  amount: Money.Decimal,
  token: string
): string =>
  `the hot wallet holds ${Money.format(held)} ${token}, ${Money.format(committed)} ${token} of it committed to ` +
  `payouts signed and not yet confirmed, and this payout needs ${Money.format(amount)} ${token}`
