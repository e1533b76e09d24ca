/**
 * The writes of the jobs the hot wallets sign (payouts, movements) in memory, as
 * `internal/signing.ts` on SQL: the compare-and-set that releases a job's lease, the `update` that
 * frees the nonce of a job started again, and `recordSigned`, which hands out a hot wallet's nonces
 * one signing at a time (the store's one semaphore, shared by both repositories as the SQL store's
 * lock per wallet is): the lowest free one is read, signed at, and written with the job in one
 * atomic step. One table of nonces (`hotWalletNonces`) for every job of a wallet. And what the
 * signed jobs of a rail promise (`committed`).
 */
import { Effect, Exit, HashMap, Option, type Semaphore } from "effect"
import { type ChainGateway, Money, StoreError } from "@ratelock/core"
import {
  type CommittedRail,
  type Expected,
  type NonceHolder,
  nonceHolder,
  requireNonceAccount,
  type SignedJob
} from "../rules.ts"
import { type Leased, unleased } from "./lease.ts"
import { atomically, done, read, type State, type StateRef, type Step } from "./state.ts"

export interface JobTable<J extends SignedJob> {
  /** What a nonce's holder is named after (`payout:<id>`, `movement:<id>`). */
  readonly holder: NonceHolder
  readonly rows: (state: State) => HashMap.HashMap<string, Leased<J>>
  readonly withRows: (state: State, rows: HashMap.HashMap<string, Leased<J>>) => State
  /** The job as it is written once `sign` answered `prepared` at `nonce`. */
  readonly signed: (job: J, prepared: ChainGateway.PreparedPayout, nonce: number | null) => J
  /** The repository, naming spans (`MemoryStore.payouts`). */
  readonly repository: string
  /** Which of the prepared jobs draw on the hot wallet (`committed`), when not all of them. */
  readonly committing?: (job: J) => boolean
}

/** A hot wallet's key in `hotWalletNonces`. */
const walletKey = (job: SignedJob, account: ChainGateway.NonceAccount) =>
  `${job.environment}|${job.chain}|${account.signer}`

/** The lowest nonce at or above `floor` that the wallet has not handed out. */
const lowestFree = (state: State, wallet: string, floor: number): number => {
  const held = Option.getOrElse(HashMap.get(state.hotWalletNonces, wallet), () => HashMap.empty<number, string>())
  let nonce = floor
  while (HashMap.has(held, nonce)) nonce++
  return nonce
}

export const signedJobs = <J extends SignedJob>(ref: StateRef, nonces: Semaphore.Semaphore, jobs: JobTable<J>) => {
  const holderOf = (job: J) => nonceHolder(jobs.holder, job.id)

  /**
   * Compare-and-set: the state with the job written over the row the caller read (same status,
   * same `updatedAt`) and its lease released, or undefined when the row moved on.
   */
  const written = (state: State, job: J, expected: Expected<J>): State | undefined => {
    const stored = Option.getOrUndefined(HashMap.get(jobs.rows(state), job.id))?.row
    const current =
      stored !== undefined &&
      stored.status === expected.status &&
      stored.updatedAt.epochMilliseconds === expected.updatedAt.epochMilliseconds
    return current ? jobs.withRows(state, HashMap.set(jobs.rows(state), job.id, unleased(job))) : undefined
  }

  /** A job written without a nonce holds none: the nonce it held is free again. */
  const update = Effect.fn(`${jobs.repository}.update`)(function* (job: J, expected: Expected<J>) {
    return yield* atomically(ref, (state) => {
      const next = written(state, job, expected)
      if (next === undefined) return done(false, state)
      if (job.nonce !== null) return done(true, next)
      const holder = holderOf(job)
      const hotWalletNonces = HashMap.map(next.hotWalletNonces, (held) => HashMap.filter(held, (by) => by !== holder))
      return done(true, { ...next, hotWalletNonces })
    })
  })

  /** The signed job over the row the caller read, and its nonce: both or neither (a lost compare-and-set answers none). */
  const signedStep =
    (job: J, expected: Expected<J>, allocated: { readonly wallet: string; readonly nonce: number } | null) =>
    (state: State): Step<Option.Option<J>, StoreError.StoreError> => {
      const next = written(state, job, expected)
      if (next === undefined) return done(Option.none(), state)
      if (allocated === null) return done(Option.some(job), next)
      const held = Option.getOrElse(HashMap.get(next.hotWalletNonces, allocated.wallet), () =>
        HashMap.empty<number, string>()
      )
      // the primary key of `hot_wallet_nonces`: unreachable while allocations take turns
      if (HashMap.has(held, allocated.nonce)) {
        return Exit.fail(
          new StoreError.StoreError({ message: `nonce ${allocated.nonce} of ${allocated.wallet} is taken` })
        )
      }
      return done(Option.some(job), {
        ...next,
        hotWalletNonces: HashMap.set(
          next.hotWalletNonces,
          allocated.wallet,
          HashMap.set(held, allocated.nonce, holderOf(job))
        )
      })
    }

  const recordSigned = <E>(
    job: J,
    expected: Expected<J>,
    nonceAccount: ChainGateway.NonceAccount | null,
    sign: (nonce: number | null) => Effect.Effect<ChainGateway.PreparedPayout, E>
  ): Effect.Effect<Option.Option<J>, E | StoreError.StoreError> => {
    const span = `${jobs.repository}.recordSigned`
    if (nonceAccount === null) {
      return sign(null).pipe(
        Effect.flatMap((prepared) => atomically(ref, signedStep(jobs.signed(job, prepared, null), expected, null))),
        Effect.withSpan(span)
      )
    }
    const wallet = walletKey(job, nonceAccount)
    // one allocation at a time: the nonce read here is still free when the step writes it
    const allocateAndRecord = Effect.gen(function* () {
      const nonce = yield* read(ref, (state) => lowestFree(state, wallet, nonceAccount.floor))
      const prepared = yield* sign(nonce)
      return yield* atomically(ref, signedStep(jobs.signed(job, prepared, nonce), expected, { wallet, nonce }))
    })
    return requireNonceAccount(nonceAccount).pipe(
      Effect.andThen(nonces.withPermit(allocateAndRecord)),
      Effect.withSpan(span)
    )
  }

  const committed = Effect.fn(`${jobs.repository}.committed`)(function* (rail: CommittedRail) {
    return yield* read(ref, (state) => {
      let total = Money.zero
      for (const { row } of HashMap.values(jobs.rows(state))) {
        if (
          row.status === "prepared" &&
          row.environment === rail.environment &&
          row.chain === rail.chain &&
          row.currency === rail.currency &&
          (jobs.committing === undefined || jobs.committing(row))
        ) {
          total = Money.sum(total, row.amount)
        }
      }
      return total
    })
  })

  return { written, update, recordSigned, committed }
}
