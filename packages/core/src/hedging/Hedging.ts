/**
 * The hedging pass: keeps each pair's hedge position within its policy's band of the target
 * (`HedgePolicy.decide`), one order at a time per pair, each sent at most once.
 *
 * Per pass, each pair with a policy is claimed with a lease (`HedgePolicyRepo.claim`), so one
 * worker decides for it at a time. A pair with an order still waiting for an outcome is only
 * resolved: the venue is asked (`lookup`); filled or rejected is recorded; a venue that never got
 * it (`Unknown`) gets it now, under the same id, which the venue dedupes; `Pending` waits. Only a
 * pair with nothing outstanding gets a new decision: the order is stored `intended` (while the
 * lease holds) before it is marked `sent` and executed; a fill or a rejection is recorded as it
 * comes back, a timeout leaves it `sent` for the next pass's lookup. A rejected order is never
 * sent again: the next pass decides anew, under a new id.
 *
 * The pass runs only where the host provides a `HedgeVenue` and a `BookDelta`
 * (`RATELOCK_HEDGING=off` provides no venue): otherwise it does nothing.
 */
import { DateTime, Effect, Option, Result } from "effect"
import { BookDelta, type PairDelta } from "./BookDelta.ts"
import type { HedgeOrder } from "./HedgeOrder.ts"
import { HedgeOrderRepo } from "./HedgeOrderRepo.ts"
import * as HedgePolicy from "./HedgePolicy.ts"
import { type ClaimedPolicy, HedgePolicyRepo } from "./HedgePolicyRepo.ts"
import { type Fill, HedgeVenue, type HedgeVenueShape } from "./HedgeVenue.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import * as Lease from "../kernel/Lease.ts"
import * as HedgeLedger from "./HedgeLedger.ts"
import * as Metrics from "../lifecycle/Metrics.ts"
import * as Money from "../kernel/Money.ts"

const logOrder = (message: string, order: HedgeOrder) =>
  Effect.logInfo(message).pipe(
    Effect.annotateLogs({
      hedge_order_id: order.id,
      environment: order.environment,
      pair: order.pair,
      side: order.side,
      amount: Money.format(order.amount),
      venue: order.venue
    })
  )

/**
 * Records the venue's fill of an outstanding order (`expected` as stored), with its ledger
 * entries, in one step; answers whether it was written (false: someone recorded an outcome first).
 */
export const recordFill = Effect.fn("Hedging.recordFill")(function* (order: HedgeOrder, fill: Fill) {
  const filled: HedgeOrder = {
    ...order,
    status: "filled",
    fillRate: fill.rate,
    fillAmount: fill.amount,
    filledAt: fill.at,
    updatedAt: yield* DateTime.now
  }
  const written = yield* (yield* HedgeOrderRepo).update(filled, order, HedgeLedger.hedgeFillEntries(filled))
  if (written) {
    yield* logOrder(`hedge order filled at ${Money.format(fill.rate)}`, filled)
    yield* Metrics.hedgeOrder(filled, "filled")
  }
  return written ? Option.some(filled) : Option.none<HedgeOrder>()
})

/** Records the venue's rejection of an outstanding order; answers the order as written, if it was. */
export const recordRejection = Effect.fn("Hedging.recordRejection")(function* (order: HedgeOrder, reason: string) {
  const rejected: HedgeOrder = { ...order, status: "rejected", rejectionReason: reason, updatedAt: yield* DateTime.now }
  const written = yield* (yield* HedgeOrderRepo).update(rejected, order)
  if (written) {
    yield* logOrder(`hedge order rejected: ${reason}`, rejected)
    yield* Metrics.hedgeOrder(rejected, "rejected")
  }
  return written ? Option.some(rejected) : Option.none<HedgeOrder>()
})

/**
 * Marks the order `sent` (if it was only `intended`) and executes it: a fill or a rejection is
 * recorded; a timeout or an unreachable venue leaves it `sent`, for the next pass's lookup.
 */
const send = Effect.fnUntraced(function* (venue: HedgeVenueShape, order: HedgeOrder) {
  let sent = order
  if (order.status === "intended") {
    sent = { ...order, status: "sent", updatedAt: yield* DateTime.now }
    // only the worker whose write landed sends (one whose lease ran out finds the row moved)
    if (!(yield* (yield* HedgeOrderRepo).update(sent, order))) return
  }
  const executed = yield* Effect.result(venue.execute(sent))
  if (Result.isSuccess(executed)) {
    if (executed.success._tag === "Filled") yield* recordFill(sent, executed.success.fill)
    return
  }
  const error = executed.failure
  if (error.reason === "rejected") {
    yield* recordRejection(sent, error.message)
  } else {
    yield* Effect.logWarning(`hedge order ${sent.id}: venue ${error.reason} (${error.message}); looked up next pass`)
  }
})

/** Settles an outstanding order from what the venue knows of it; answers whether it moved. */
const resolve = Effect.fnUntraced(function* (venue: HedgeVenueShape, order: HedgeOrder) {
  if (order.venue !== venue.name) {
    yield* Effect.logWarning(
      `hedge order ${order.id} was sent to the ${order.venue} venue, not this host's ${venue.name}: left for an operator ` +
        `(its outcome confirmed there: ratelock hedge fill|reject ${order.id} --override-venue)`
    )
    return false
  }
  const found = yield* Effect.result(venue.lookup(order.id))
  if (Result.isFailure(found)) {
    yield* Effect.logWarning(`hedge order ${order.id}: lookup failed (${found.failure.message}); again next pass`)
    return false
  }
  const lookup = found.success
  switch (lookup._tag) {
    case "Filled":
      return Option.isSome(yield* recordFill(order, lookup.fill))
    case "Rejected":
      return Option.isSome(yield* recordRejection(order, lookup.reason))
    case "Pending":
      return false
    case "Unknown":
      // never received (a crash before sending, or a venue that lost it): the same id again
      yield* send(venue, order)
      return true
  }
})

/** One pair's step: resolve what is outstanding, or else decide and send. Answers the orders moved. */
const hedgePair = Effect.fnUntraced(function* (
  venue: HedgeVenueShape,
  claimed: ClaimedPolicy,
  book: PairDelta | undefined
) {
  const { policy, lease } = claimed
  const orders = yield* HedgeOrderRepo
  const outstanding = yield* orders.outstanding(policy.environment, policy.pair)
  if (outstanding.length > 0) {
    let moved = 0
    for (const order of outstanding) {
      yield* Effect.annotateCurrentSpan("ratelock.hedge_order_id", order.id)
      if (yield* resolve(venue, order)) moved++
    }
    return moved
  }
  if (book === undefined) return 0
  const now = yield* DateTime.now
  const position = yield* orders.position(policy.environment, policy.pair)
  const intent = HedgePolicy.decide({ delta: book.delta, position, policy, now })
  if (Option.isNone(intent)) return 0
  const order: HedgeOrder = {
    id: yield* (yield* IdGenerator).uuid,
    environment: policy.environment,
    pair: policy.pair,
    side: intent.value.side,
    amount: intent.value.amount,
    instrument: intent.value.instrument,
    valueDate: intent.value.valueDate,
    status: "intended",
    delta: book.delta,
    position,
    target: intent.value.target,
    targetRatio: policy.targetRatio,
    band: policy.band,
    deltaSnapshotId: book.snapshotId,
    deltaAsOf: book.asOf,
    venue: venue.name,
    fillRate: null,
    fillAmount: null,
    filledAt: null,
    rejectionReason: null,
    createdAt: now,
    updatedAt: now
  }
  // stored before it is sent; not at all if the lease went to another worker meanwhile
  if (!(yield* orders.insertIntended(order, lease))) return 0
  yield* Effect.annotateCurrentSpan("ratelock.hedge_order_id", order.id)
  yield* Metrics.hedgeOrder(order, "placed")
  yield* logOrder("hedge order placed", order)
  yield* send(venue, order)
  return 1
})

/**
 * One hedging pass over every pair with a policy that no other worker holds; answers how many
 * orders it placed or moved. Nothing without a venue or a book delta.
 */
export const pass = Effect.fn("Hedging.pass")(function* () {
  const venue = yield* Effect.serviceOption(HedgeVenue)
  const book = yield* Effect.serviceOption(BookDelta)
  if (Option.isNone(venue) || Option.isNone(book)) return 0
  const policies = yield* HedgePolicyRepo
  const { concurrency } = yield* Lease.Worker
  const claimed = yield* policies.claim(yield* Lease.claim)
  if (claimed.length === 0) return 0
  const releaseAll = Effect.forEach(
    claimed,
    ({ policy, lease }) => policies.release(policy.environment, policy.pair, lease),
    { discard: true }
  ).pipe(Effect.ignore)
  return yield* Effect.gen(function* () {
    // the book is read once per environment and pass
    const environments = [...new Set(claimed.map((c) => c.policy.environment))]
    const deltas = new Map(
      yield* Effect.forEach(environments, (environment) =>
        Effect.map(
          book.value.deltas(environment),
          (list) => [environment, new Map(list.map((d) => [d.pair, d]))] as const
        )
      )
    )
    // a span per pair, the pass's job (traced worker passes have one child per job)
    const moved = yield* Effect.forEach(
      claimed,
      (c) =>
        hedgePair(venue.value, c, deltas.get(c.policy.environment)?.get(c.policy.pair)).pipe(
          Effect.withSpan("Hedging.pair", {
            attributes: { "ratelock.environment": c.policy.environment, "ratelock.pair": c.policy.pair }
          })
        ),
      { concurrency }
    )
    return moved.reduce((a, b) => a + b, 0)
  }).pipe(Effect.ensuring(releaseAll))
})
