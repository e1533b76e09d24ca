/**
 * Movements: the sweeps and refunds Ratelock sends of its own accord, each moved forward by the
 * workers as a payout is, at most once whatever crashes: signed and persisted (with the hot
 * wallet's nonce the store allocates) before it is broadcast, looked up (every version) before
 * anything new is signed, replaced at the chain's pace, and booked in the treasury ledger in the
 * same write that marks it confirmed.
 *
 * A refund waits for its destination (the partner's refund address on the chain) and for funds in
 * the hot wallet; a sweep waits for nothing but the chain. A movement the chain refuses is tried
 * again on the payouts' schedule, then left `failed` for an operator. The partner hears nothing of
 * either: the operator's side shows them.
 */
import { Context, DateTime, Duration, Effect, Option } from "effect"
import * as Lease from "../kernel/Lease.ts"
import * as Money from "../kernel/Money.ts"
import { PartnerRepo } from "../partners/PartnerRepo.ts"
import { ChainGateway, type ChainError, type PreparedPayout } from "./ChainGateway.ts"
import * as InFlight from "./internal/inFlight.ts"
import { type Movement, MovementRepo, type MovementWait, signedMovement } from "./MovementRepo.ts"
import { committedOn } from "./Payouts.ts"
import { RetryPolicy } from "./RetryPolicy.ts"
import * as TreasuryLedger from "./TreasuryLedger.ts"

const railOf = (m: Movement) => ({ chain: m.chain, environment: m.environment, token: m.currency })

/** How long a movement that cannot be signed yet (no refund address, funds short) waits before it looks again. */
export const recheck = Duration.minutes(1)

/**
 * How long a movement sent and not yet confirmed waits before it is looked up again. Unlike a
 * payout, which a partner waits for (looked up every pass), a sweep or a refund landing a few
 * seconds later costs nobody anything, and each look is a chain call and a write.
 */
export const LookEvery = Context.Reference<Duration.Duration>("@ratelock/core/Movements/LookEvery", {
  defaultValue: () => Duration.seconds(5)
})

/** The source of a movement's ledger booking. */
export const bookingSource = (m: Movement): string => `${m.kind}:${m.id}`

/** The liability a refund settles: what the books owe the partner for it. */
const owedAccount = (m: Movement): TreasuryLedger.TreasuryAccount =>
  m.purpose === "deposit" ? "refunds_payable" : m.purpose === "unmatched" ? "unmatched_funds" : "partner_prepayment"

/** The entries a confirmed movement books: the token moved, and what its transactions moved in the native currency. */
export const entriesFor = (
  m: Movement,
  native: TreasuryLedger.NativeMovement | undefined,
  at: DateTime.Utc
): ReadonlyArray<TreasuryLedger.TreasuryEntry> => {
  const booking: TreasuryLedger.Booking = {
    source: bookingSource(m),
    kind: m.kind,
    environment: m.environment,
    chain: m.chain,
    contractId: m.contractId,
    partnerId: m.partnerId,
    at
  }
  const hotWallet = { account: "payout_wallet", address: null } as const
  const token =
    m.kind === "sweep"
      ? TreasuryLedger.transfer(
          { account: "funding_wallet", address: m.source },
          m.destination === null ? hotWallet : { account: "treasury", address: m.destination },
          m.currency,
          m.amount
        )
      : TreasuryLedger.transfer(hotWallet, { account: owedAccount(m), address: null }, m.currency, m.amount)
  const fees =
    native === undefined ? [] : TreasuryLedger.nativeLines(m.chain, m.kind === "sweep" ? m.source : null, native)
  return TreasuryLedger.entries(booking, [...token, ...fees])
}

/** Records why the movement waits and releases its lease (looked at again at `nextAttemptAt`, when given). */
const recordWait = Effect.fnUntraced(function* (
  m: Movement,
  waiting: MovementWait,
  lastError?: string,
  nextAttemptAt?: DateTime.Utc
) {
  return yield* (yield* MovementRepo).update(
    {
      ...m,
      waiting,
      lastError: lastError ?? m.lastError,
      nextAttemptAt: nextAttemptAt ?? m.nextAttemptAt,
      updatedAt: yield* DateTime.now
    },
    m
  )
})

/** A failed attempt: the next on the payouts' schedule, or `failed` once it is spent. */
const recordFailure = Effect.fnUntraced(function* (m: Movement, message: string, expected: Movement = m) {
  const now = yield* DateTime.now
  const attempts = m.attempts + 1
  const wait = (yield* RetryPolicy).payoutRetries[attempts - 1]
  return yield* (yield* MovementRepo).update(
    {
      ...m,
      status: wait === undefined ? "failed" : m.status,
      attempts,
      waiting: null,
      lastError: message,
      nextAttemptAt: wait === undefined ? now : DateTime.addDuration(now, wait),
      updatedAt: now
    },
    expected
  )
})

/** Nothing was signed: a hot wallet short of funds is a wait, anything else a failed attempt. */
const notSigned = (m: Movement) =>
  Effect.fnUntraced(function* (error: ChainError) {
    const message = `${error.reason}: ${error.message}`
    if (error.reason !== "insufficient_funds") return yield* recordFailure(m, message)
    return yield* recordWait(m, "insufficient_funds", message, DateTime.addDuration(yield* DateTime.now, recheck))
  })

/** Where a refund goes: the partner's refund address on the movement's chain and environment. */
const refundAddress = Effect.fnUntraced(function* (m: Movement) {
  const addresses = yield* (yield* PartnerRepo).listRefundAddresses(m.partnerId)
  const found = addresses.find((a) => a.environment === m.environment && a.chain === m.chain)
  return found === undefined ? Option.none<string>() : Option.some(found.address)
})

/** Checks and prices the movement's transaction(s), ready to be signed through the store. */
const draft = Effect.fnUntraced(function* (m: Movement, destination: string | null) {
  const gateway = yield* ChainGateway
  if (m.kind === "sweep") {
    return yield* gateway.draftSweep({
      sweepId: m.id,
      rail: railOf(m),
      source: m.source ?? "",
      fundingIndex: m.fundingIndex ?? -1,
      destination,
      amount: m.amount
    })
  }
  return yield* gateway.draftPayout({
    payoutId: m.id,
    rail: railOf(m),
    destination: destination ?? "",
    amount: m.amount,
    committed: m.environment === "production" ? yield* committedOn(m) : Money.zero
  })
})

const preparedOf = (m: Movement): Option.Option<PreparedPayout> =>
  m.status === "prepared" && m.prepared !== null && m.transactionHash !== null
    ? Option.some({ transactionHash: m.transactionHash, persisted: m.prepared })
    : Option.none()

/** Signs and persists a pending movement, then broadcasts it. */
const sign = Effect.fnUntraced(function* (m: Movement) {
  let destination = m.destination
  if (m.kind === "refund" && destination === null) {
    const found = yield* refundAddress(m)
    if (Option.isNone(found)) {
      const message = `the partner has no refund address on ${m.environment} ${m.chain}: set one with \`ratelock partner refund-address set\``
      return yield* recordWait(m, "no_refund_address", message, DateTime.addDuration(yield* DateTime.now, recheck))
    }
    destination = found.value
  }
  if (m.kind === "sweep" && m.fundingIndex === null) {
    return yield* recordFailure(m, "the funding address's HD index is not known (a contract made before it was kept)")
  }
  const drafted = yield* draft(m, destination).pipe(
    Effect.map(Option.some),
    Effect.catchTag("ChainError", (error) => notSigned(m)(error).pipe(Effect.as(Option.none())))
  )
  if (Option.isNone(drafted)) return
  const now = yield* DateTime.now
  const written = yield* (yield* MovementRepo)
    .recordSigned(
      { ...m, destination, status: "prepared", waiting: null, updatedAt: now },
      m,
      drafted.value.nonceAccount,
      drafted.value.sign
    )
    .pipe(Effect.catchTag("ChainError", (error) => notSigned(m)(error).pipe(Effect.as(Option.none()))))
  if (Option.isNone(written)) return
  const sent = yield* Effect.result(
    (yield* ChainGateway).broadcastPayout(railOf(m), Option.getOrThrow(preparedOf(written.value)))
  )
  if (sent._tag === "Failure") {
    const reason = sent.failure.reason === "insufficient_funds" ? "insufficient_funds" : "mining"
    yield* recordWait(written.value, reason, `${sent.failure.reason}: ${sent.failure.message}`)
  }
})

/** Moves one movement forward by one step. */
export const advance = Effect.fn("Movements.advance")(function* (m: Movement) {
  yield* Effect.annotateCurrentSpan({ "ratelock.movement_id": m.id, "ratelock.movement_kind": m.kind })
  if (m.status === "pending") return yield* sign(m)
  const prepared = preparedOf(m)
  if (Option.isNone(prepared)) return
  const repo = yield* MovementRepo
  const next = yield* InFlight.step(railOf(m), prepared.value)
  switch (next._tag) {
    case "NoAnswer":
      return
    case "Confirmed": {
      const confirmed: Movement = {
        ...m,
        status: "confirmed",
        transactionHash: next.transactionHash,
        blockNumber: next.blockNumber,
        waiting: null,
        updatedAt: yield* DateTime.now
      }
      return yield* repo.confirm(confirmed, m, entriesFor(m, next.native, next.confirmedAt))
    }
    case "Replace": {
      const stored: Movement = {
        ...signedMovement(m, next.prepared, m.nonce),
        replacements: m.replacements + 1,
        waiting: null,
        updatedAt: yield* DateTime.now
      }
      if (!(yield* repo.update(stored, m))) return
      yield* Effect.ignore((yield* ChainGateway).broadcastPayout(railOf(m), next.prepared))
      return
    }
    case "Wait":
      return yield* recordWait(m, next.waiting, next.note, DateTime.addDuration(yield* DateTime.now, yield* LookEvery))
    case "Failed": {
      // what the failed transactions still cost (fees, a sweep's top-up sent), booked once by hash
      if (next.native !== undefined) {
        const booking: TreasuryLedger.Booking = {
          source: `${bookingSource(m)}:failed:${m.transactionHash}`,
          kind: "network_fee",
          environment: m.environment,
          chain: m.chain,
          contractId: m.contractId,
          partnerId: m.partnerId,
          at: yield* DateTime.now
        }
        const lines = TreasuryLedger.nativeLines(m.chain, m.kind === "sweep" ? m.source : null, next.native)
        yield* repo.book(TreasuryLedger.entries(booking, lines))
      }
      // no version can be mined: signed again (a new nonce, a new top-up if needed) on retry
      const reset: Movement = { ...m, status: "pending", prepared: null, transactionHash: null, nonce: null }
      return yield* recordFailure(reset, `the chain did not execute it: ${next.reason}`, m)
    }
  }
})

/** One pass: every due movement (sweeps and refunds) moved forward. */
export const runDue = Effect.fn("Movements.runDue")(function* () {
  const { concurrency } = yield* Lease.Worker
  const due = yield* (yield* MovementRepo).claimDue(yield* Lease.claim)
  yield* Effect.forEach(due, advance, { concurrency, discard: true })
  return due.length
})
