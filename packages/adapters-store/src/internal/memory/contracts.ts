/**
 * `ContractRepo` in memory: insert (accepting the quote in the same step), scoped reads, lists,
 * the commit of a transition (`commit.ts`), the workers' claims, the funding counters
 * (`funding.ts`) and the unmatched transfers (`unmatched.ts`).
 */
import { type DateTime, Effect, Exit, HashMap, Option } from "effect"
import { ApiError, ContractRepo, StoreError } from "@ratelock/core"
import type { Contract, Cursor, Lease, Partner } from "@ratelock/core"
import { commitStep } from "./commit.ts"
import { takeCapacity } from "./corridors.ts"
import { makeFunding } from "./funding.ts"
import { newestFirst, oldestFirst, self } from "./keyset.ts"
import { passedAt, take, unleased } from "./lease.ts"
import { inScope, scoped } from "./scope.ts"
import { atomically, done, read, type State, type StateRef, type Step, write } from "./state.ts"
import { makeUnmatched } from "./unmatched.ts"

type Status = Contract.ContractStatus

const awaitingFunds = ContractRepo.awaitingFunds

const rows = (state: State): Array<Contract.ContractRecord> =>
  Array.from(HashMap.values(state.contracts), (job) => job.row)

/**
 * Stores the contract, marks its quote accepted and takes its notional from its corridor, or fails
 * if the quote already has a contract or the lock does not fit its corridor.
 */
const insertStep =
  (contract: Contract.ContractRecord) =>
  (
    state: State
  ): Step<void, ApiError.QuoteAlreadyAccepted | ApiError.CorridorCapacityExceeded | StoreError.StoreError> => {
    const quote = HashMap.get(state.quotes, contract.quoteId)
    if (Option.isNone(quote)) {
      return Exit.fail(new StoreError.StoreError({ message: `quote ${contract.quoteId} does not exist` }))
    }
    if (quote.value.acceptedAt !== null || HashMap.has(state.contractByQuote, contract.quoteId)) {
      return Exit.fail(
        new ApiError.QuoteAlreadyAccepted({ message: `quote ${contract.quoteId} already has a contract` })
      )
    }
    if (HashMap.has(state.contracts, contract.id)) {
      return Exit.fail(new StoreError.StoreError({ message: `contract ${contract.id} already exists` }))
    }
    const taken = takeCapacity(state, contract)
    if (Exit.isFailure(taken)) return Exit.failCause(taken.cause)
    return write({
      ...taken.value,
      quotes: HashMap.set(state.quotes, quote.value.id, { ...quote.value, acceptedAt: contract.createdAt }),
      contracts: HashMap.set(state.contracts, contract.id, unleased(contract)),
      contractByQuote: HashMap.set(state.contractByQuote, contract.quoteId, contract.id)
    })
  }

/** Leases the contracts `due` at the claim's time. */
const claimStep = (claim: Lease.Claim, due: (contract: Contract.ContractRecord) => boolean) => (state: State) => {
  const [taken, contracts] = take(state.contracts, claim, due)
  return done(taken, { ...state, contracts })
}

export const makeContractRepo = (ref: StateRef): ContractRepo.ContractRepoShape => {
  const insert = Effect.fn("MemoryStore.contracts.insert")(function* (contract: Contract.ContractRecord) {
    return yield* atomically(ref, insertStep(contract))
  })

  const findById = Effect.fn("MemoryStore.contracts.findById")(function* (id: string) {
    return yield* read(ref, (state) => Option.map(HashMap.get(state.contracts, id), (job) => job.row))
  })

  const find = Effect.fn("MemoryStore.contracts.find")(function* (scope: Partner.PartnerScope, id: string) {
    return scoped(scope, yield* findById(id))
  })

  const findByQuote = Effect.fn("MemoryStore.contracts.findByQuote")(function* (
    scope: Partner.PartnerScope,
    quoteId: string
  ) {
    const id = yield* read(ref, (state) => HashMap.get(state.contractByQuote, quoteId))
    return Option.isNone(id) ? Option.none() : yield* find(scope, id.value)
  })

  const listByCustomer = Effect.fn("MemoryStore.contracts.listByCustomer")(function* (
    scope: Partner.PartnerScope,
    customerReferenceId: string,
    filter: ContractRepo.LockFilter
  ) {
    const matches = (c: Contract.ContractRecord) =>
      inScope(scope, c) &&
      c.customerReferenceId === customerReferenceId &&
      (filter.status === undefined || c.status === filter.status)
    return yield* read(ref, (state) => newestFirst(rows(state).filter(matches), self, filter))
  })

  const commit = Effect.fn("MemoryStore.contracts.commit")(function* (change: ContractRepo.ContractChange) {
    return yield* atomically(ref, commitStep(change))
  })

  const listPayoutWork = Effect.fn("MemoryStore.contracts.listPayoutWork")(function* (
    limit: number,
    after?: Cursor.Position
  ) {
    return yield* read(ref, (state) => {
      const payoutOf = (contractId: string) =>
        Option.flatMap(HashMap.get(state.payoutByContract, contractId), (id) => HashMap.get(state.payouts, id))
      const hasWork = (c: Contract.ContractRecord) =>
        c.status === "exercised" &&
        Option.match(payoutOf(c.id), { onNone: () => true, onSome: (p) => p.row.status === "confirmed" })
      return oldestFirst(rows(state).filter(hasWork), self, { limit, after })
    })
  })

  const listByStatus = Effect.fn("MemoryStore.contracts.listByStatus")(function* (
    statuses: ReadonlyArray<Status>,
    limit: number,
    after?: Cursor.Position
  ) {
    return yield* read(ref, (state) =>
      oldestFirst(
        rows(state).filter((c) => statuses.includes(c.status)),
        self,
        { limit, after }
      )
    )
  })

  /** The contracts `keep` selects, oldest first, as funding watches with their cursor. */
  const watches = (
    keep: (c: Contract.ContractRecord) => boolean,
    page: { limit: number; after?: Cursor.Position | undefined }
  ) =>
    read(ref, (state) =>
      oldestFirst(rows(state).filter(keep), self, page).map((c) =>
        ContractRepo.fundingWatch(c, Option.getOrNull(HashMap.get(state.fundingCursors, c.id)))
      )
    )

  const listFundingWatches = Effect.fn("MemoryStore.contracts.listFundingWatches")(function* (
    limit: number,
    after?: Cursor.Position
  ) {
    return yield* watches((c) => awaitingFunds.includes(c.status), { limit, after })
  })

  const listLateFundingWatches = Effect.fn("MemoryStore.contracts.listLateFundingWatches")(function* (
    since: DateTime.Utc,
    limit: number,
    after?: Cursor.Position
  ) {
    return yield* watches(
      (c) => !awaitingFunds.includes(c.status) && c.updatedAt.epochMilliseconds >= since.epochMilliseconds,
      { limit, after }
    )
  })

  const claimDueForExpiry = Effect.fn("MemoryStore.contracts.claimDueForExpiry")(function* (claim: Lease.Claim) {
    return yield* atomically(
      ref,
      claimStep(claim, (c) => c.status === "active" && passedAt(c.windowEnd, claim))
    )
  })

  const claimDueForFundingDeadline = Effect.fn("MemoryStore.contracts.claimDueForFundingDeadline")(function* (
    claim: Lease.Claim
  ) {
    return yield* atomically(
      ref,
      claimStep(claim, (c) => awaitingFunds.includes(c.status) && passedAt(c.fundingDeadline, claim))
    )
  })

  const ledgerEntries = Effect.fn("MemoryStore.contracts.ledgerEntries")(function* (contractId: string) {
    return yield* read(ref, (state) =>
      Option.getOrElse(HashMap.get(state.ledger, contractId), () => []).map((booked) => booked.entry)
    )
  })

  // keys are `chain|hash|index` (`transferKey`); an EVM hash is matched without case, as on SQL
  const fundingTransfersByHash = Effect.fn("MemoryStore.contracts.fundingTransfersByHash")(function* (
    transactionHash: string,
    index?: number
  ) {
    return yield* read(ref, (state) =>
      [...HashMap.entries(state.transfers)].flatMap(
        ([key, contractId]): ReadonlyArray<ContractRepo.CountedTransfer> => {
          const [chain, hash, at] = key.split("|") as [ContractRepo.CountedTransfer["chain"], string, string]
          const same =
            hash.toLowerCase() === transactionHash.toLowerCase() && (index === undefined || Number(at) === index)
          return same ? [{ contractId, chain, transactionHash: hash, index: Number(at) }] : []
        }
      )
    )
  })

  return ContractRepo.ContractRepo.of({
    fundingTransfersByHash,
    insert,
    find,
    findById,
    findByQuote,
    listByCustomer,
    commit,
    listByStatus,
    listPayoutWork,
    listFundingWatches,
    listLateFundingWatches,
    claimDueForExpiry,
    claimDueForFundingDeadline,
    ledgerEntries,
    ...makeFunding(ref),
    ...makeUnmatched(ref)
  })
}
