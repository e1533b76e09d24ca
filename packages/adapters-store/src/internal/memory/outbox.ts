/**
 * The outgoing-event outbox the delivery worker drains. Deliveries of a contract are serialised:
 * an event is claimable only when no earlier event (lower `sequence`) of its contract is still
 * `pending` or `retrying`, so a failing event holds back its own contract only.
 */
import { HashMap, Option } from "effect"
import type { EventRepo, Lease } from "@ratelock/core"
import { dueAt, take, unleased } from "./lease.ts"
import { done, type State, type Step, write } from "./state.ts"

type Outgoing = EventRepo.OutgoingEvent

const isOpen = (event: Outgoing): boolean => event.status === "pending" || event.status === "retrying"

/** contract id → the lowest sequence among its open events: the only one that may be delivered. */
const headsOf = (state: State): ReadonlyMap<string, number> => {
  const heads = new Map<string, number>()
  for (const { row } of HashMap.values(state.outgoing)) {
    const head = heads.get(row.contractId)
    if (isOpen(row) && (head === undefined || row.sequence < head)) heads.set(row.contractId, row.sequence)
  }
  return heads
}

export const claimStep =
  (claim: Lease.Claim) =>
  (state: State): Step<ReadonlyArray<Outgoing>> => {
    const heads = headsOf(state)
    const [taken, outgoing] = take(
      state.outgoing,
      claim,
      (event) => isOpen(event) && heads.get(event.contractId) === event.sequence && dueAt(event.nextAttemptAt, claim)
    )
    return done(taken, { ...state, outgoing })
  }

/**
 * Saves each event's delivery state and releases its lease, in one step; the stored payload and
 * trace context are kept, and an unknown event is left alone.
 */
export const updateStep =
  (events: ReadonlyArray<Outgoing>) =>
  (state: State): Step<void> =>
    write({
      ...state,
      outgoing: events.reduce((outgoing, event) => {
        const stored = HashMap.get(outgoing, event.id)
        return Option.isNone(stored)
          ? outgoing
          : HashMap.set(
              outgoing,
              event.id,
              unleased({ ...event, payload: stored.value.row.payload, traceContext: stored.value.row.traceContext })
            )
      }, state.outgoing)
    })
