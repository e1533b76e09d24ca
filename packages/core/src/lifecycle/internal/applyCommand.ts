/**
 * Runs one state-machine transition against the store: the new contract, its history entry, the
 * outbound event (completed with its id and sequence), its ledger entries and whatever caused it,
 * in one commit.
 */
import { Effect, Result, Schema } from "effect"
import type { DateTime } from "effect"
import type { ContractRecord } from "../../terms/Contract.ts"
import * as ContractMachine from "../ContractMachine.ts"
import { ContractRepo, type FundingTransfer, version } from "../ContractRepo.ts"
import { EventRepo, type IncomingEvent, type IncomingEventType, type OutgoingEvent } from "../EventRepo.ts"
import { IdGenerator } from "../../kernel/IdGenerator.ts"
import * as Ledger from "../Ledger.ts"
import * as Metrics from "../Metrics.ts"
import { OutboundEvent, type OutboundEventDraft, type OutboundEventType } from "../../terms/OutboundEvent.ts"
import * as TraceContext from "../../kernel/TraceContext.ts"

const encodeEvent = Schema.encodeSync(OutboundEvent)

/** The JSON payload of an outbound event, `event_type` first, without `delivered_at` (set per attempt). */
export const outgoingPayload = (
  draft: OutboundEventDraft,
  eventId: string,
  sequence: number,
  at: DateTime.Utc
): Record<string, unknown> => {
  const {
    delivered_at: _,
    event_type,
    event_id,
    ...rest
  } = encodeEvent({
    ...draft,
    event_id: eventId,
    sequence,
    delivered_at: at
  } as OutboundEvent) as Record<string, unknown>
  return { event_type, event_id, ...rest }
}

const toOutgoing = Effect.fnUntraced(function* (contract: ContractRecord, draft: OutboundEventDraft, at: DateTime.Utc) {
  const id = yield* (yield* IdGenerator).uuid
  const sequence = contract.eventSequence
  const event: OutgoingEvent = {
    id,
    eventId: id,
    partnerId: contract.partnerId,
    environment: contract.environment,
    contractId: contract.id,
    eventType: draft.event_type,
    sequence,
    payload: outgoingPayload(draft, id, sequence, at),
    status: "pending",
    attempts: 0,
    lastError: null,
    nextAttemptAt: at,
    createdAt: at,
    deliveredAt: null,
    lastBody: null,
    traceContext: yield* TraceContext.current
  }
  return event
})

/** The partner's reports an outbound event follows from (the funds it announced, the exercise it asked for). */
const reportedBy: Record<OutboundEventType, ReadonlyArray<IncomingEventType>> = {
  funds_received: ["funds_in_route"],
  payout_settled: ["contract_exercised"],
  payout_failed: ["contract_exercised"],
  contract_expired: []
}

/** How many of a contract's inbound events are read for their trace contexts: a contract gets a few. */
const reportsRead = 20

/**
 * When traced, the span committing an outbound event links to the requests of the partner's
 * reports it follows from (a worker commits most events, in a trace of its own): so the trace of
 * a delivery leads back, through the commit, to the request that started it. A failed read links
 * nothing: tracing never decides a transition.
 */
const linkReports = Effect.fnUntraced(
  function* (event: OutgoingEvent) {
    const types = reportedBy[event.eventType]
    if (types.length === 0 || event.traceContext === null) return
    const views = yield* (yield* EventRepo).list(
      { partnerId: event.partnerId, environment: event.environment },
      { direction: "incoming", contractId: event.contractId, limit: reportsRead }
    )
    const reports = views.flatMap((view) =>
      view._tag === "incoming" && types.includes(view.event.eventType) && view.event.traceContext !== null
        ? [view.event.traceContext]
        : []
    )
    yield* TraceContext.linkCurrent(reports, { "ratelock.link": "partner_report" })
  },
  (self) => Effect.ignore(self)
)

export interface Cause {
  /** The inbound event that caused the transition, recorded in the same commit. */
  readonly incoming?: (transition: ContractMachine.Transition) => IncomingEvent
  /** The funding transfer counted by it. */
  readonly transfer?: FundingTransfer
  /** The funding watch's cursor once the transfer is counted. */
  readonly fundingCursor?: string | undefined
}

export const applyCommand = Effect.fnUntraced(function* (
  contract: ContractRecord,
  command: ContractMachine.Command,
  cause: Cause = {}
) {
  const result = ContractMachine.transition(contract, command)
  if (Result.isFailure(result)) return yield* Effect.fail(result.failure)
  const transition = result.success
  const outgoing =
    transition.event === null ? null : yield* toOutgoing(transition.contract, transition.event, transition.entry.at)
  if (outgoing !== null) yield* linkReports(outgoing)
  yield* (yield* ContractRepo).commit({
    contract: transition.contract,
    expectedVersion: version(contract),
    outgoing,
    incoming: cause.incoming ? cause.incoming(transition) : null,
    transfer: cause.transfer ?? null,
    ledger: Ledger.entriesFor(contract, command, transition),
    fundingCursor: cause.fundingCursor
  })
  yield* Metrics.transition(contract.status, transition.contract.status)
  return transition
})
