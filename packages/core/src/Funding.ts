/**
 * Funding: observe confirmed transfers to each awaiting contract's funding address and activate
 * it once the total is covered; fail or default contracts whose funding deadline passed.
 */
import { DateTime, Effect, Option } from "effect"
import { ChainGateway, type ConfirmedTransfer } from "./ChainGateway.ts"
import type { ContractRecord } from "./Contract.ts"
import { ContractRepo } from "./ContractRepo.ts"
import { applyCommand } from "./internal/applyCommand.ts"
import { scanByStatus } from "./internal/scanByStatus.ts"
import * as Lease from "./Lease.ts"

const awaiting = ["quote_created", "funds_in_route"] as const

/** Counts one confirmed transfer; a transfer counted before (or a concurrent move) changes nothing. */
const countTransfer = Effect.fnUntraced(function* (contractId: string, transfer: ConfirmedTransfer) {
  const repo = yield* ContractRepo
  const current = yield* repo.findById(contractId)
  if (Option.isNone(current)) return false
  const moved = yield* applyCommand(
    current.value,
    {
      _tag: "FundingObserved",
      amount: transfer.amount,
      transactionHash: transfer.transactionHash,
      blockNumber: transfer.blockNumber,
      at: transfer.confirmedAt
    },
    {
      transfer: {
        chain: current.value.chain,
        transactionHash: transfer.transactionHash,
        index: transfer.index,
        blockNumber: transfer.blockNumber,
        amount: transfer.amount
      }
    }
  ).pipe(
    Effect.map((t) => t.contract.status === "active"),
    // stale: already counted or moved by someone else; refused: no longer awaiting funds
    // (funds after a terminal state are left on the address for an operator's refund)
    Effect.catchTags({ StaleContract: () => Effect.succeed(false), InvalidContractState: () => Effect.succeed(false) })
  )
  return moved
})

/** Observes one contract's funding address from its stored cursor; true when it became active. */
export const observe = Effect.fn("Funding.observe")(function* (contract: ContractRecord) {
  const repo = yield* ContractRepo
  const rail = { chain: contract.chain, environment: contract.environment, token: contract.settlementCurrency }
  const cursor = yield* repo.fundingCursor(contract.id)
  const observation = yield* (yield* ChainGateway).observeFunding(
    rail,
    contract.fundingWalletAddress,
    Option.getOrNull(cursor)
  )
  let activated = false
  for (const transfer of observation.transfers) {
    activated = (yield* countTransfer(contract.id, transfer)) || activated
  }
  // most passes see nothing new: a write only when the chain moved the cursor
  if (observation.cursor !== Option.getOrNull(cursor)) yield* repo.saveFundingCursor(contract.id, observation.cursor)
  return activated
})

/** One pass over every contract awaiting funds. Returns how many became active. */
export const confirmFunding = Effect.fn("Funding.confirmFunding")(function* () {
  let activated = 0
  yield* scanByStatus(awaiting, (contract) =>
    Effect.map(observe(contract), (active) => {
      if (active) activated++
    })
  )
  return activated
})

/** Fails (nothing confirmed) or defaults (partly funded) contracts past their funding deadline. */
export const failUnfunded = Effect.fn("Funding.failUnfunded")(function* () {
  const now = yield* DateTime.now
  const due = yield* (yield* ContractRepo).claimDueForFundingDeadline(yield* Lease.claim)
  let moved = 0
  for (const contract of due) {
    const done = yield* applyCommand(contract, { _tag: "FundingDeadlinePassed", at: now }).pipe(
      Effect.as(true),
      Effect.catchTags({
        StaleContract: () => Effect.succeed(false),
        InvalidContractState: () => Effect.succeed(false)
      })
    )
    if (done) moved++
  }
  return moved
})
