/**
 * Runs one state-machine transition against the store: the new contract, its history entry, the
 * outbound event (completed with its id and sequence), its ledger entries and whatever caused it,
 * in one commit.
 */
import { Effect, Result, Schema } from "effect"
import type { DateTime } from "effect"
import type { ContractRecord } from "../Contract.ts"
import * as ContractMachine from "../ContractMachine.ts"
import { ContractRepo, type FundingTransfer, version } from "../ContractRepo.ts"
import type { IncomingEvent, OutgoingEvent } from "../EventRepo.ts"
import { IdGenerator } from "../IdGenerator.ts"
import * as Ledger from "../Ledger.ts"
import * as Metrics from "../Metrics.ts"
import { OutboundEvent, type OutboundEventDraft } from "../OutboundEvent.ts"

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
    lastBody: null
  }
  return event
})

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
