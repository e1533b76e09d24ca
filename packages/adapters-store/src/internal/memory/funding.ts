/**
 * The funding side of `ContractRepo`: HD-index counters per `(chain, environment)`, incremented
 * atomically so an index is never handed out twice, and where funding observation resumes.
 */
import { Effect, HashMap, Option } from "effect"
import type { ContractRepo, Rail } from "@ratelock/core"
import { atomically, done, read, type StateRef, write } from "./state.ts"

type Funding = Pick<ContractRepo.ContractRepoShape, "allocateFundingIndex" | "saveFundingCursor" | "fundingCursor">

export const makeFunding = (ref: StateRef): Funding => {
  const allocateFundingIndex = Effect.fn("MemoryStore.contracts.allocateFundingIndex")(function* (scope: {
    readonly chain: Rail.Chain
    readonly environment: string
  }) {
    const key = `${scope.chain}|${scope.environment}`
    return yield* atomically(ref, (state) => {
      const index = Option.getOrElse(HashMap.get(state.fundingIndexes, key), () => 0)
      return done(index, { ...state, fundingIndexes: HashMap.set(state.fundingIndexes, key, index + 1) })
    })
  })

  const saveFundingCursor = Effect.fn("MemoryStore.contracts.saveFundingCursor")(function* (
    contractId: string,
    cursor: string
  ) {
    return yield* atomically(ref, (state) =>
      write({ ...state, fundingCursors: HashMap.set(state.fundingCursors, contractId, cursor) })
    )
  })

  const fundingCursor = Effect.fn("MemoryStore.contracts.fundingCursor")(function* (contractId: string) {
    return yield* read(ref, (state) => HashMap.get(state.fundingCursors, contractId))
  })

  return { allocateFundingIndex, saveFundingCursor, fundingCursor }
}
