/**
 * `PayoutRepo` in memory: one payout per contract, and leased claims of the due ones (not yet
 * confirmed or failed, next attempt at or before `now`). `recordSigned` hands out a hot wallet's
 * nonces one signing at a time (`signing.ts`, with the movements): the lowest free one is read,
 * signed at, and written with the payout in one atomic step.
 */
import { Effect, Exit, HashMap, Option, type Semaphore } from "effect"
import { PayoutRepo, StoreError } from "@ratelock/core"
import type { Lease } from "@ratelock/core"
import { oldestFirst, self } from "./keyset.ts"
import { dueAt, take, unleased } from "./lease.ts"
import { signedJobs } from "./signing.ts"
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

const claimStep = (claim: Lease.Claim) => (state: State) => {
  const [taken, payouts] = take(
    state.payouts,
    claim,
    (p) => (p.status === "pending" || p.status === "prepared") && dueAt(p.nextAttemptAt, claim)
  )
  return done(taken, { ...state, payouts })
}

export const makePayoutRepo = (ref: StateRef, nonces: Semaphore.Semaphore): PayoutRepo.PayoutRepoShape => {
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

  // the compare-and-set writes and the hot wallet's nonces, shared with the movements
  const { update, recordSigned, committed } = signedJobs(ref, nonces, {
    holder: "payout",
    rows: (state) => state.payouts,
    withRows: (state, payouts) => ({ ...state, payouts }),
    signed: PayoutRepo.signedRecord,
    repository: "MemoryStore.payouts"
  })

  const list = Effect.fn("MemoryStore.payouts.list")(function* (
    query: Parameters<PayoutRepo.PayoutRepoShape["list"]>[0]
  ) {
    const statuses = new Set(query.statuses)
    const waits = query.waiting === undefined ? undefined : new Set(query.waiting)
    return yield* read(ref, (state) =>
      oldestFirst(
        Array.from(HashMap.values(state.payouts), (job) => job.row).filter(
          (p) =>
            statuses.has(p.status) &&
            (query.environment === undefined || p.environment === query.environment) &&
            (waits === undefined || (p.waiting !== null && waits.has(p.waiting)))
        ),
        self,
        { limit: query.limit }
      )
    )
  })

  const claimDue = Effect.fn("MemoryStore.payouts.claimDue")(function* (claim: Lease.Claim) {
    return yield* atomically(ref, claimStep(claim))
  })

  return PayoutRepo.PayoutRepo.of({
    insert,
    findByContract,
    findByContracts,
    update,
    recordSigned,
    list,
    committed,
    claimDue
  })
}
