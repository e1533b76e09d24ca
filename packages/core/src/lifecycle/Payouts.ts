import { DateTime, Duration, Effect, Option, Schema } from "effect"
import { ChainGateway, type ChainError, PayoutWait, type ReplaceMode } from "./ChainGateway.ts"
import type { ContractRecord } from "../terms/Contract.ts"
import { ContractRepo } from "./ContractRepo.ts"
import { pair } from "../kernel/Corridor.ts"
import * as Refunds from "./Refunds.ts"
import { RetryPolicy } from "./RetryPolicy.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import type * as ContractMachine from "./ContractMachine.ts"
import * as DraftTurns from "./internal/draftTurns.ts"
import { applyCommand } from "./internal/applyCommand.ts"
import { forEachPage } from "./internal/forEachPage.ts"
import * as Versions from "./internal/payoutVersions.ts"
import * as PayoutFee from "./internal/payoutFee.ts"
import * as InFlight from "./internal/inFlight.ts"
import * as Lease from "../kernel/Lease.ts"
import { MarketData } from "../market/MarketData.ts"
import * as Metrics from "./Metrics.ts"
import * as Money from "../kernel/Money.ts"
import type { PayoutFailureCode } from "../terms/OutboundEvent.ts"
import { MovementRepo } from "./MovementRepo.ts"
import { PayoutRepo, type PayoutRecord, unsigned } from "./PayoutRepo.ts"
import { fiatOf } from "../kernel/Rail.ts"
import * as Settlement from "../terms/Settlement.ts"
import { retryStale } from "../kernel/StoreError.ts"
import * as TraceContext from "../kernel/TraceContext.ts"

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
 * Records a forward's deposit refund, settles the contract (`known` when the caller has just
 * read it), then marks the payout confirmed. In that order: a crash in between leaves a settled contract whose payout is looked
 * up (or re-settled) again, never an exercised contract that nothing will move.
 */
const settle = Effect.fnUntraced(function* (
  payout: PayoutRecord,
  blockNumber: number | null,
  at: DateTime.Utc,
  known?: ContractRecord
) {
  const contract = known ?? Option.getOrUndefined(yield* (yield* ContractRepo).findById(payout.contractId))
  // a forward's deposit goes back to the partner: recorded before the contract settles, so a crash
  // in between finds it recorded when this payout is settled again
  if (contract !== undefined) yield* Refunds.recordDeposit(contract)
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
  const confirmed: PayoutRecord = { ...payout, status: "confirmed", waiting: null, blockNumber, updatedAt: at }
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
    ...unsigned,
    // nothing goes on-chain for a zero payout: it is never a job for the chain worker
    status: computed.pipe(Option.exists((p) => Money.isZero(p.amount))) ? "confirmed" : "pending",
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

/**
 * What the hot wallet has promised on a payout's rail: the payouts signed and not confirmed, and
 * the refunds (in a settlement token, the only ones refunded).
 */
export const committedOn = Effect.fnUntraced(function* (rail: {
  readonly environment: PayoutRecord["environment"]
  readonly chain: PayoutRecord["chain"]
  readonly currency: PayoutRecord["currency"]
}) {
  const { environment, chain, currency } = rail
  const payouts = yield* (yield* PayoutRepo).committed({ environment, chain, currency })
  if (currency === "BRLA") return payouts
  return Money.sum(payouts, yield* (yield* MovementRepo).committed({ environment, chain, currency }))
})

/** How long a payout not signed for want of funds waits before it checks the hot wallet again. */
const fundsRecheck = Duration.minutes(1)

/**
 * A payout that could not be signed: a hot wallet short of funds is a wait (nothing was signed, it
 * is drafted again in a minute, the partner hears nothing); anything else a failed attempt on the
 * schedule.
 */
const notSigned = (payout: PayoutRecord) =>
  Effect.fnUntraced(function* (error: ChainError) {
    if (error.reason !== "insufficient_funds") return yield* chainFailure(payout)(error)
    const recheckAt = DateTime.addDuration(yield* DateTime.now, fundsRecheck)
    yield* Versions.recordWait(payout, "insufficient_funds", `${error.reason}: ${error.message}`, recheckAt)
  })

/** Moves one payout forward by one step: sign and broadcast, or look up and settle, replace or fail. */
export const advance = Effect.fn("Payouts.advance")(function* (payout: PayoutRecord) {
  yield* Effect.annotateCurrentSpan({
    ...TraceContext.attributes(payout),
    "ratelock.payout_id": payout.id,
    "ratelock.payout_status": payout.status
  })
  const gateway = yield* ChainGateway
  const repo = yield* PayoutRepo
  const rail = Versions.railOf(payout)
  if (payout.status === "pending") {
    // what the hot wallet already owes on this rail: the gateway refuses (a wait) unless its
    // balance covers that and this payout too, so a second payout is not signed only to revert
    const committed = DraftTurns.paysFromWallet(payout) ? yield* committedOn(payout) : Money.zero
    const draft = yield* gateway
      .draftPayout({ payoutId: payout.id, rail, destination: payout.destination, amount: payout.amount, committed })
      .pipe(
        Effect.map(Option.some),
        // nothing was signed: safe to try again
        Effect.catch((error) => notSigned(payout)(error).pipe(Effect.as(Option.none())))
      )
    if (Option.isNone(draft)) return
    const now = yield* DateTime.now
    // signed and persisted in one store transaction (with the nonce it allocates): whatever
    // crashes next, this transaction is the only one; and only the worker whose write landed
    // broadcasts (one whose lease ran out finds the row moved, and keeps nothing)
    const written = yield* repo
      .recordSigned(
        { ...payout, status: "prepared", waiting: null, updatedAt: now },
        payout,
        draft.value.nonceAccount,
        draft.value.sign
      )
      .pipe(Effect.catchTag("ChainError", (error) => notSigned(payout)(error).pipe(Effect.as(Option.none()))))
    if (Option.isNone(written)) return
    const prepared = Option.getOrThrow(Versions.preparedOf(written.value))
    if (yield* Versions.broadcastLatest(written.value, prepared)) yield* Metrics.payout(payout, "sent")
    return
  }
  const prepared = Versions.preparedOf(payout)
  if (Option.isNone(prepared)) return
  const next = yield* InFlight.step(rail, prepared.value)
  switch (next._tag) {
    case "NoAnswer":
      return
    case "Confirmed": {
      // the fee is booked first, once (its source is the payout): a crash before the settling
      // below finds it booked when the lookup answers again
      if (next.native !== undefined) yield* PayoutFee.book(payout, next.native, next.confirmedAt)
      if (next.cancelled) return yield* Versions.restartCancelled(payout)
      const mined = { ...payout, transactionHash: next.transactionHash }
      return yield* settle(mined, next.blockNumber, next.confirmedAt)
    }
    case "Replace":
      return yield* Versions.persistVersion(payout, next.prepared, "replacement")
    case "Wait":
      // released either way, so the next pass looks again instead of waiting for the lease to run out
      return yield* Versions.recordWait(payout, next.waiting, next.note)
    case "Failed": {
      // what the failed transaction still cost, booked once (by its hash)
      if (next.native !== undefined) {
        yield* PayoutFee.book(
          payout,
          next.native,
          yield* DateTime.now,
          `payout-fee:${payout.id}:${payout.transactionHash}`
        )
      }
      // the chain rejected every version for good (the nonce spent by none of them), so a new
      // transaction may be prepared on retry
      const reset: PayoutRecord = {
        ...payout,
        status: "pending",
        prepared: null,
        transactionHash: null,
        nonce: null,
        waiting: null
      }
      // the chain's reason (reverted, nonce_consumed, blockhash_expired, ...) is the failure code
      const reason = next.reason
      return yield* recordFailure(reset, reason, `the chain did not execute the payout transaction: ${reason}`, payout)
    }
  }
})

/** An operator's payout action that cannot be taken, and why. */
export class PayoutActionRefused extends Schema.TaggedError<PayoutActionRefused>()("PayoutActionRefused", {
  contractId: Schema.String,
  /** Or, when the chain has nothing new to sign, why the payout waits (`fee_cap`, `mining`, ...). */
  reason: Schema.Union([Schema.Literals(["not_found", "not_in_flight", "mined", "busy"]), PayoutWait]),
  message: Schema.String
}) {}

/**
 * An operator's bump (a replacement now, above the workers' pace but within the cap) or
 * cancellation (a transaction that takes the payout's nonce and pays nothing; once it is mined the
 * payout starts again) of a payout in flight. Refused once a version is mined.
 */
export const replaceNow = Effect.fn("Payouts.replaceNow")(function* (
  contractId: string,
  mode: Exclude<ReplaceMode, "due">
) {
  const refuse = (reason: PayoutActionRefused["reason"], message: string) =>
    Effect.fail(new PayoutActionRefused({ contractId, reason, message }))
  const found = yield* (yield* PayoutRepo).findByContract(contractId)
  if (Option.isNone(found)) return yield* refuse("not_found", `contract ${contractId} has no payout`)
  const payout = found.value
  const prepared = Versions.preparedOf(payout)
  if (Option.isNone(prepared)) {
    return yield* refuse(
      "not_in_flight",
      `the payout is ${payout.status}: only a signed payout not yet mined can be replaced`
    )
  }
  const gateway = yield* ChainGateway
  const rail = Versions.railOf(payout)
  const lookup = yield* gateway.lookupPayout(rail, prepared.value)
  if (lookup._tag === "Confirmed") {
    return yield* refuse("mined", `a version of the payout was mined in block ${lookup.blockNumber}`)
  }
  const next = yield* gateway.replacePayout(rail, prepared.value, mode)
  if (next._tag === "Waiting") {
    return yield* refuse(next.reason, next.message)
  }
  const stored = yield* Versions.persistVersion(payout, next.prepared, mode)
  if (Option.isNone(stored)) {
    return yield* refuse("busy", "a worker moved the payout meanwhile: look at it again and retry")
  }
  return stored.value
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
  yield* Effect.forEach(DraftTurns.draftTurns(due), (turn) => Effect.forEach(turn, advance, { discard: true }), {
    concurrency,
    discard: true
  })
  return due.length
})
