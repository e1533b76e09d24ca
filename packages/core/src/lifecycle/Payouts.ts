/**
 * Payouts: compute what an exercised contract is owed, send it on-chain at most once, and settle
 * or report failure with the retry schedule (1 min, 5 min, 30 min, 2 h, 6 h; then an operator).
 *
 * At most once: the payout row is unique per contract, and the signed transaction is persisted on
 * it before any broadcast. Later passes only look that transaction up and re-broadcast the same
 * bytes; a new transaction is prepared only after the chain reported the earlier one failed.
 */
import { DateTime, Effect, Option } from "effect"
import { ChainGateway, type ChainError, type PreparedPayout } from "./ChainGateway.ts"
import type { ContractRecord } from "../terms/Contract.ts"
import { ContractRepo } from "./ContractRepo.ts"
import { pair } from "../kernel/Corridor.ts"
import { RetryPolicy } from "./RetryPolicy.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import type * as ContractMachine from "./ContractMachine.ts"
import { applyCommand } from "./internal/applyCommand.ts"
import { forEachPage } from "./internal/forEachPage.ts"
import * as Lease from "../kernel/Lease.ts"
import { MarketData } from "../market/MarketData.ts"
import * as Metrics from "./Metrics.ts"
import * as Money from "../kernel/Money.ts"
import type { PayoutFailureCode } from "../terms/OutboundEvent.ts"
import { PayoutRepo, type PayoutRecord } from "./PayoutRepo.ts"
import { fiatOf } from "../kernel/Rail.ts"
import * as Settlement from "../terms/Settlement.ts"
import { retryStale } from "../kernel/StoreError.ts"
import * as TraceContext from "../kernel/TraceContext.ts"

const railOf = (p: PayoutRecord) => ({ chain: p.chain, environment: p.environment, token: p.currency })

/**
 * Applies `command` to the contract as stored now (to `known` first, when the caller has just
 * read it); a concurrent move makes the commit stale, so the contract is read again and the
 * command re-applied. A state that no longer takes the command (already settled, say) means
 * someone else finished the job: nothing to do.
 */
const applyToCurrent = (contractId: string, command: ContractMachine.Command, known?: ContractRecord) => {
  const current = Effect.gen(function* () {
    const contract = yield* (yield* ContractRepo).findById(contractId)
    if (Option.isNone(contract)) return
    yield* applyCommand(contract.value, command)
  }).pipe(retryStale)
  const first = known === undefined ? current : applyCommand(known, command).pipe(Effect.asVoid)
  return first.pipe(
    Effect.catchTag("StaleContract", () => current),
    Effect.catchTag("InvalidContractState", () => Effect.void)
  )
}

/** The conversion of the delta into the payout's fiat; a cross rate comes from the market-data port. */
const conversionOf = Effect.fnUntraced(function* (contract: ContractRecord) {
  const exercise = contract.exercise!
  const fiat = fiatOf(exercise.payoutCurrency)
  const direct = Settlement.conversionFor(contract.direction, fiat, exercise.liveExecutionRate)
  if (direct !== "needs_cross_rate") return Option.some(direct)
  const rate = yield* (yield* MarketData).midRate(pair(contract.direction).quote, fiat, exercise.executedAt)
  return Option.map(rate, (fiatPerQuote): Settlement.Conversion => ({ _tag: "Cross", fiatPerQuote }))
})

/**
 * Records a failed attempt: schedules the next one or gives up, and tells the partner. `expected`
 * is the row as stored; when another worker moved it meanwhile, this attempt's news is stale.
 */
const recordFailure = Effect.fnUntraced(function* (
  payout: PayoutRecord,
  code: PayoutFailureCode,
  message: string,
  expected: PayoutRecord = payout
) {
  const now = yield* DateTime.now
  const attempts = payout.attempts + 1
  const wait = (yield* RetryPolicy).payoutRetries[attempts - 1]
  const nextRetryAt = wait === undefined ? null : DateTime.addDuration(now, wait)
  const written = yield* (yield* PayoutRepo).update(
    {
      ...payout,
      status: nextRetryAt === null ? "failed" : payout.status,
      attempts,
      lastError: `${code}: ${message}`,
      nextAttemptAt: nextRetryAt ?? now,
      updatedAt: now
    },
    expected
  )
  if (!written) return
  yield* Metrics.payout(payout, nextRetryAt === null ? "failed" : "retrying")
  yield* Metrics.payoutFailure(payout, code)
  yield* applyToCurrent(payout.contractId, {
    _tag: "PayoutFailed",
    amount: payout.amount,
    failureCode: code,
    failureMessage: message,
    nextRetryAt,
    at: now
  })
})

/**
 * Settles the contract (`contract` when the caller has just read it), then marks the payout
 * confirmed. In that order: a crash in between leaves a settled contract whose payout is looked
 * up (or re-settled) again, never an exercised contract that nothing will move.
 */
const settle = Effect.fnUntraced(function* (
  payout: PayoutRecord,
  blockNumber: number | null,
  at: DateTime.Utc,
  contract?: ContractRecord
) {
  yield* applyToCurrent(
    payout.contractId,
    {
      _tag: "PayoutSettled",
      amount: payout.amount,
      fxDeltaInQuoteCurrency: payout.fxDeltaInQuoteCurrency,
      transactionHash: payout.transactionHash,
      blockNumber,
      at
    },
    contract
  )
  yield* Metrics.payout(payout, "confirmed")
  const confirmed: PayoutRecord = { ...payout, status: "confirmed", blockNumber, updatedAt: at }
  // a zero payout is stored confirmed, as is one whose settling a crash cut short: nothing to write
  const unchanged =
    payout.status === "confirmed" &&
    payout.blockNumber === blockNumber &&
    payout.updatedAt.epochMilliseconds === at.epochMilliseconds
  if (!unchanged) yield* (yield* PayoutRepo).update(confirmed, payout)
})

/**
 * Creates the payout of an exercised contract that has none yet (a concurrent creation wins: this
 * one then does nothing). A zero payout settles at once, with nothing sent on-chain.
 */
const create = Effect.fnUntraced(function* (contract: ContractRecord) {
  const exercise = contract.exercise
  if (contract.status !== "exercised" || exercise === null) return
  const now = yield* DateTime.now
  const conversion = yield* conversionOf(contract)
  const computed = Option.map(conversion, (c) => Settlement.payout(contract, exercise.liveExecutionRate, c))
  const payout: PayoutRecord = {
    id: yield* (yield* IdGenerator).uuid,
    contractId: contract.id,
    partnerId: contract.partnerId,
    environment: contract.environment,
    chain: contract.chain,
    currency: exercise.payoutCurrency,
    destination: exercise.payoutWalletAddress,
    amount: Option.match(computed, { onNone: () => Money.roundDown(Money.zero), onSome: (p) => p.amount }),
    fxDeltaInQuoteCurrency: Option.match(computed, {
      onNone: () => Money.zero,
      onSome: (p) => p.fxDeltaInQuoteCurrency
    }),
    // nothing goes on-chain for a zero payout: it is never a job for the chain worker
    status: computed.pipe(Option.exists((p) => Money.isZero(p.amount))) ? "confirmed" : "pending",
    prepared: null,
    transactionHash: null,
    blockNumber: null,
    attempts: 0,
    lastError: null,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now
  }
  const inserted = yield* (yield* PayoutRepo).insert(payout).pipe(
    Effect.as(true),
    Effect.catchTag("PayoutExists", () => Effect.succeed(false))
  )
  if (!inserted) return
  if (Option.isNone(computed)) {
    yield* recordFailure(payout, "no_conversion_rate", "no market rate to convert the delta into the payout currency")
  } else if (Money.isZero(payout.amount)) {
    yield* settle(payout, null, now, contract)
  }
})

/**
 * Creates the payout of an exercised contract (once: a second call finds the first), and answers
 * the contract's payout. A zero payout settles at once, with nothing sent on-chain.
 */
export const start = Effect.fn("Payouts.start")(function* (contract: ContractRecord) {
  const repo = yield* PayoutRepo
  const existing = yield* repo.findByContract(contract.id)
  if (Option.isSome(existing)) return existing
  yield* create(contract)
  return yield* repo.findByContract(contract.id)
})

const chainFailure = (payout: PayoutRecord) => (error: ChainError) => recordFailure(payout, error.reason, error.message)

/** Moves one payout forward by one step: prepare and broadcast, or look up and settle / fail. */
export const advance = Effect.fn("Payouts.advance")(function* (payout: PayoutRecord) {
  yield* Effect.annotateCurrentSpan({
    ...TraceContext.attributes(payout),
    "ratelock.payout_id": payout.id,
    "ratelock.payout_status": payout.status
  })
  const gateway = yield* ChainGateway
  const repo = yield* PayoutRepo
  const rail = railOf(payout)
  if (payout.status === "pending") {
    const prepared = yield* gateway
      .preparePayout({ payoutId: payout.id, rail, destination: payout.destination, amount: payout.amount })
      .pipe(
        Effect.map(Option.some),
        // nothing was signed: safe to try again on the schedule
        Effect.catch((error) => chainFailure(payout)(error).pipe(Effect.as(Option.none<PreparedPayout>())))
      )
    if (Option.isNone(prepared)) return
    const now = yield* DateTime.now
    const stored: PayoutRecord = {
      ...payout,
      status: "prepared",
      prepared: prepared.value.persisted,
      transactionHash: prepared.value.transactionHash,
      updatedAt: now
    }
    // persisted before broadcast: whatever crashes next, this transaction is the only one; and
    // only the worker whose write landed broadcasts (one whose lease ran out finds the row moved)
    if (!(yield* repo.update(stored, payout))) return
    yield* gateway
      .broadcastPayout(rail, prepared.value)
      .pipe(Effect.andThen(Metrics.payout(payout, "sent")), Effect.catch(chainFailure(stored)))
    return
  }
  if (payout.status !== "prepared" || payout.prepared === null || payout.transactionHash === null) return
  const prepared: PreparedPayout = { transactionHash: payout.transactionHash, persisted: payout.prepared }
  const lookup = yield* gateway.lookupPayout(rail, prepared).pipe(Effect.option)
  if (Option.isNone(lookup)) return // the chain did not answer: look again next pass
  switch (lookup.value._tag) {
    case "Confirmed":
      return yield* settle(payout, lookup.value.blockNumber, lookup.value.confirmedAt)
    case "Pending":
    case "Unknown":
      // the same signed bytes again: a duplicate broadcast cannot pay twice
      yield* gateway.broadcastPayout(rail, prepared).pipe(Effect.ignore)
      // release the lease, so the next pass looks again instead of waiting for it to run out
      return yield* repo.update({ ...payout, updatedAt: yield* DateTime.now }, payout)
    case "Failed": {
      // the chain rejected this transaction for good, so a new one may be prepared on retry
      const reset: PayoutRecord = { ...payout, status: "pending", prepared: null, transactionHash: null }
      // the chain's reason (reverted, nonce_consumed, blockhash_expired, ...) is the failure code
      const reason = lookup.value.reason
      return yield* recordFailure(reset, reason, `the chain did not execute the payout transaction: ${reason}`, payout)
    }
  }
})

/**
 * One pass: start payouts of newly exercised contracts (and finish settling confirmed ones), a
 * page of `listPayoutWork` at a time, then advance every due payout.
 */
export const runDue = Effect.fn("Payouts.runDue")(function* () {
  const repo = yield* PayoutRepo
  const { concurrency } = yield* Lease.Worker
  const contracts = yield* ContractRepo
  yield* forEachPage(
    (limit, after) => contracts.listPayoutWork(limit, after),
    (contract) => ({ createdAt: DateTime.formatIso(contract.createdAt), id: contract.id }),
    (page) =>
      Effect.gen(function* () {
        // one read for the page's payouts, not one per contract
        const payouts = new Map((yield* repo.findByContracts(page.map((c) => c.id))).map((p) => [p.contractId, p]))
        yield* Effect.forEach(
          page,
          (contract) => {
            const payout = payouts.get(contract.id)
            const span = { attributes: TraceContext.attributes(TraceContext.contractIds(contract)) }
            // the page's read found none: create it without reading again
            if (payout === undefined) return Effect.withSpan(create(contract), "Payouts.create", span)
            // confirmed (a zero payout, or a crash after the chain confirmed) but the contract not yet settled
            if (payout.status === "confirmed") {
              return Effect.withSpan(
                settle(payout, payout.blockNumber, payout.updatedAt, contract),
                "Payouts.settle",
                span
              )
            }
            return Effect.void
          },
          { concurrency, discard: true }
        )
      })
  )
  const due = yield* repo.claimDue(yield* Lease.claim)
  yield* Effect.forEach(due, advance, { concurrency, discard: true })
  return due.length
})
