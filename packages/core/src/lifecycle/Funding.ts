/**
 * Funding: observe confirmed transfers to each awaiting contract's funding address and activate
 * it once the total is covered; fail or default contracts whose funding deadline passed. Transfers
 * that do not fund (after the contract stopped awaiting funds, or of another token) are recorded
 * as unmatched for an operator's refund, never dropped.
 */
import { DateTime, Duration, Effect, Option } from "effect"
import { ChainGateway, type ConfirmedTransfer, type FundingObservation, type StrayTransfer } from "./ChainGateway.ts"
import type { ContractRecord } from "../terms/Contract.ts"
import { ContractRepo, type FundingWatch, fundingWatch, type UnmatchedTransfer } from "./ContractRepo.ts"
import type { Position } from "../kernel/Cursor.ts"
import type { StoreError } from "../kernel/StoreError.ts"
import { applyCommand } from "./internal/applyCommand.ts"
import { forEachPage } from "./internal/forEachPage.ts"
import * as Lease from "../kernel/Lease.ts"
import * as Metrics from "./Metrics.ts"
import * as Money from "../kernel/Money.ts"
import * as TraceContext from "../kernel/TraceContext.ts"

/**
 * Records a transfer that does not fund its contract (the store keeps one row per chain identity)
 * and warns, so an operator refunds it rather than it sitting unnoticed on the address.
 */
const recordUnmatched = Effect.fnUntraced(function* (transfer: UnmatchedTransfer) {
  yield* (yield* ContractRepo).recordUnmatchedTransfer(transfer)
  yield* Effect.logWarning("funds that do not fund the contract: recorded for refund").pipe(
    Effect.annotateLogs({
      contractId: transfer.contractId,
      chain: transfer.chain,
      transactionHash: transfer.transactionHash,
      index: transfer.index,
      token: transfer.token,
      amount: transfer.amount,
      unit: transfer.unit,
      reason: transfer.reason,
      contractStatus: transfer.contractStatus
    })
  )
})

/** Where and when a transfer into `contract`'s address was seen, for its unmatched record. */
const seenOn = (contract: ContractRecord, observedAt: DateTime.Utc) => ({
  contractId: contract.id,
  partnerId: contract.partnerId,
  environment: contract.environment,
  chain: contract.chain,
  contractStatus: contract.status,
  observedAt
})

/** Another token: never funds the contract, whatever its status. */
const strayTransfer = (watch: FundingWatch, stray: StrayTransfer, observedAt: DateTime.Utc) =>
  recordUnmatched({
    contractId: watch.contractId,
    partnerId: watch.partnerId,
    environment: watch.environment,
    chain: watch.chain,
    contractStatus: watch.status,
    observedAt,
    transactionHash: stray.transactionHash,
    index: stray.index,
    blockNumber: stray.blockNumber,
    token: stray.token,
    amount: stray.baseUnits,
    unit: "base_units",
    reason: "wrong_token"
  })

/** What counting a transfer did: whether it was committed (with the cursor given) and activated the contract. */
interface Counted {
  readonly committed: boolean
  readonly activated: boolean
}

const notCommitted: Counted = { committed: false, activated: false }

/**
 * Counts one confirmed transfer, saving `cursor` with it. A transfer counted before (or a
 * concurrent move) changes nothing; one the contract refuses is recorded as unmatched.
 */
const countTransfer = Effect.fnUntraced(function* (
  contractId: string,
  transfer: ConfirmedTransfer,
  observedAt: DateTime.Utc,
  cursor: string | undefined
) {
  const repo = yield* ContractRepo
  const current = yield* repo.findById(contractId)
  if (Option.isNone(current)) return notCommitted
  const contract = current.value
  return yield* applyCommand(
    contract,
    {
      _tag: "FundingObserved",
      amount: transfer.amount,
      transactionHash: transfer.transactionHash,
      blockNumber: transfer.blockNumber,
      at: transfer.confirmedAt
    },
    {
      transfer: {
        chain: contract.chain,
        transactionHash: transfer.transactionHash,
        index: transfer.index,
        blockNumber: transfer.blockNumber,
        amount: transfer.amount
      },
      fundingCursor: cursor
    }
  ).pipe(
    Effect.map((t): Counted => ({ committed: true, activated: t.contract.status === "active" })),
    Effect.catchTags({
      // already counted, or moved by someone else: the transfer may well be counted
      StaleContract: () => Effect.succeed(notCommitted),
      // no longer awaiting funds (active, or failed / defaulted): kept for an operator's refund
      InvalidContractState: () =>
        Effect.as(
          recordUnmatched({
            ...seenOn(contract, observedAt),
            transactionHash: transfer.transactionHash,
            index: transfer.index,
            blockNumber: transfer.blockNumber,
            token: contract.settlementCurrency,
            amount: Money.format(transfer.amount),
            unit: "token",
            reason: "not_awaiting_funds"
          }),
          notCommitted
        )
    })
  )
})

const railOf = (watch: FundingWatch) => ({ chain: watch.chain, environment: watch.environment, token: watch.token })

/** Takes in what the chain reported at a watched address; true when the contract became active. */
const takeObservation = Effect.fnUntraced(function* (watch: FundingWatch, observation: FundingObservation) {
  const observedAt = yield* DateTime.now
  for (const stray of observation.stray ?? []) yield* strayTransfer(watch, stray, observedAt)
  // most passes see nothing new: a write only when the chain moved the cursor
  let cursorSaved = observation.cursor === watch.cursor
  let activated = false
  const last = observation.transfers.length - 1
  for (const [i, transfer] of observation.transfers.entries()) {
    // the last transfer's commit carries the new cursor, once every transfer before it is counted
    const cursor = i === last && !cursorSaved ? observation.cursor : undefined
    const counted = yield* countTransfer(watch.contractId, transfer, observedAt, cursor)
    activated = counted.activated || activated
    cursorSaved = cursorSaved || (cursor !== undefined && counted.committed)
  }
  if (!cursorSaved) yield* (yield* ContractRepo).saveFundingCursor(watch.contractId, observation.cursor)
  return activated
})

/**
 * A watch's observation as a worker job: its own span when the chain reported something (most
 * watches, most passes, have nothing new and do nothing, so they are not a job).
 */
const observationJob = (watch: FundingWatch, observation: FundingObservation) => {
  const job = takeObservation(watch, observation)
  const news =
    observation.transfers.length > 0 || (observation.stray?.length ?? 0) > 0 || observation.cursor !== watch.cursor
  return news ? Effect.withSpan(job, "Funding.observation", { attributes: TraceContext.attributes(watch) }) : job
}

/** Observes one contract's funding address from its stored cursor; true when it became active. */
export const observe = Effect.fn("Funding.observe")(function* (contract: ContractRecord) {
  const cursor = yield* (yield* ContractRepo).fundingCursor(contract.id)
  const watch = fundingWatch(contract, Option.getOrNull(cursor))
  const observation = yield* (yield* ChainGateway).observeFunding(railOf(watch), watch.address, watch.cursor)
  return yield* takeObservation(watch, observation)
})

/** A page's watches by rail: each rail's are observed in one batch. */
const byRail = (page: ReadonlyArray<FundingWatch>) => {
  const groups = new Map<string, Array<FundingWatch>>()
  for (const watch of page) {
    const key = `${watch.chain}|${watch.environment}|${watch.token}`
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [watch])
    else group.push(watch)
  }
  return [...groups.values()]
}

/** Observes every watch `list` pages through; how many contracts became active. */
const observePages = Effect.fnUntraced(function* (
  list: (limit: number, after?: Position) => Effect.Effect<ReadonlyArray<FundingWatch>, StoreError>
) {
  const { concurrency } = yield* Lease.Worker
  const gateway = yield* ChainGateway
  let activated = 0
  const observeRail = (watches: ReadonlyArray<FundingWatch>) =>
    Effect.gen(function* () {
      const rail = railOf(watches[0]!)
      const observations = yield* gateway.observeFundingBatch(rail, watches).pipe(
        // a chain that cannot be observed now holds back only its own contracts, until a later pass
        Effect.tapError((error) =>
          Effect.logWarning("funding: the chain could not be observed; its contracts wait for the next pass").pipe(
            Effect.annotateLogs({ ...rail, contracts: watches.length, reason: error.reason, message: error.message })
          )
        ),
        Effect.option
      )
      if (Option.isNone(observations)) return
      yield* Metrics.fundingWatched(rail, watches.length)
      yield* Effect.forEach(
        watches,
        (watch, i) =>
          Effect.map(observationJob(watch, observations.value[i]!), (became) => {
            if (became) activated++
          }),
        { concurrency, discard: true }
      )
    })
  yield* forEachPage(
    list,
    (watch) => ({ createdAt: DateTime.formatIso(watch.createdAt), id: watch.contractId }),
    // one chain call per rail for the page's watches, not one per watch
    (page) => Effect.forEach(byRail(page), observeRail, { concurrency, discard: true })
  )
  return activated
})

/**
 * One pass over every contract awaiting funds, a page of light watches at a time (no history, the
 * cursor included). Returns how many became active.
 */
export const confirmFunding = Effect.fn("Funding.confirmFunding")(function* () {
  const repo = yield* ContractRepo
  return yield* observePages((limit, after) => repo.listFundingWatches(limit, after))
})

/** How long a contract's address is still watched once it stopped awaiting funds. */
export const lateFundsHorizon = Duration.days(7)

/**
 * One pass over contracts that stopped awaiting funds within `horizon`: whatever reaches their
 * funding address now is recorded as unmatched, for refund (it never funds them).
 */
export const watchLateFunds = Effect.fn("Funding.watchLateFunds")(function* (
  horizon: Duration.Duration = lateFundsHorizon
) {
  const repo = yield* ContractRepo
  const since = DateTime.subtractDuration(yield* DateTime.now, horizon)
  yield* observePages((limit, after) => repo.listLateFundingWatches(since, limit, after))
})

/** Fails (nothing confirmed) or defaults (partly funded) contracts past their funding deadline. */
export const failUnfunded = Effect.fn("Funding.failUnfunded")(function* () {
  const now = yield* DateTime.now
  const due = yield* (yield* ContractRepo).claimDueForFundingDeadline(yield* Lease.claim)
  let moved = 0
  for (const contract of due) {
    const done = yield* applyCommand(contract, { _tag: "FundingDeadlinePassed", at: now }).pipe(
      Effect.as(true),
      Effect.catchTags({
        StaleContract: () => Effect.succeed(false),
        InvalidContractState: () => Effect.succeed(false)
      }),
      Effect.withSpan("Funding.deadlinePassed", {
        attributes: TraceContext.attributes(TraceContext.contractIds(contract))
      })
    )
    if (done) moved++
  }
  return moved
})
