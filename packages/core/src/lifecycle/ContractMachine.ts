/**
 * The contract lifecycle as one pure transition function over the table in api-decisions.md.
 * Given a contract and what happened, it returns the next contract (status, history entry and
 * sequence advanced), the outbound event to queue, or a typed refusal. Nothing here does I/O.
 */
import { DateTime, Result } from "effect"
import { ContractMismatch, FundingAmountInvalid, InvalidContractState, OutsideWindow } from "../kernel/ApiError.ts"
import type { TransitionRefusal } from "../kernel/ApiError.ts"
import { type ContractRecord, type ContractStatus, type HistoryEntry, isAwaitingFunds } from "../terms/Contract.ts"
import { includes } from "../kernel/Corridor.ts"
import type { ContractExercised, FundsInRoute } from "../terms/InboundEvent.ts"
import * as Money from "../kernel/Money.ts"
import type { OutboundEventDraft, PayoutFailureCode } from "../terms/OutboundEvent.ts"
import { fiatOf } from "../kernel/Rail.ts"

/** What can happen to a contract. */
export type Command =
  | { readonly _tag: "FundsInRouteReported"; readonly event: FundsInRoute; readonly at: DateTime.Utc }
  | {
      readonly _tag: "FundingObserved"
      /** This transfer's confirmed amount; partial payments add up. */
      readonly amount: Money.Decimal
      readonly transactionHash: string
      readonly blockNumber: number
      readonly at: DateTime.Utc
    }
  | { readonly _tag: "FundingDeadlinePassed"; readonly at: DateTime.Utc }
  | { readonly _tag: "ExerciseReported"; readonly event: ContractExercised; readonly at: DateTime.Utc }
  | {
      readonly _tag: "PayoutSettled"
      readonly amount: Money.Decimal
      readonly fxDeltaInQuoteCurrency: Money.Decimal
      /** null for a zero payout: nothing was sent on-chain. */
      readonly transactionHash: string | null
      readonly blockNumber: number | null
      readonly at: DateTime.Utc
    }
  | {
      readonly _tag: "PayoutFailed"
      readonly amount: Money.Decimal
      readonly failureCode: PayoutFailureCode
      readonly failureMessage: string
      readonly nextRetryAt: DateTime.Utc | null
      readonly at: DateTime.Utc
    }
  | { readonly _tag: "WindowEnded"; readonly at: DateTime.Utc }

export type CommandTag = Command["_tag"]

export interface Transition {
  readonly contract: ContractRecord
  readonly entry: HistoryEntry
  readonly event: OutboundEventDraft | null
}

const refuse = (contract: ContractRecord, command: Command): Result.Result<never, TransitionRefusal> =>
  Result.fail(
    new InvalidContractState({
      message: `${describe(command)} is not allowed while the contract is ${contract.status}`
    })
  )

/** What the command does, in the partner's words: refusals reach partners, internal names must not. */
const describe = (command: Command): string => {
  switch (command._tag) {
    case "FundsInRouteReported":
      return "funds_in_route"
    case "ExerciseReported":
      return "contract_exercised"
    case "FundingObserved":
      return "receiving funds"
    case "FundingDeadlinePassed":
      return "ending the funding window"
    case "PayoutSettled":
      return "settling a payout"
    case "PayoutFailed":
      return "recording a failed payout"
    case "WindowEnded":
      return "ending the lock window"
  }
}

const move = (
  contract: ContractRecord,
  status: ContractStatus,
  at: DateTime.Utc,
  cause: string,
  event: OutboundEventDraft | null,
  patch: Partial<Pick<ContractRecord, "fundedAmount" | "exercise">> = {}
): Result.Result<Transition, never> => {
  const entry: HistoryEntry = { status, at, cause }
  return Result.succeed({
    contract: {
      ...contract,
      ...patch,
      status,
      history: [...contract.history, entry],
      eventSequence: contract.eventSequence + (event === null ? 0 : 1),
      updatedAt: at
    },
    entry,
    event
  })
}

/** Amount still due before the contract activates. */
export const amountDue = (contract: ContractRecord): Money.Decimal =>
  Money.max(Money.zero, Money.subtract(contract.totalAmount, contract.fundedAmount))

const fundsInRoute = (c: ContractRecord, event: FundsInRoute, at: DateTime.Utc) => {
  if (!isAwaitingFunds(c.status)) return refuse(c, { _tag: "FundsInRouteReported", event, at })
  if (event.chain != null && event.chain !== c.chain) {
    return Result.fail(
      new ContractMismatch({ message: `chain ${event.chain} differs from the contract's chain ${c.chain}` })
    )
  }
  if (event.currency != null && event.currency !== c.settlementCurrency) {
    return Result.fail(
      new ContractMismatch({
        message: `currency ${event.currency} differs from the contract's settlement currency ${c.settlementCurrency}`
      })
    )
  }
  if (event.payment_type === "deposit" && c.depositAmount === null) {
    return Result.fail(new FundingAmountInvalid({ message: "an option has no deposit to pay" }))
  }
  if (event.amount != null) {
    const due =
      event.payment_type === "premium"
        ? c.premiumAmount
        : event.payment_type === "deposit"
          ? c.depositAmount!
          : amountDue(c)
    if (!Money.isPositive(event.amount) || Money.greaterThan(event.amount, due)) {
      return Result.fail(
        new FundingAmountInvalid({
          message: `amount ${Money.format(event.amount)} must be above 0 and at most ${Money.format(due)}`
        })
      )
    }
  }
  return move(c, "funds_in_route", at, "inbound funds_in_route", null)
}

const fundingObserved = (c: ContractRecord, command: Extract<Command, { _tag: "FundingObserved" }>) => {
  if (!isAwaitingFunds(c.status)) return refuse(c, command)
  const funded = Money.sum(c.fundedAmount, command.amount)
  if (Money.lessThan(funded, c.totalAmount)) {
    return move(c, c.status, command.at, `partial funding ${Money.format(command.amount)} confirmed`, null, {
      fundedAmount: funded
    })
  }
  return move(
    c,
    "active",
    command.at,
    "funding confirmed on-chain",
    {
      event_type: "funds_received",
      fx_contract_id: c.id,
      service_contract_reference: c.serviceContractReference,
      funds: {
        amount: Money.roundDown(funded),
        currency: c.settlementCurrency,
        chain: c.chain,
        funding_wallet_address: c.fundingWalletAddress,
        transaction_hash: command.transactionHash,
        block_number: command.blockNumber,
        confirmed_at: command.at
      },
      contract_status: "active"
    },
    { fundedAmount: funded }
  )
}

const fundingDeadline = (c: ContractRecord, at: DateTime.Utc) => {
  if (!isAwaitingFunds(c.status)) return refuse(c, { _tag: "FundingDeadlinePassed", at })
  return Money.isZero(c.fundedAmount)
    ? move(c, "failed", at, "funding deadline passed with no confirmed funds", null)
    : move(c, "defaulted", at, `funding deadline passed with ${Money.format(c.fundedAmount)} confirmed`, null)
}

/** The payout currency an exercise asks for: the settlement token unless it names BRLA explicitly. */
const payoutCurrencyOf = (c: ContractRecord, event: ContractExercised) => event.payout_currency ?? c.settlementCurrency

const exercise = (c: ContractRecord, event: ContractExercised, at: DateTime.Utc) => {
  if (c.status !== "active") return refuse(c, { _tag: "ExerciseReported", event, at })
  if (event.chain !== c.chain) {
    return Result.fail(
      new ContractMismatch({ message: `chain ${event.chain} differs from the contract's chain ${c.chain}` })
    )
  }
  const currency = payoutCurrencyOf(c, event)
  const allowed = currency === c.settlementCurrency || (currency === "BRLA" && includes(c.direction, fiatOf("BRLA")))
  if (!allowed) {
    return Result.fail(
      new ContractMismatch({
        message: `payout_currency ${currency} differs from the contract's settlement currency ${c.settlementCurrency}`
      })
    )
  }
  const executed = event.executed_at.epochMilliseconds
  if (executed < c.windowStart.epochMilliseconds || executed > c.windowEnd.epochMilliseconds) {
    return Result.fail(
      new OutsideWindow({
        message: `executed_at ${DateTime.formatIso(event.executed_at)} is outside the window [${DateTime.formatIso(c.windowStart)}, ${DateTime.formatIso(c.windowEnd)}]`
      })
    )
  }
  return move(c, "exercised", at, "inbound contract_exercised", null, {
    exercise: {
      executedAt: event.executed_at,
      liveExecutionRate: event.live_execution_rate,
      payoutWalletAddress: event.payout_wallet_address,
      payoutCurrency: currency === "BRLA" ? "BRLA" : c.settlementCurrency
    }
  })
}

const payoutSettled = (c: ContractRecord, command: Extract<Command, { _tag: "PayoutSettled" }>) => {
  if (c.status !== "exercised" || c.exercise === null) return refuse(c, command)
  return move(c, "settled", command.at, "payout confirmed on-chain", {
    event_type: "payout_settled",
    fx_contract_id: c.id,
    service_contract_reference: c.serviceContractReference,
    partner_transaction_reference: c.partnerTransactionReference,
    payout: {
      status: "settled",
      amount: command.amount,
      currency: c.exercise.payoutCurrency,
      chain: c.chain,
      destination_wallet_address: c.exercise.payoutWalletAddress,
      transaction_hash: command.transactionHash,
      block_number: command.blockNumber,
      settled_at: command.at
    },
    contract: {
      locked_rate: c.lockedRate,
      live_execution_rate: c.exercise.liveExecutionRate,
      notional_amount: c.notionalAmount,
      fx_delta_in_quote_currency: command.fxDeltaInQuoteCurrency
    }
  })
}

const payoutFailed = (c: ContractRecord, command: Extract<Command, { _tag: "PayoutFailed" }>) => {
  if (c.status !== "exercised" || c.exercise === null) return refuse(c, command)
  return move(c, "exercised", command.at, `payout failed: ${command.failureCode}`, {
    event_type: "payout_failed",
    fx_contract_id: c.id,
    payout: {
      status: "failed",
      failure_code: command.failureCode,
      failure_message: command.failureMessage,
      will_retry: command.nextRetryAt !== null,
      next_retry_at: command.nextRetryAt,
      destination_wallet_address: c.exercise.payoutWalletAddress,
      amount: command.amount,
      currency: c.exercise.payoutCurrency,
      chain: c.chain
    }
  })
}

const windowEnded = (c: ContractRecord, at: DateTime.Utc) => {
  if (c.status !== "active") return refuse(c, { _tag: "WindowEnded", at })
  const forward = c.contractType === "forward" && c.depositAmount !== null
  return move(c, forward ? "deposit_forfeited" : "expired", at, "window ended with no exercise", {
    event_type: "contract_expired",
    fx_contract_id: c.id,
    service_contract_reference: c.serviceContractReference,
    partner_transaction_reference: c.partnerTransactionReference,
    // the window end, or now when the sandbox ends a window early
    contract: { contract_type: c.contractType, expired_at: DateTime.min(c.windowEnd, at) },
    deposit_outcome:
      forward && c.depositAmount !== null
        ? {
            status: "forfeited",
            amount: c.depositAmount,
            currency: c.settlementCurrency,
            chain: c.chain,
            forfeited_at: at
          }
        : null
  })
}

/** The lifecycle table: the next state of `contract` after `command`, or why it is refused. */
export const transition = (
  contract: ContractRecord,
  command: Command
): Result.Result<Transition, TransitionRefusal> => {
  switch (command._tag) {
    case "FundsInRouteReported":
      return fundsInRoute(contract, command.event, command.at)
    case "FundingObserved":
      return fundingObserved(contract, command)
    case "FundingDeadlinePassed":
      return fundingDeadline(contract, command.at)
    case "ExerciseReported":
      return exercise(contract, command.event, command.at)
    case "PayoutSettled":
      return payoutSettled(contract, command)
    case "PayoutFailed":
      return payoutFailed(contract, command)
    case "WindowEnded":
      return windowEnded(contract, command.at)
  }
}

/** Statuses no command moves out of. */
export const terminal: ReadonlyArray<ContractStatus> = [
  "settled",
  "expired",
  "failed",
  "defaulted",
  "deposit_forfeited"
]
