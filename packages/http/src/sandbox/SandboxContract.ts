/**
 * The partner's contract a sandbox helper acts on.
 */
import { ApiError, type Contract, ContractRepo, type Partner, type StoreError } from "@ratelock/core"
import { Effect, Option } from "effect"

/** The contract in the partner's scope, or 404 `contract_not_found`. */
export const find = Effect.fnUntraced(function* (
  scope: Partner.PartnerScope,
  contractId: string
): Effect.fn.Return<
  Contract.ContractRecord,
  ApiError.ContractNotFound | StoreError.StoreError,
  ContractRepo.ContractRepo
> {
  const found = yield* (yield* ContractRepo.ContractRepo).find(scope, contractId)
  if (Option.isNone(found)) return yield* new ApiError.ContractNotFound({ message: `contract ${contractId} not found` })
  return found.value
})
