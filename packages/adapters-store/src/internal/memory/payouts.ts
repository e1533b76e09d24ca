/**
 * `PayoutRepo` in memory: one payout per contract, and leased claims of the due ones (not yet
 * confirmed or failed, next attempt at or before `now`).
 */
import { Effect, Exit, HashMap, Option } from "effect"
import { PayoutRepo, StoreError } from "@ratelock/core"
import type { Lease } from "@ratelock/core"
import { dueAt, take, unleased } from "./lease.ts"
import { atomically, done, read, type State, type StateRef, type Step, write } from "./state.ts"

type Payout = PayoutRepo.PayoutRecord

const insertStep =
  (payout: Payout) =>
  (state: State): Step<void, PayoutRepo.PayoutExists | StoreError.StoreError> => {
    if (HashMap.has(state.payoutByContract, payout.contractId)) {
      return Exit.fail(new PayoutRepo.PayoutExists({ contractId: payout.contractId }))
    }
    if (HashMap.has(state.payouts, payout.id)) {
      return Exit.fail(new StoreError.StoreError({ message: `payout ${payout.id} already exists` }))
    }
    return write({
      ...state,
      payouts: HashMap.set(state.payouts, payout.id, unleased(payout)),
      payoutByContract: HashMap.set(state.payoutByContract, payout.contractId, payout.id)
    })
  }

/** Saves the payout and releases its lease; an unknown payout is left alone. */
/** Compare-and-set: written only over the row the caller read (same status, same `updatedAt`). */
const updateStep = (payout: Payout, expected: PayoutRepo.Expected) => (state: State) => {
  const stored = Option.getOrUndefined(HashMap.get(state.payouts, payout.id))?.row
  const current =
    stored !== undefined &&
    stored.status === expected.status &&
    stored.updatedAt.epochMilliseconds === expected.updatedAt.epochMilliseconds
  return current
    ? done(true, { ...state, payouts: HashMap.set(state.payouts, payout.id, unleased(payout)) })
    : done(false, state)
}

const claimStep = (claim: Lease.Claim) => (state: State) => {
  const [taken, payouts] = take(
    state.payouts,
    claim,
    (p) => (p.status === "pending" || p.status === "prepared") && dueAt(p.nextAttemptAt, claim)
  )
  return done(taken, { ...state, payouts })
}

export const makePayoutRepo = (ref: StateRef): PayoutRepo.PayoutRepoShape => {
  const insert = Effect.fn("MemoryStore.payouts.insert")(function* (payout: Payout) {
    return yield* atomically(ref, insertStep(payout))
  })

  const findByContract = Effect.fn("MemoryStore.payouts.findByContract")(function* (contractId: string) {
    return yield* read(ref, (state) =>
      HashMap.get(state.payoutByContract, contractId).pipe(
        Option.flatMap((id) => HashMap.get(state.payouts, id)),
        Option.map((job) => job.row)
      )
    )
  })

  const findByContracts = Effect.fn("MemoryStore.payouts.findByContracts")(function* (
    contractIds: ReadonlyArray<string>
  ) {
    return yield* read(ref, (state) =>
      contractIds.flatMap((contractId) =>
        Option.toArray(
          HashMap.get(state.payoutByContract, contractId).pipe(
            Option.flatMap((id) => HashMap.get(state.payouts, id)),
            Option.map((job) => job.row)
          )
        )
      )
    )
  })

  const update = Effect.fn("MemoryStore.payouts.update")(function* (payout: Payout, expected: PayoutRepo.Expected) {
    return yield* atomically(ref, updateStep(payout, expected))
  })

  const claimDue = Effect.fn("MemoryStore.payouts.claimDue")(function* (claim: Lease.Claim) {
    return yield* atomically(ref, claimStep(claim))
  })

  return PayoutRepo.PayoutRepo.of({ insert, findByContract, findByContracts, update, claimDue })
}
