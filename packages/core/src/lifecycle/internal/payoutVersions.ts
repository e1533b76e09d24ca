/**
 * The versions of a signed payout: each persisted before it is broadcast, the latest broadcast again while none
 * is mined, a refused broadcast recorded as the reason the payout waits, a mined cancellation started again.
 */
import { DateTime, Effect, Option } from "effect"
import * as AuditedChange from "../../kernel/AuditedChange.ts"
import { ChainGateway, type ChainError, type PayoutWait, type PreparedPayout } from "../ChainGateway.ts"
import * as Metrics from "../Metrics.ts"
import { PayoutRepo, type PayoutRecord, signedRecord } from "../PayoutRepo.ts"

export const railOf = (p: PayoutRecord) => ({ chain: p.chain, environment: p.environment, token: p.currency })

/** A broadcast the chain refused: the payout is signed and persisted, so it waits rather than fails. */
export const waitOn = (error: ChainError): PayoutWait =>
  error.reason === "insufficient_funds" ? "insufficient_funds" : "mining"

/**
 * Records why the payout waits and releases its lease, so the next pass looks again (at
 * `nextAttemptAt`, when given: a payout not signed for want of funds is drafted again later).
 */
export const recordWait = Effect.fnUntraced(function* (
  payout: PayoutRecord,
  waiting: PayoutWait,
  lastError?: string,
  nextAttemptAt?: DateTime.Utc
) {
  return yield* (yield* PayoutRepo).update(
    {
      ...payout,
      waiting,
      lastError: lastError ?? payout.lastError,
      nextAttemptAt: nextAttemptAt ?? payout.nextAttemptAt,
      updatedAt: yield* DateTime.now
    },
    payout
  )
})

export const preparedOf = (payout: PayoutRecord): Option.Option<PreparedPayout> =>
  payout.status === "prepared" && payout.prepared !== null && payout.transactionHash !== null
    ? Option.some({ transactionHash: payout.transactionHash, persisted: payout.prepared })
    : Option.none()

/** Broadcasts the payout's latest version; a refusal is recorded as the reason it waits. */
export const broadcastLatest = Effect.fnUntraced(function* (payout: PayoutRecord, prepared: PreparedPayout) {
  const sent = yield* Effect.result((yield* ChainGateway).broadcastPayout(railOf(payout), prepared))
  if (sent._tag === "Success") return true
  yield* recordWait(payout, waitOn(sent.failure), `${sent.failure.reason}: ${sent.failure.message}`)
  return false
})

/**
 * Persists a new version over the payout as read (compare-and-set: a worker whose lease ran out
 * finds the row moved and sends nothing), then broadcasts it. The stored record, or none.
 */
export const persistVersion = Effect.fnUntraced(function* (
  payout: PayoutRecord,
  prepared: PreparedPayout,
  kind: "replacement" | "bump" | "cancel"
) {
  const stored: PayoutRecord = {
    ...signedRecord(payout, prepared, payout.nonce),
    replacements: payout.replacements + 1,
    waiting: null,
    updatedAt: yield* DateTime.now
  }
  // an operator's bump or cancel is recorded with the version it stores, before it is broadcast
  const updated = yield* AuditedChange.commit((yield* PayoutRepo).update(stored, payout), (ok) =>
    ok
      ? Option.some({
          transaction_hash: stored.transactionHash,
          nonce: stored.nonce,
          replacements: stored.replacements
        })
      : Option.none()
  )
  if (!updated) return Option.none<PayoutRecord>()
  yield* Metrics.payoutReplacement(payout, kind)
  yield* broadcastLatest(stored, prepared)
  return Option.some(stored)
})

/**
 * The payout's cancellation was mined: nothing was paid and its nonce is spent. The contract is
 * still exercised, so the payout starts again as a new transaction with a new nonce.
 */
export const restartCancelled = Effect.fnUntraced(function* (payout: PayoutRecord) {
  const now = yield* DateTime.now
  return yield* (yield* PayoutRepo).update(
    {
      ...payout,
      status: "pending",
      prepared: null,
      transactionHash: null,
      nonce: null,
      waiting: null,
      lastError: "cancelled: an operator cancelled the payout; it is sent again as a new transaction",
      nextAttemptAt: now,
      updatedAt: now
    },
    payout
  )
})
