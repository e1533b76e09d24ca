/**
 * Walks every contract in some statuses, oldest first, a batch at a time: a worker pass reaches
 * all of them, however many stay in a status for long (a payout given up on stays `exercised`).
 */
import { DateTime, Effect } from "effect"
import type { ContractRecord, ContractStatus } from "../Contract.ts"
import { ContractRepo } from "../ContractRepo.ts"
import { forEachPage } from "./forEachPage.ts"

const positionOf = (contract: ContractRecord) => ({
  createdAt: DateTime.formatIso(contract.createdAt),
  id: contract.id
})

/** A page at a time, for visitors that read something for the whole page at once. */
export const scanPagesByStatus = <E, R>(
  statuses: ReadonlyArray<ContractStatus>,
  visitPage: (page: ReadonlyArray<ContractRecord>) => Effect.Effect<void, E, R>
) =>
  Effect.gen(function* () {
    const repo = yield* ContractRepo
    yield* forEachPage((limit, after) => repo.listByStatus(statuses, limit, after), positionOf, visitPage)
  })

export const scanByStatus = <E, R>(
  statuses: ReadonlyArray<ContractStatus>,
  visit: (contract: ContractRecord) => Effect.Effect<void, E, R>
) =>
  scanPagesByStatus(statuses, (page) =>
    Effect.gen(function* () {
      for (const contract of page) yield* visit(contract)
    })
  )
