/**
 * Whole lifecycles over real HTTP, as a sandbox partner drives them: the real server with its
 * workers running, the simulated chain confirming after a short delay, and a real local webhook
 * receiver that verifies every delivery (Standard Webhooks and `X-Partner-Signature`).
 */
import { assert, layer } from "@effect/vitest"
import { ContractRepo, Money } from "@ratelock/core"
import { Effect } from "effect"
import * as Lifecycle from "./support/lifecycleServer.ts"
import {
  attemptsOf,
  call,
  deliveriesOf,
  exerciseAt,
  inbound,
  newContract,
  nowIso,
  outgoingRecords,
  sandbox,
  status,
  waitEvent,
  waitStatus
} from "./support/partnerFlow.ts"
import { waitFor } from "./support/wait.ts"
import { Receiver } from "./support/webhookReceiver.ts"

const evmHash = /^0x[0-9a-f]{64}$/
const slow = 60_000
const amount = Money.unsafe

/** What a payout at `live` owes on the contract (api-decisions.md, "Delta and payout"), USD notional, USDC payout. */
const expectedPayout = (contract: { locked_rate: string; max_transaction_amount: string }, live: string) => {
  const covered = Money.min(amount("10000"), amount(contract.max_transaction_amount))
  const delta = Money.multiply(covered, Money.subtract(amount(contract.locked_rate), amount(live)))
  return { delta, payout: Money.roundDown(Money.divide(delta, amount(live))) }
}

/** The receiver accepted nothing it could not verify. */
const allVerified = Effect.gen(function* () {
  assert.deepStrictEqual(yield* (yield* Receiver).rejected, [])
})

layer(Lifecycle.layer({ confirmDelay: "300 millis" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "lifecycle over HTTP",
  (it) => {
    it.effect(
      "an option: funds_in_route with an amount, funds_received, exercise below the locked rate, payout_settled",
      () =>
        Effect.gen(function* () {
          const { contract, customer } = yield* newContract()
          const route = yield* inbound({
            event_type: "funds_in_route",
            fx_contract_id: contract.id,
            amount: contract.total_amount
          })
          assert.deepStrictEqual([route.status, route.json.status], [200, "processed"])

          const received = yield* waitEvent(contract.id, "funds_received")
          assert.strictEqual(received.contract_status, "active")
          assert.strictEqual(received.sequence, 1)
          assert.isTrue(Money.equals(amount(received.funds.amount), amount(contract.total_amount)))
          assert.strictEqual(received.funds.funding_wallet_address, contract.funding_wallet_address)
          assert.match(received.funds.transaction_hash, evmHash)
          assert.strictEqual(yield* status(customer), "active")

          const exercised = yield* exerciseAt(contract.id, "5.0")
          assert.deepStrictEqual([exercised.status, exercised.json.status], [200, "queued"])
          const settled = yield* waitEvent(contract.id, "payout_settled")
          const expected = expectedPayout(contract, "5.0")
          assert.isTrue(Money.isPositive(expected.payout))
          assert.strictEqual(settled.sequence, 2)
          assert.strictEqual(settled.payout.status, "settled")
          assert.isTrue(Money.equals(amount(settled.payout.amount), expected.payout), settled.payout.amount)
          assert.strictEqual(settled.payout.currency, "USDC")
          assert.strictEqual(settled.payout.chain, "polygon")
          assert.match(settled.payout.transaction_hash, evmHash)
          assert.isTrue(Number.isInteger(settled.payout.block_number))
          // the pricing snapshot
          assert.strictEqual(settled.contract.locked_rate, contract.locked_rate)
          assert.isTrue(Money.equals(amount(settled.contract.live_execution_rate), amount("5.0")))
          assert.isTrue(Money.equals(amount(settled.contract.notional_amount), amount("10000")))
          assert.isTrue(Money.equals(amount(settled.contract.fx_delta_in_quote_currency), expected.delta))
          yield* waitStatus(customer, "settled")
          yield* allVerified
        }),
      slow
    )

    it.effect(
      "an option exercised above the locked rate: the zero payout settles at once, nothing on-chain",
      () =>
        Effect.gen(function* () {
          const { contract, customer } = yield* newContract()
          const before = Date.now()
          const funded = yield* sandbox(contract.id, "fund")
          assert.strictEqual(funded.status, 202, funded.text)
          // confirmed once the chain's delay (300 ms here, several worker passes) has passed
          assert.isAtLeast(Date.parse(funded.json.confirms_at), before + 20)
          assert.isTrue(Money.equals(amount(funded.json.amount), amount(contract.total_amount)))
          assert.match(funded.json.transaction_hash, evmHash)
          yield* waitEvent(contract.id, "funds_received")

          assert.strictEqual((yield* exerciseAt(contract.id, "6.0")).status, 200)
          const settled = yield* waitEvent(contract.id, "payout_settled")
          assert.strictEqual(settled.payout.amount, "0.000000")
          assert.isNull(settled.payout.transaction_hash)
          assert.isNull(settled.payout.block_number)
          assert.isTrue(Money.isZero(amount(settled.contract.fx_delta_in_quote_currency)))
          yield* waitStatus(customer, "settled")
          yield* allVerified
        }),
      slow
    )

    it.effect(
      "a payout that fails once: payout_failed with will_retry, then payout_settled; the payout feed oldest first",
      () =>
        Effect.gen(function* () {
          const since = yield* nowIso
          const { contract } = yield* newContract()
          const armed = yield* sandbox(contract.id, "fail-next-payout")
          assert.deepStrictEqual(
            [armed.status, armed.json],
            [202, { fx_contract_id: contract.id, next_payout_attempt: "fails" }]
          )
          assert.strictEqual((yield* sandbox(contract.id, "fund")).status, 202)
          yield* waitEvent(contract.id, "funds_received")
          assert.strictEqual((yield* exerciseAt(contract.id, "5.0")).status, 200)

          const failed = yield* waitEvent(contract.id, "payout_failed")
          assert.strictEqual(failed.payout.status, "failed")
          assert.isTrue(failed.payout.will_retry)
          assert.isString(failed.payout.next_retry_at)
          assert.strictEqual(failed.payout.failure_code, "rejected")
          const settled = yield* waitEvent(contract.id, "payout_settled")
          assert.isTrue(Money.equals(amount(settled.payout.amount), expectedPayout(contract, "5.0").payout))
          assert.match(settled.payout.transaction_hash, evmHash)
          assert.deepStrictEqual(
            (yield* deliveriesOf(contract.id)).map((d) => [d.sequence, d.eventType]),
            [
              [1, "funds_received"],
              [2, "payout_failed"],
              [3, "payout_settled"]
            ]
          )

          const feed = yield* call("GET", `/api/v1/fx/payout-events?since=${encodeURIComponent(since)}&limit=100`)
          assert.strictEqual(feed.status, 200)
          const mine = feed.json.items.filter((e: { fx_contract_id: string }) => e.fx_contract_id === contract.id)
          assert.deepStrictEqual(
            mine.map((e: { event_type: string }) => e.event_type),
            ["payout_failed", "payout_settled"]
          )
          const times = feed.json.items.map((e: { created_at: string }) => Date.parse(e.created_at))
          assert.deepStrictEqual(
            times,
            [...times].sort((a, b) => a - b)
          )
          yield* allVerified
        }),
      slow
    )

    it.effect(
      "a forward whose window the sandbox ends: contract_expired with the deposit forfeited",
      () =>
        Effect.gen(function* () {
          const { contract, customer } = yield* newContract({ contract_type: "forward" })
          assert.isString(contract.deposit_amount)
          assert.strictEqual((yield* sandbox(contract.id, "fund")).status, 202)
          yield* waitEvent(contract.id, "funds_received")

          const expired = yield* sandbox(contract.id, "expire")
          assert.strictEqual(expired.status, 200, expired.text)
          assert.strictEqual(expired.json.id, contract.id)
          assert.strictEqual(expired.json.status, "deposit_forfeited")
          const event = yield* waitEvent(contract.id, "contract_expired")
          assert.strictEqual(event.contract.contract_type, "forward")
          assert.strictEqual(event.deposit_outcome.status, "forfeited")
          assert.isTrue(Money.equals(amount(event.deposit_outcome.amount), amount(contract.deposit_amount)))
          assert.strictEqual(yield* status(customer), "deposit_forfeited")

          const again = yield* sandbox(contract.id, "expire")
          assert.deepStrictEqual([again.status, again.json.error.code], [409, "invalid_contract_state"])
          yield* allVerified
        }),
      slow
    )

    it.effect(
      "a forward exercised: payout settled, and the deposit release booked in the ledger",
      () =>
        Effect.gen(function* () {
          const { contract, customer } = yield* newContract({ contract_type: "forward" })
          assert.strictEqual((yield* sandbox(contract.id, "fund")).status, 202)
          yield* waitEvent(contract.id, "funds_received")
          assert.strictEqual((yield* exerciseAt(contract.id, "5.0")).status, 200)
          const settled = yield* waitEvent(contract.id, "payout_settled")
          assert.strictEqual(settled.payout.status, "settled")
          yield* waitStatus(customer, "settled")

          const ledger = yield* (yield* ContractRepo.ContractRepo).ledgerEntries(contract.id)
          const released = ledger.filter((e) => e.kind === "deposit_released")
          assert.lengthOf(released, 2)
          assert.deepStrictEqual(
            released.map((e) => e.account),
            ["deposits_held", "refunds_payable"]
          )
          // debited from the deposits held, credited back to the funding wallet
          assert.isTrue(Money.equals(released[0]!.amount, amount(contract.deposit_amount)))
          yield* allVerified
        }),
      slow
    )

    it.effect(
      "a receiver answering 500 twice, then 200: every event arrives, in sequence, with stable event_ids",
      () =>
        Effect.gen(function* () {
          const receiver = yield* Receiver
          const { contract } = yield* newContract()
          // 500, 500, then a delivery held open (answered 200 when released)
          yield* receiver.script(contract.id, [500, 500, "hold"])
          assert.strictEqual((yield* sandbox(contract.id, "fund")).status, 202)

          yield* waitFor(
            "the third attempt",
            Effect.map(receiver.holding(contract.id), (held) => held || undefined)
          )
          const retrying = (yield* outgoingRecords(contract.id)).find((r) => r.event_type === "funds_received")
          assert.strictEqual(retrying.status, "retrying")
          assert.strictEqual(retrying.retry_count, 1)
          assert.strictEqual(retrying.last_error, "HTTP 500")
          yield* receiver.release(contract.id)

          yield* waitEvent(contract.id, "funds_received")
          assert.strictEqual((yield* exerciseAt(contract.id, "5.0")).status, 200)
          yield* waitEvent(contract.id, "payout_settled")

          const attempts = yield* attemptsOf(contract.id)
          assert.deepStrictEqual(
            attempts.map((a) => [a.eventType, a.sequence, a.answered]),
            [
              ["funds_received", 1, 500],
              ["funds_received", 1, 500],
              ["funds_received", 1, 200],
              ["payout_settled", 2, 204]
            ]
          )
          const fundsIds = new Set(attempts.filter((a) => a.eventType === "funds_received").map((a) => a.eventId))
          assert.strictEqual(fundsIds.size, 1)

          const records = yield* waitFor(
            "both records delivered",
            Effect.map(outgoingRecords(contract.id), (rs) =>
              rs.length === 2 && rs.every((r) => r.status === "delivered") ? rs : undefined
            )
          )
          const funds = records.find((r) => r.event_type === "funds_received")
          assert.strictEqual(funds.idempotency_key, [...fundsIds][0])
          assert.strictEqual(funds.retry_count, 2)
          assert.isNull(funds.last_error)
          assert.isString(funds.processed_at)
          const payout = records.find((r) => r.event_type === "payout_settled")
          assert.strictEqual(payout.retry_count, 0)
          assert.strictEqual(payout.idempotency_key, attempts[3]!.eventId)
          yield* allVerified
        }),
      slow
    )

    it.effect("sandbox helpers: 404 for production keys and unknown contracts, 400 and 409 on misuse", () =>
      Effect.gen(function* () {
        const { contract } = yield* newContract()
        for (const helper of ["fund", "expire", "fail-next-payout"] as const) {
          const hidden = yield* sandbox(contract.id, helper, { production: true })
          assert.deepStrictEqual([hidden.status, hidden.json.error.code], [404, "not_found"], helper)
          // not even a malformed request tells a production key the route exists
          const malformed = yield* sandbox("not-a-uuid", helper, { production: true, body: { x: 1 } })
          assert.deepStrictEqual([malformed.status, malformed.json.error.code], [404, "not_found"], helper)
          const unknown = yield* sandbox("01a20000-0000-7000-8000-00000000abcd", helper)
          assert.deepStrictEqual([unknown.status, unknown.json.error.code], [404, "contract_not_found"], helper)
        }
        const zero = yield* sandbox(contract.id, "fund", { body: { amount: "0" } })
        assert.deepStrictEqual([zero.status, zero.json.error.code], [400, "funding_amount_invalid"])
        const tooPrecise = yield* sandbox(contract.id, "fund", { body: { amount: "1.0000001" } })
        assert.deepStrictEqual([tooPrecise.status, tooPrecise.json.error.code], [400, "funding_amount_invalid"])
        const notYet = yield* sandbox(contract.id, "expire")
        assert.deepStrictEqual([notYet.status, notYet.json.error.code], [409, "invalid_contract_state"])

        const part = yield* sandbox(contract.id, "fund", { body: { amount: "1.5" } })
        assert.strictEqual(part.status, 202)
        assert.isTrue(Money.equals(amount(part.json.amount), amount("1.5")))
        // the rest of what is due, by default
        const rest = yield* sandbox(contract.id, "fund")
        assert.isTrue(Money.equals(Money.sum(amount("1.5"), amount(rest.json.amount)), amount(contract.total_amount)))
        yield* waitEvent(contract.id, "funds_received")
        const late = yield* sandbox(contract.id, "fund")
        assert.deepStrictEqual([late.status, late.json.error.code], [409, "invalid_contract_state"])
      })
    )
  }
)
