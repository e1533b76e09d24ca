/**
 * `PayoutRepo` in memory: one payout per contract, and leased claims of the due ones (not yet
 * confirmed or failed, next attempt at or before `now`). `recordSigned` hands out a hot wallet's
 * nonces one signing at a time (the repository's semaphore, as the SQL store's lock per wallet):
 * the lowest free one is read, signed at, and written with the payout in one atomic step.
 */
import { Effect, Exit, HashMap, Option, type Semaphore } from "effect"
import { type ChainGateway, Money, PayoutRepo, StoreError } from "@ratelock/core"
import type { Lease } from "@ratelock/core"
import { nonceHolder, requireNonceAccount } from "../rules.ts"
import { oldestFirst, self } from "./keyset.ts"
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

/** The stored row is the one the caller read (same status, same `updatedAt`). */
const isCurrent = (state: State, payout: Payout, expected: PayoutRepo.Expected): boolean => {
  const stored = Option.getOrUndefined(HashMap.get(state.payouts, payout.id))?.row
  return (
    stored !== undefined &&
    stored.status === expected.status &&
    stored.updatedAt.epochMilliseconds === expected.updatedAt.epochMilliseconds
  )
}

/**
 * Compare-and-set: saves the payout and releases its lease, only over the row the caller read. A
 * payout written without a nonce holds none: the nonce it held is free again.
 */
const updateStep = (payout: Payout, expected: PayoutRepo.Expected) => (state: State) => {
  if (!isCurrent(state, payout, expected)) return done(false, state)
  const holder = nonceHolder(payout.id)
  const hotWalletNonces =
    payout.nonce !== null
      ? state.hotWalletNonces
      : HashMap.map(state.hotWalletNonces, (held) => HashMap.filter(held, (by) => by !== holder))
  return done(true, { ...state, payouts: HashMap.set(state.payouts, payout.id, unleased(payout)), hotWalletNonces })
}

/** A hot wallet's key in `hotWalletNonces`. */
const walletKey = (payout: Payout, account: ChainGateway.NonceAccount) =>
  `${payout.environment}|${payout.chain}|${account.signer}`

/** The lowest nonce at or above `floor` that the wallet has not handed out. */
const lowestFree = (state: State, wallet: string, floor: number): number => {
  const held = Option.getOrElse(HashMap.get(state.hotWalletNonces, wallet), () => HashMap.empty<number, string>())
  let nonce = floor
  while (HashMap.has(held, nonce)) nonce++
  return nonce
}

/**
 * The signed payout over the row the caller read (compare-and-set, releasing the lease) and its
 * nonce, both or neither: a lost compare-and-set writes nothing and answers none.
 */
const signedStep =
  (
    payout: Payout,
    expected: PayoutRepo.Expected,
    allocated: { readonly wallet: string; readonly nonce: number } | null
  ) =>
  (state: State): Step<Option.Option<Payout>, StoreError.StoreError> => {
    if (!isCurrent(state, payout, expected)) return done(Option.none(), state)
    const payouts = HashMap.set(state.payouts, payout.id, unleased(payout))
    if (allocated === null) return done(Option.some(payout), { ...state, payouts })
    const held = Option.getOrElse(HashMap.get(state.hotWalletNonces, allocated.wallet), () =>
      HashMap.empty<number, string>()
    )
    // the primary key of `hot_wallet_nonces`: unreachable while allocations take turns
    if (HashMap.has(held, allocated.nonce)) {
      return Exit.fail(
        new StoreError.StoreError({ message: `nonce ${allocated.nonce} of ${allocated.wallet} is taken` })
      )
    }
    return done(Option.some(payout), {
      ...state,
      payouts,
      hotWalletNonces: HashMap.set(
        state.hotWalletNonces,
        allocated.wallet,
        HashMap.set(held, allocated.nonce, nonceHolder(payout.id))
      )
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

  const update = Effect.fn("MemoryStore.payouts.update")(function* (payout: Payout, expected: PayoutRepo.Expected) {
    return yield* atomically(ref, updateStep(payout, expected))
  })

  const recordSigned = <E>(
    payout: Payout,
    expected: PayoutRepo.Expected,
    nonceAccount: ChainGateway.NonceAccount | null,
    sign: (nonce: number | null) => Effect.Effect<ChainGateway.PreparedPayout, E>
  ): Effect.Effect<Option.Option<Payout>, E | StoreError.StoreError> => {
    const signed = (prepared: ChainGateway.PreparedPayout, nonce: number | null) =>
      PayoutRepo.signedRecord(payout, prepared, nonce)
    if (nonceAccount === null) {
      return sign(null).pipe(
        Effect.flatMap((prepared) => atomically(ref, signedStep(signed(prepared, null), expected, null))),
        Effect.withSpan("MemoryStore.payouts.recordSigned")
      )
    }
    const wallet = walletKey(payout, nonceAccount)
    // one allocation at a time: the nonce read here is still free when the step writes it
    const allocateAndRecord = Effect.gen(function* () {
      const nonce = yield* read(ref, (state) => lowestFree(state, wallet, nonceAccount.floor))
      const prepared = yield* sign(nonce)
      return yield* atomically(ref, signedStep(signed(prepared, nonce), expected, { wallet, nonce }))
    })
    return requireNonceAccount(nonceAccount).pipe(
      Effect.andThen(nonces.withPermit(allocateAndRecord)),
      Effect.withSpan("MemoryStore.payouts.recordSigned")
    )
  }

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

  const committed = Effect.fn("MemoryStore.payouts.committed")(function* (
    rail: Parameters<PayoutRepo.PayoutRepoShape["committed"]>[0]
  ) {
    return yield* read(ref, (state) => {
      let total = Money.zero
      for (const { row } of HashMap.values(state.payouts)) {
        if (
          row.status === "prepared" &&
          row.environment === rail.environment &&
          row.chain === rail.chain &&
          row.currency === rail.currency
        ) {
          total = Money.sum(total, row.amount)
        }
      }
      return total
    })
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
