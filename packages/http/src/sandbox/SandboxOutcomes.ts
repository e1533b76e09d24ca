/**
 * Outcomes a sandbox partner can force (api-decisions.md, "Sandbox"): a contract's window ended
 * now, and its next payout rejected by the simulated chain.
 */
import { SimulatedChain } from "@ratelock/adapters-chain"
import {
  type ApiError,
  type ChainGateway,
  Contract,
  type ContractRepo,
  type EventRepo,
  Expiry,
  type IdGenerator,
  type Partner,
  SandboxRules,
  StoreError
} from "@ratelock/core"
import { Effect } from "effect"
import type { SandboxPayoutFailure } from "../api/Sandbox.ts"
import { find } from "./SandboxContract.ts"

/** `POST /sandbox/contracts/{id}/expire`: core's `Expiry.expireNow`, as the contract's lock. */
export const expire = (
  scope: Partner.PartnerScope,
  contractId: string
): Effect.Effect<
  Contract.LockResponse,
  ApiError.ContractNotFound | ApiError.TransitionRefusal | StoreError.StaleContract | StoreError.StoreError,
  ContractRepo.ContractRepo | EventRepo.EventRepo | IdGenerator.IdGenerator
> =>
  Expiry.expireNow(scope, contractId).pipe(
    // a worker moved the contract at the same moment: decide again on the new state
    StoreError.retryStale,
    Effect.map(Contract.toLockResponse)
  )

/** `POST /sandbox/contracts/{id}/fail-next-payout`: the simulated chain rejects the contract's next payout. */
export const failNextPayout = Effect.fn("Sandbox.failNextPayout")(function* (
  scope: Partner.PartnerScope,
  contractId: string
): Effect.fn.Return<
  SandboxPayoutFailure,
  ApiError.ContractNotFound | ApiError.InvalidContractState | ChainGateway.ChainError | StoreError.StoreError,
  ContractRepo.ContractRepo | SimulatedChain.SimulatedChain
> {
  const contract = yield* find(scope, contractId)
  yield* SandboxRules.requirePayoutToCome(contract)
  yield* (yield* SimulatedChain.SimulatedChain).failNextPayoutOf(contract.id)
  return { fx_contract_id: contract.id, next_payout_attempt: "fails" } satisfies SandboxPayoutFailure
})
