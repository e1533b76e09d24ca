/**
 * Expiry: `active` contracts whose window ended with no exercise become `expired` (options) or
 * `deposit_forfeited` (forwards), with a `contract_expired` event.
 */
import { DateTime, Effect, Option } from "effect"
import { ContractNotFound } from "../kernel/ApiError.ts"
import type { PartnerScope } from "../terms/Partner.ts"
import { ContractRepo } from "./ContractRepo.ts"
import { applyCommand } from "./internal/applyCommand.ts"
import * as Lease from "../kernel/Lease.ts"
import * as TraceContext from "../kernel/TraceContext.ts"

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
      }),
      Effect.withSpan("Expiry.windowEnded", { attributes: TraceContext.attributes(TraceContext.contractIds(contract)) })
    )
    if (done) expired++
  }
  return expired
})

/**
 * Ends an `active` contract's window now (the sandbox helper "expire now"): the same transition
 * and `contract_expired` event as a window that ran out.
 */
export const expireNow = Effect.fn("Expiry.expireNow")(function* (scope: PartnerScope, contractId: string) {
  const found = yield* (yield* ContractRepo).find(scope, contractId)
  if (Option.isNone(found)) return yield* new ContractNotFound({ message: `contract ${contractId} not found` })
  const transition = yield* applyCommand(found.value, { _tag: "WindowEnded", at: yield* DateTime.now })
  return transition.contract
})
