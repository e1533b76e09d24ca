/**
 * Expiry: `active` contracts whose window ended with no exercise become `expired` (options) or
 * `deposit_forfeited` (forwards), with a `contract_expired` event.
 */
import { DateTime, Effect } from "effect"
import { ContractRepo } from "./ContractRepo.ts"
import { applyCommand } from "./internal/applyCommand.ts"
import * as Lease from "./Lease.ts"

/** One pass; returns how many contracts expired. */
export const expireDue = Effect.fn("Expiry.expireDue")(function* () {
  const now = yield* DateTime.now
  const due = yield* (yield* ContractRepo).claimDueForExpiry(yield* Lease.claim)
  let expired = 0
  for (const contract of due) {
    const done = yield* applyCommand(contract, { _tag: "WindowEnded", at: now }).pipe(
      Effect.as(true),
      // an exercise that won the race keeps the contract
      Effect.catchTags({
        StaleContract: () => Effect.succeed(false),
        InvalidContractState: () => Effect.succeed(false)
      })
    )
    if (done) expired++
  }
  return expired
})
