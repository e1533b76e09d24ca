/**
 * Ingests the partner's inbound events (`funds_in_route`, `contract_exercised`).
 *
 * The `Idempotency-Key` makes a replay harmless: the same key with the same body answers
 * `duplicate` with the first event's id; the same key with another body is refused. The event is
 * recorded in the same commit as the transition it causes.
 */
import { DateTime, Effect, Option } from "effect"
import { ContractNotFound, IdempotencyKeyReused } from "../kernel/ApiError.ts"
import type { ContractRecord } from "../terms/Contract.ts"
import { ContractRepo } from "./ContractRepo.ts"
import { EventRepo, type IncomingEvent } from "./EventRepo.ts"
import { IdGenerator } from "../kernel/IdGenerator.ts"
import { canonicalJson } from "./IdempotencyFingerprint.ts"
import type { InboundAck, InboundEvent } from "../terms/InboundEvent.ts"
import { applyCommand } from "./internal/applyCommand.ts"
import type { PartnerScope } from "../terms/Partner.ts"
import { retryStale } from "../kernel/StoreError.ts"
import * as TraceContext from "../kernel/TraceContext.ts"

export interface Delivery {
  readonly idempotencyKey: string
  readonly event: InboundEvent
  /** The body as received (parsed JSON), kept for the audit trail and replay comparison. */
  readonly payload: unknown
}

const sameBody = (a: unknown, b: unknown) =>
  Effect.map(Effect.all([canonicalJson(a), canonicalJson(b)]), ([x, y]) => x === y).pipe(
    Effect.orElseSucceed(() => false)
  )

/** The earlier event with this key, as a `duplicate` acknowledgement, if there is one. */
const replay = Effect.fnUntraced(function* (scope: PartnerScope, delivery: Delivery) {
  const earlier = yield* (yield* EventRepo).findIncoming(scope, delivery.idempotencyKey)
  if (Option.isNone(earlier)) return Option.none<InboundAck>()
  if (!(yield* sameBody(earlier.value.payload, delivery.payload))) {
    return yield* new IdempotencyKeyReused({
      message: "this Idempotency-Key was already used with a different body"
    })
  }
  return Option.some<InboundAck>({ webhook_event_id: earlier.value.id, status: "duplicate" })
})

const handle = Effect.fnUntraced(function* (scope: PartnerScope, delivery: Delivery) {
  const duplicate = yield* replay(scope, delivery)
  if (Option.isSome(duplicate)) return duplicate.value

  const found = yield* (yield* ContractRepo).find(scope, delivery.event.fx_contract_id)
  if (Option.isNone(found)) {
    return yield* new ContractNotFound({ message: `contract ${delivery.event.fx_contract_id} not found` })
  }
  const contract: ContractRecord = found.value
  const now = yield* DateTime.now
  const id = yield* (yield* IdGenerator).uuid
  // an exercise is acknowledged before its payout runs: `queued`; funds_in_route is done: `processed`
  const status = delivery.event.event_type === "contract_exercised" ? "queued" : "processed"
  const incoming: IncomingEvent = {
    id,
    partnerId: scope.partnerId,
    environment: scope.environment,
    contractId: contract.id,
    eventType: delivery.event.event_type,
    idempotencyKey: delivery.idempotencyKey,
    status,
    payload: delivery.payload,
    createdAt: now,
    processedAt: status === "processed" ? now : null,
    traceContext: yield* TraceContext.current
  }
  yield* applyCommand(
    contract,
    delivery.event.event_type === "funds_in_route"
      ? { _tag: "FundsInRouteReported", event: delivery.event, at: now }
      : { _tag: "ExerciseReported", event: delivery.event, at: now },
    { incoming: () => incoming }
  )
  const ack: InboundAck = { webhook_event_id: id, status }
  return ack
})

/**
 * Applies an inbound event. A concurrent writer (another event for the contract, or the same key
 * arriving twice at once) makes the commit stale: it is re-read and decided again.
 */
export const ingest = Effect.fn("Inbound.ingest")(function* (scope: PartnerScope, delivery: Delivery) {
  return yield* handle(scope, delivery).pipe(retryStale)
})
