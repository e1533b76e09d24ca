/**
 * The sandbox helpers' rules (api-decisions.md, "Sandbox"): what a partner may fund, what is still
 * due, and which contracts still have a payout to come. The hosts' helpers only act on them.
 */
import { Effect } from "effect"
import { FundingAmountInvalid, InvalidContractState } from "../kernel/ApiError.ts"
import { type ContractRecord, type ContractStatus, isAwaitingFunds } from "../terms/Contract.ts"
import * as Money from "../kernel/Money.ts"

/**
 * What is still due: the total less what reached the funding address (`sent`, confirmed or still
 * confirming) or was confirmed, whichever is more; never below zero.
 */
export const stillDue = (contract: ContractRecord, sent: Money.Decimal): Money.Decimal =>
  Money.max(Money.zero, Money.subtract(contract.totalAmount, Money.max(sent, contract.fundedAmount)))

/** Only a contract awaiting funds can be funded. */
export const requireFundable = (contract: ContractRecord): Effect.Effect<void, InvalidContractState> =>
  isAwaitingFunds(contract.status)
    ? Effect.void
    : Effect.fail(
        new InvalidContractState({
          message: `contract ${contract.id} is ${contract.status}: only a contract awaiting funds can be funded`
        })
      )

const invalidAmount = (message: string) => Effect.fail(new FundingAmountInvalid({ message }))

/**
 * The amount a fund request sends: the one it asked for, or (none asked) what is still due; above
 * zero and in whole token units.
 */
export const fundingAmount = (
  contract: ContractRecord,
  request: { readonly asked: Money.Decimal } | { readonly due: Money.Decimal }
): Effect.Effect<Money.Decimal, FundingAmountInvalid> => {
  const value = "asked" in request ? request.asked : request.due
  if (!Money.isPositive(value)) {
    return invalidAmount(
      "asked" in request
        ? `amount ${Money.format(value)} must be above 0`
        : `nothing is due: ${Money.format(contract.totalAmount)} was already sent to the funding address`
    )
  }
  if (!Money.equals(Money.roundDown(value), value)) {
    return invalidAmount(`amount ${Money.format(value)} has more than ${Money.tokenScale} decimals`)
  }
  return Effect.succeed(value)
}

/** A payout may still come: nothing was paid, and the contract is not over. */
const payoutToCome: ReadonlyArray<ContractStatus> = ["quote_created", "funds_in_route", "active", "exercised"]

/** Only a contract with a payout to come can have its next payout fail. */
export const requirePayoutToCome = (contract: ContractRecord): Effect.Effect<void, InvalidContractState> =>
  payoutToCome.includes(contract.status)
    ? Effect.void
    : Effect.fail(
        new InvalidContractState({ message: `contract ${contract.id} is ${contract.status}: it has no payout to come` })
      )

/**
 * The token amount an inbound `funds_in_route` with `amount` makes arrive in the sandbox: rounded
 * down to whole token units; nothing when that is not above zero.
 */
export const inboundTransfer = (amount: Money.Decimal): Money.Decimal | undefined => {
  const rounded = Money.roundDown(amount)
  return Money.isPositive(rounded) ? rounded : undefined
}
