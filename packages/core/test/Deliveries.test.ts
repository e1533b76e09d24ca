/**
 * Outbound delivery on adapters-store's memory store (the outbox its store contract suite verifies:
 * leased claims, one contract's events in order) and an in-test receiver: the retry schedule under
 * TestClock, recorded attempts, the signed body, and per-contract order.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { MemoryStore } from "@ratelock/adapters-store"
import {
  ContractRepo,
  Deliveries,
  EventRepo,
  PartnerRepo,
  QuoteRepo,
  WebhookSignature,
  WebhookTransport
} from "@ratelock/core"
import { Webhook } from "standardwebhooks"
import * as Fixtures from "./fixtures/contract.ts"

const start = Date.parse("2026-11-23T12:00:00Z")
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
const partnerId = "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0001"

interface Received {
  readonly at: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** A receiver that answers the given statuses in turn (then 200), recording what it got. */
const receiver = (statuses: Array<number>) => {
  const received: Array<Received> = []
  const transport = WebhookTransport.WebhookTransport.of({
    post: (request) =>
      Effect.map(DateTime.now, (now) => {
        received.push({ at: now.epochMilliseconds, headers: request.headers, body: request.body })
        return { status: statuses.shift() ?? 200 }
      })
  })
  return { received, layer: Layer.succeed(WebhookTransport.WebhookTransport, transport) }
}

/** The memory store with the partner and its sandbox webhook endpoint (other partners have none). */
const store = Layer.effectDiscard(
  Effect.flatMap(PartnerRepo.PartnerRepo, (partners) =>
    partners.insertPartner(
      { id: partnerId, name: "Acme Pay", createdAt: DateTime.makeUnsafe(start) },
      {
        apiKeys: [],
        webhookEndpoints: [
          {
            partnerId,
            environment: "sandbox",
            url: "https://hooks.example.com/ratelock",
            secrets: [{ secret, validUntil: null }]
          }
        ]
      }
    )
  ).pipe(Effect.orDie)
).pipe(Layer.provideMerge(MemoryStore.layerMemory))

let ids = 0
const outgoing = (contractId: string, sequence: number, createdAt: number): EventRepo.OutgoingEvent => ({
  id: `00000000-0000-4000-8000-${(++ids).toString(16).padStart(12, "0")}`,
  eventId: `evt-${contractId}-${sequence}`,
  partnerId,
  environment: "sandbox",
  contractId,
  eventType: "funds_received",
  sequence,
  payload: {
    event_type: "funds_received",
    event_id: `evt-${contractId}-${sequence}`,
    fx_contract_id: contractId,
    sequence
  },
  status: "pending",
  attempts: 0,
  lastError: null,
  nextAttemptAt: DateTime.makeUnsafe(createdAt),
  createdAt: DateTime.makeUnsafe(createdAt),
  deliveredAt: null,
  lastBody: null,
  traceContext: null
})

/** A new contract (and its quote) of the event's partner, for its events. */
const contractFor = Effect.fnUntraced(function* (event: EventRepo.OutgoingEvent) {
  const contract = Fixtures.option({
    id: event.contractId,
    quoteId: `quote-${event.contractId}`,
    partnerId: event.partnerId,
    environment: event.environment
  })
  yield* (yield* QuoteRepo.QuoteRepo).insert(Fixtures.quoteOf(contract))
  yield* (yield* ContractRepo.ContractRepo).insert(contract)
  return contract
})

/** Puts events in the outbox as transitions do: each in a commit of its contract (made on first use). */
const enqueue = (...events: ReadonlyArray<EventRepo.OutgoingEvent>) =>
  Effect.gen(function* () {
    const contracts = yield* ContractRepo.ContractRepo
    for (const event of events) {
      const found = yield* contracts.findById(event.contractId)
      const contract = Option.isSome(found) ? found.value : yield* contractFor(event)
      yield* contracts.commit({
        contract: {
          ...contract,
          eventSequence: event.sequence,
          history: [
            ...contract.history,
            { status: contract.status, at: event.createdAt, cause: `emits ${event.eventId}` }
          ],
          updatedAt: event.createdAt
        },
        expectedVersion: ContractRepo.version(contract),
        outgoing: event,
        incoming: null,
        transfer: null,
        ledger: []
      })
    }
  }).pipe(Effect.orDie)

/** The event as stored now. */
const recorded = (event: EventRepo.OutgoingEvent) =>
  EventRepo.EventRepo.use((repo) => repo.findOutgoing(event, event.id)).pipe(
    Effect.map(Option.getOrThrow),
    Effect.orDie
  )

const setup = (statuses: Array<number>) => {
  const rx = receiver(statuses)
  return { rx, layer: Layer.mergeAll(store, rx.layer, WebhookSignature.layerWebCrypto) }
}

describe("Deliveries", () => {
  it.effect("signs the body (event_type first, delivered_at per attempt) for both signature schemes", () => {
    const { rx, layer } = setup([])
    return Effect.gen(function* () {
      const now = Date.now() // standardwebhooks checks the timestamp against the real clock
      yield* TestClock.setTime(now)
      const event = outgoing("c-1", 1, now)
      yield* enqueue(event)
      assert.strictEqual(yield* Deliveries.deliverDue(), 1)
      const [got] = rx.received
      assert.isTrue(got!.body.startsWith(`{"event_type":"funds_received","event_id":"evt-c-1-1","delivered_at":"`))
      new Webhook(secret).verify(got!.body, got!.headers) // throws if the signature is wrong
      yield* WebhookSignature.verifyPartnerSignature(got!.body, got!.headers["x-partner-signature"]!, secret)
      const stored = yield* recorded(event)
      assert.strictEqual(stored.status, "delivered")
      assert.strictEqual(stored.attempts, 1)
      assert.strictEqual(stored.lastBody, got!.body)
    }).pipe(Effect.provide(layer))
  })

  it.effect("retries at 30 s, 2 min, 10 min, 1 h, 4 h, 12 h (± 10 %), then fails; nothing after 24 h", () => {
    const { rx, layer } = setup(Array(20).fill(500))
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const event = outgoing("c-2", 1, start)
      yield* enqueue(event)
      for (let i = 0; i < 40; i++) {
        yield* Deliveries.deliverDue()
        yield* TestClock.adjust("5 minutes")
      }
      for (let i = 0; i < 30; i++) {
        yield* Deliveries.deliverDue()
        yield* TestClock.adjust("1 hour")
      }
      const gaps = rx.received.slice(1).map((r, i) => (r.at - rx.received[i]!.at) / 1000)
      const expected = [30, 120, 600, 3600, 14400, 43200]
      assert.strictEqual(rx.received.length, 7)
      // each wait is the schedule's ± 10 %, rounded up to the next pass of the loop above
      gaps.forEach((gap, i) => {
        const step = expected[i]! <= 600 ? 300 : 3600
        assert.isTrue(gap >= expected[i]! * 0.9 && gap <= expected[i]! * 1.1 + step, `gap ${i}: ${gap}`)
      })
      const stored = yield* recorded(event)
      assert.strictEqual(stored.status, "failed")
      assert.strictEqual(stored.attempts, 7)
      assert.strictEqual(stored.lastError, "HTTP 500")
      assert.isTrue(rx.received.at(-1)!.at - start <= 24 * 3600 * 1000)
    }).pipe(Effect.provide(layer))
  })

  it.effect(
    "a receiver answering 500 twice then 200 gets it on the third attempt; later events wait their turn",
    () => {
      const { rx, layer } = setup([500, 500])
      return Effect.gen(function* () {
        yield* TestClock.setTime(start)
        const first = outgoing("c-3", 1, start)
        const second = outgoing("c-3", 2, start + 1)
        yield* enqueue(first, second)
        for (let i = 0; i < 12; i++) {
          yield* Deliveries.deliverDue()
          yield* TestClock.adjust("1 minute")
        }
        assert.deepStrictEqual(
          rx.received.map((r) => JSON.parse(r.body).sequence),
          [1, 1, 1, 2]
        )
        assert.strictEqual((yield* recorded(first)).status, "delivered")
        assert.strictEqual((yield* recorded(first)).attempts, 3)
        assert.strictEqual((yield* recorded(second)).status, "delivered")
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect("a receiver down for 6 hours gets everything afterwards, each contract in sequence order", () => {
    const received: Array<{ readonly at: number; readonly body: string }> = []
    const downUntil = start + 6 * 3600 * 1000
    const transport = WebhookTransport.WebhookTransport.of({
      post: (request) =>
        Effect.map(DateTime.now, (now) => {
          if (now.epochMilliseconds < downUntil) return { status: 503 }
          received.push({ at: now.epochMilliseconds, body: request.body })
          return { status: 200 }
        })
    })
    const layer = Layer.mergeAll(
      store,
      Layer.succeed(WebhookTransport.WebhookTransport, transport),
      WebhookSignature.layerWebCrypto
    )
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      for (const contract of ["c-a", "c-b", "c-c"]) {
        for (let sequence = 1; sequence <= 3; sequence++) {
          const event = outgoing(contract, sequence, start + sequence * 1000)
          yield* enqueue(event)
        }
      }
      for (let i = 0; i < 24 * 12; i++) {
        yield* Deliveries.deliverDue()
        yield* TestClock.adjust("5 minutes")
      }
      assert.strictEqual(received.length, 9)
      assert.isTrue(received.every((r) => r.at >= downUntil))
      for (const contract of ["c-a", "c-b", "c-c"]) {
        const sequences = received.map((r) => JSON.parse(r.body)).filter((b) => b.fx_contract_id === contract)
        assert.deepStrictEqual(
          sequences.map((b) => b.sequence),
          [1, 2, 3]
        )
      }
      const views = yield* EventRepo.EventRepo.use((repo) =>
        repo.list({ partnerId, environment: "sandbox" }, { direction: "outgoing", limit: 100 })
      ).pipe(Effect.orDie)
      const events = views.flatMap((view) => (view._tag === "outgoing" ? [view.event] : []))
      assert.isTrue(events.every((e) => e.status === "delivered"))
    }).pipe(Effect.provide(layer))
  })

  it.effect("without a webhook URL the attempt is recorded as failed and retried", () => {
    const { layer } = setup([])
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const event = { ...outgoing("c-4", 1, start), partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0009" }
      yield* enqueue(event)
      yield* Deliveries.deliverDue()
      const stored = yield* recorded(event)
      assert.strictEqual(stored.status, "retrying")
      assert.strictEqual(stored.lastError, "no webhook URL configured")
    }).pipe(Effect.provide(layer))
  })
})
