/**
 * `EventRepo` in memory: inbound events (written by commits, or alone by `insertIncoming`), the
 * audit list of both directions, the outbox (`outbox.ts`) and the payout feed.
 */
import { Effect, Exit, HashMap, Option } from "effect"
import { EventRepo, StoreError } from "@ratelock/core"
import type { Lease, Partner } from "@ratelock/core"
import { newestFirst, oldestFirst, self } from "./keyset.ts"
import { claimStep, updateStep } from "./outbox.ts"
import { inScope, scoped, scopedKey } from "./scope.ts"
import { atomically, read, type State, type StateRef, type Step, write } from "./state.ts"

type Incoming = EventRepo.IncomingEvent
type Outgoing = EventRepo.OutgoingEvent

const payoutEventTypes: ReadonlyArray<Outgoing["eventType"]> = ["payout_settled", "payout_failed"]

const outgoingRows = (state: State): Array<Outgoing> => Array.from(HashMap.values(state.outgoing), (job) => job.row)

const views = (state: State, filter: EventRepo.EventFilter): Array<EventRepo.EventView> => [
  ...(filter.direction === "outgoing"
    ? []
    : Array.from(HashMap.values(state.incoming), (event) => ({ _tag: "incoming" as const, event }))),
  ...(filter.direction === "incoming" ? [] : outgoingRows(state).map((event) => ({ _tag: "outgoing" as const, event })))
]

const insertIncomingStep =
  (event: Incoming) =>
  (state: State): Step<void, StoreError.StoreError> => {
    const key = scopedKey(event, event.idempotencyKey)
    if (HashMap.has(state.incoming, event.id) || HashMap.has(state.incomingKeys, key)) {
      return Exit.fail(new StoreError.StoreError({ message: `incoming event ${event.id} or its key already exists` }))
    }
    return write({
      ...state,
      incoming: HashMap.set(state.incoming, event.id, event),
      incomingKeys: HashMap.set(state.incomingKeys, key, event.id)
    })
  }

/** Saves a new status of an incoming event; its scope, key and trace context stay what they were. */
const updateIncomingStep = (event: Incoming) => (state: State) =>
  Option.match(HashMap.get(state.incoming, event.id), {
    onNone: () => write(state),
    onSome: ({ partnerId, environment, idempotencyKey, traceContext }) =>
      write({
        ...state,
        incoming: HashMap.set(state.incoming, event.id, {
          ...event,
          partnerId,
          environment,
          idempotencyKey,
          traceContext
        })
      })
  })

export const makeEventRepo = (ref: StateRef): EventRepo.EventRepoShape => {
  const findIncoming = Effect.fn("MemoryStore.events.findIncoming")(function* (
    scope: Partner.PartnerScope,
    idempotencyKey: string
  ) {
    return yield* read(ref, (state) =>
      Option.flatMap(HashMap.get(state.incomingKeys, scopedKey(scope, idempotencyKey)), (id) =>
        scoped(scope, HashMap.get(state.incoming, id))
      )
    )
  })

  const insertIncoming = Effect.fn("MemoryStore.events.insertIncoming")(function* (event: Incoming) {
    return yield* atomically(ref, insertIncomingStep(event))
  })

  const updateIncoming = Effect.fn("MemoryStore.events.updateIncoming")(function* (event: Incoming) {
    return yield* atomically(ref, updateIncomingStep(event))
  })

  const list = Effect.fn("MemoryStore.events.list")(function* (
    scope: Partner.PartnerScope,
    filter: EventRepo.EventFilter
  ) {
    const matches = (view: EventRepo.EventView) =>
      inScope(scope, view.event) && (filter.contractId === undefined || view.event.contractId === filter.contractId)
    return yield* read(ref, (state) => newestFirst(views(state, filter).filter(matches), (view) => view.event, filter))
  })

  const claimOutgoing = Effect.fn("MemoryStore.events.claimOutgoing")(function* (claim: Lease.Claim) {
    return yield* atomically(ref, claimStep(claim))
  })

  const updateOutgoing = Effect.fn("MemoryStore.events.updateOutgoing")(function* (events: ReadonlyArray<Outgoing>) {
    return yield* atomically(ref, updateStep(events))
  })

  const listPayoutEvents = Effect.fn("MemoryStore.events.listPayoutEvents")(function* (
    scope: Partner.PartnerScope,
    filter: EventRepo.PayoutEventFilter
  ) {
    const since = filter.since?.epochMilliseconds ?? Number.NEGATIVE_INFINITY
    const matches = (event: Outgoing) =>
      inScope(scope, event) && payoutEventTypes.includes(event.eventType) && event.createdAt.epochMilliseconds >= since
    return yield* read(ref, (state) => oldestFirst(outgoingRows(state).filter(matches), self, filter))
  })

  const findOutgoing = Effect.fn("MemoryStore.events.findOutgoing")(function* (
    scope: Partner.PartnerScope,
    id: string
  ) {
    return yield* read(ref, (state) =>
      scoped(
        scope,
        Option.map(HashMap.get(state.outgoing, id), (job) => job.row)
      )
    )
  })

  return EventRepo.EventRepo.of({
    findIncoming,
    insertIncoming,
    updateIncoming,
    list,
    claimOutgoing,
    updateOutgoing,
    listPayoutEvents,
    findOutgoing
  })
}
