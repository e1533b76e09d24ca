/**
 * The lifecycle programs end to end on adapters-store's memory store (the one its store contract
 * suite verifies: leased claims, compare-and-set commits) and an in-test fake chain: quote →
 * contract → funding → exercise → payout → settlement, and every typed refusal on the way. What a
 * test checks in the store it reads through the ports, as the workers do.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { MemoryStore } from "@ratelock/adapters-store"
import {
  ChainGateway,
  ContractRepo,
  Contracts,
  EventRepo,
  Expiry,
  Funding,
  IdGenerator,
  Inbound,
  Ledger,
  MarketData,
  Money,
  Payouts,
  type Partner,
  PayoutRepo,
  PayoutWait,
  type QuoteRequest,
  Quotes,
  SettlementRails,
  WebhookEvents
} from "@ratelock/core"
import { quoteRequest } from "./fixtures/quoteRequest.ts"
import { FakeChain } from "./fakes/FakeChain.ts"

const start = Date.parse("2026-11-23T12:00:00Z") // a Monday
const at = (offsetMs: number) => DateTime.makeUnsafe(start + offsetMs)
const minutes = (n: number) => n * 60_000
const hours = (n: number) => n * 3_600_000
const days = (n: number) => n * 86_400_000

const alice: Partner.PartnerScope = { partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0001", environment: "sandbox" }
const bob: Partner.PartnerScope = { partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0002", environment: "sandbox" }

const request = (overrides: Partial<QuoteRequest.QuoteRequest> = {}) => quoteRequest(at(0), overrides)

const harness = () => {
  const chain = new FakeChain()
  const layer = Layer.mergeAll(
    MemoryStore.layerMemory,
    Layer.succeed(ChainGateway.ChainGateway, chain.gateway),
    MarketData.MarketData.layerDefaults,
    IdGenerator.IdGenerator.layerTest
  )
  return { chain, layer }
}

/** The contract as stored. */
const stored = (id: string) =>
  ContractRepo.ContractRepo.use((repo) => repo.findById(id)).pipe(Effect.map(Option.getOrThrow), Effect.orDie)

/** Its ledger entries, in booking order. */
const ledgerOf = (id: string) => ContractRepo.ContractRepo.use((repo) => repo.ledgerEntries(id)).pipe(Effect.orDie)

/** Where its funding watch continues; undefined before any. */
const cursorOf = (id: string) =>
  ContractRepo.ContractRepo.use((repo) => repo.fundingCursor(id)).pipe(Effect.map(Option.getOrUndefined), Effect.orDie)

/** As if the cursor were lost: the fake chain's cursor of nothing seen (`transfers:strays`). */
const loseCursor = (id: string) =>
  ContractRepo.ContractRepo.use((repo) => repo.saveFundingCursor(id, "0:0")).pipe(Effect.orDie)

/** Every transfer recorded as unmatched, oldest first. */
const unmatched = ContractRepo.ContractRepo.use((repo) => repo.unmatchedTransfers({ limit: 1000 })).pipe(Effect.orDie)

/** The contract's payout as stored. */
const payoutOf = (contractId: string) =>
  PayoutRepo.PayoutRepo.use((repo) => repo.findByContract(contractId)).pipe(Effect.map(Option.getOrThrow), Effect.orDie)

/** Writes a payout over the stored `expected` row, as a worker would before it crashed. */
const overwritePayout = (payout: PayoutRepo.PayoutRecord, expected: PayoutRepo.PayoutRecord) =>
  PayoutRepo.PayoutRepo.use((repo) => repo.update(payout, expected)).pipe(
    Effect.flatMap((written) => (written ? Effect.void : Effect.die(new Error("the payout row moved")))),
    Effect.orDie
  )

const exercise = (contractId: string, live: string, executedAt: DateTime.Utc) => ({
  event_type: "contract_exercised" as const,
  fx_contract_id: contractId,
  executed_at: executedAt,
  live_execution_rate: Money.unsafe(live),
  payout_wallet_address: "0x1111111111111111111111111111111111111111",
  chain: "polygon" as const
})

/** A funded option on USD_TO_BRL, exercised two hours in at `live`: what every payout test starts from. */
const exercisedContract = (chain: FakeChain, live: string, scope: Partner.PartnerScope = alice) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const quote = yield* Quotes.create(scope, request())
    const contract = yield* Contracts.create(scope, { quote_id: quote.id })
    chain.fund(contract.funding_wallet_address, contract.total_amount, at(minutes(1)))
    yield* Funding.confirmFunding()
    yield* Inbound.ingest(scope, {
      idempotencyKey: `exercise-${contract.id}`,
      event: exercise(contract.id, live, at(hours(2))),
      payload: {}
    })
    return contract
  })

/** Alice's outgoing events of the contract (in `scope`'s environment), in sequence order. */
const outbound = (contractId: string, scope: Partner.PartnerScope = alice) =>
  EventRepo.EventRepo.use((repo) => repo.list(scope, { direction: "outgoing", contractId, limit: 1000 })).pipe(
    Effect.map((views) =>
      views.flatMap((view) => (view._tag === "outgoing" ? [view.event] : [])).sort((a, b) => a.sequence - b.sequence)
    ),
    Effect.orDie
  )

describe("lifecycle programs", () => {
  it.effect("a rail the deployment does not settle on in an environment fails the quote there only", () => {
    const { layer } = harness()
    const productionUsdtOnly: SettlementRails.SettlementRailsShape = {
      supports: (environment, chain, token) => environment === "sandbox" || (chain === "polygon" && token === "USDT")
    }
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const production = { ...alice, environment: "production" as const }
      const refused = yield* Quotes.create(production, request({ chain: "polygon", settlement_currency: "USDC" }))
      assert.strictEqual(refused.status, "failed")
      assert.strictEqual(refused.failure_reason?.code, "unsupported_settlement_rail")
      const usdt = yield* Quotes.create(production, request({ chain: "polygon", settlement_currency: "USDT" }))
      assert.strictEqual(usdt.status, "created")
      const sandbox = yield* Quotes.create(alice, request({ chain: "polygon", settlement_currency: "USDC" }))
      assert.strictEqual(sandbox.status, "created")
    }).pipe(Effect.provide(layer), Effect.provideService(SettlementRails.SettlementRails, productionUsdtOnly))
  })

  it.effect("quote → contract → funding → exercise → payout → settled, paying once", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const quote = yield* Quotes.create(alice, request())
      assert.strictEqual(quote.status, "created")
      assert.isTrue(Money.isPositive(quote.premium_amount))
      assert.strictEqual(quote.premium_amount.scale, 6)
      assert.isNull(quote.deposit_amount ?? null)

      const contract = yield* Contracts.create(alice, { quote_id: quote.id })
      assert.strictEqual(contract.funding_wallet_address, "polygon:sandbox:addr0")
      assert.isTrue(Money.equals(contract.total_amount, quote.total_amount))

      const ack = yield* Inbound.ingest(alice, {
        idempotencyKey: "fir-key-0001",
        event: { event_type: "funds_in_route", fx_contract_id: contract.id, amount: contract.total_amount },
        payload: { event_type: "funds_in_route", fx_contract_id: contract.id }
      })
      assert.strictEqual(ack.status, "processed")

      chain.fund(contract.funding_wallet_address, contract.total_amount, at(minutes(2)))
      assert.strictEqual(yield* Funding.confirmFunding(), 1)
      assert.strictEqual(yield* Funding.confirmFunding(), 0) // the same transfer is not counted twice
      assert.strictEqual((yield* stored(contract.id)).status, "active")

      yield* TestClock.setTime(start + days(3))
      const exercised = yield* Inbound.ingest(alice, {
        idempotencyKey: "exercise-0001",
        event: exercise(contract.id, "5.1234", at(days(3))),
        payload: { event_type: "contract_exercised", fx_contract_id: contract.id }
      })
      assert.strictEqual(exercised.status, "queued")

      yield* Payouts.runDue() // creates, prepares (persisted) and broadcasts
      yield* Payouts.runDue() // looks the transaction up: confirmed
      yield* Payouts.runDue() // nothing left to do
      const settled = yield* stored(contract.id)
      assert.strictEqual(settled.status, "settled")
      assert.deepStrictEqual(chain.broadcasts.length, 1)

      const events = yield* outbound(contract.id)
      assert.deepStrictEqual(
        events.map((e) => [e.eventType, e.sequence]),
        [
          ["funds_received", 1],
          ["payout_settled", 2]
        ]
      )
      const payout = events[1]!.payload as { payout: { amount: string; transaction_hash: string } }
      // 10,000 USD at 5.4424-ish locked vs 5.1234 live, paid in USDC: N × (K − S) / S, rounded down
      const expected = Money.roundDown(
        Money.divide(
          Money.multiply(Money.unsafe("10000"), Money.subtract(settled.lockedRate, Money.unsafe("5.1234"))),
          Money.unsafe("5.1234")
        )
      )
      assert.strictEqual(payout.payout.amount, Money.format(expected))
      assert.strictEqual(payout.payout.transaction_hash, chain.broadcasts[0])

      // the ledger: funds in, premium earned, payout paid; every currency balances to zero
      const ledger = yield* ledgerOf(contract.id)
      assert.deepStrictEqual(
        ledger.map((e) => [e.kind, e.account, Money.format(e.amount)]),
        [
          ["funds_received", "funding_wallet", Money.format(contract.total_amount)],
          ["funds_received", "partner_prepayment", `-${Money.format(contract.total_amount)}`],
          ["premium_received", "partner_prepayment", Money.format(contract.premium_amount)],
          ["premium_received", "premium_income", `-${Money.format(contract.premium_amount)}`],
          ["payout_paid", "payout_expense", payout.payout.amount],
          ["payout_paid", "payout_wallet", `-${payout.payout.amount}`]
        ]
      )
      for (const total of Ledger.balances(ledger).values()) assert.isTrue(Money.isZero(total))
    }).pipe(Effect.provide(layer))
  })

  it.effect("a payout that fails on-chain reports payout_failed, retries on schedule, and settles once", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      const contract = yield* exercisedContract(chain, "5.00")
      chain.outcomes.push("fail")
      yield* Payouts.runDue() // prepare + broadcast tx 0
      yield* Payouts.runDue() // lookup: failed → payout_failed, retry in 1 min
      const failed = (yield* outbound(contract.id)).at(-1)!
      assert.strictEqual(failed.eventType, "payout_failed")
      const body = failed.payload as { payout: { will_retry: boolean; next_retry_at: string } }
      assert.isTrue(body.payout.will_retry)
      assert.strictEqual(body.payout.next_retry_at, DateTime.formatIso(at(minutes(1))))

      yield* Payouts.runDue() // not due yet
      assert.strictEqual(chain.broadcasts.length, 1)
      yield* TestClock.adjust(minutes(1))
      yield* Payouts.runDue() // prepare + broadcast tx 1
      yield* Payouts.runDue() // confirmed
      assert.strictEqual((yield* stored(contract.id)).status, "settled")
      assert.deepStrictEqual(new Set(chain.broadcasts).size, 2)
      assert.deepStrictEqual(
        (yield* outbound(contract.id)).map((e) => e.eventType),
        ["funds_received", "payout_failed", "payout_settled"]
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("after the schedule is exhausted the payout stops retrying (will_retry false)", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      const contract = yield* exercisedContract(chain, "5.00")
      chain.outcomes.push(...Array(6).fill("reject_prepare"))
      for (let i = 0; i < 6; i++) {
        yield* Payouts.runDue()
        yield* TestClock.adjust(hours(7))
      }
      const failures = (yield* outbound(contract.id)).filter((e) => e.eventType === "payout_failed")
      assert.strictEqual(failures.length, 6)
      const last = failures.at(-1)!.payload as { payout: { will_retry: boolean; next_retry_at: null } }
      assert.isFalse(last.payout.will_retry)
      assert.isNull(last.payout.next_retry_at)
      assert.strictEqual((yield* payoutOf(contract.id)).status, "failed")
      assert.strictEqual((yield* stored(contract.id)).status, "exercised")
      assert.strictEqual(chain.broadcasts.length, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a payout prepared before a crash is looked up and re-broadcast, never prepared again", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      const contract = yield* exercisedContract(chain, "5.00")
      const created = yield* Payouts.start(yield* stored(contract.id))
      // the signed transaction is persisted, then the process "crashes" before broadcasting
      const pending = Option.getOrThrow(created)
      const prepared = yield* chain.gateway.preparePayout({
        payoutId: pending.id,
        rail: { chain: pending.chain, environment: pending.environment, token: pending.currency },
        destination: pending.destination,
        amount: pending.amount,
        committed: Money.zero
      })
      yield* overwritePayout(
        { ...pending, status: "prepared", prepared: prepared.persisted, transactionHash: prepared.transactionHash },
        pending
      )
      yield* Payouts.runDue() // lookup: unknown → re-broadcast the same bytes
      yield* Payouts.runDue() // confirmed
      assert.strictEqual(chain.prepared.size, 1)
      assert.deepStrictEqual(chain.broadcasts, [prepared.transactionHash])
      assert.strictEqual((yield* stored(contract.id)).status, "settled")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a payout the chain prices out is replaced: the new version is persisted, then sent, and settles", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      const contract = yield* exercisedContract(chain, "5.00")
      chain.outcomes.push("pending")
      yield* Payouts.runDue() // sign, persist, broadcast version 0
      chain.replies.push("replace")
      yield* Payouts.runDue() // still pending and priced out: version 1 persisted, then broadcast
      const replaced = yield* payoutOf(contract.id)
      assert.strictEqual(replaced.replacements, 1)
      assert.deepStrictEqual(
        FakeChain.versions({ transactionHash: "", persisted: replaced.prepared! }),
        chain.broadcasts
      )
      assert.strictEqual(replaced.transactionHash, chain.broadcasts[1])
      assert.isNull(replaced.waiting)
      // the replacement is mined: the contract settles with that version's hash, paid once
      chain.minePending()
      yield* Payouts.runDue()
      assert.strictEqual((yield* stored(contract.id)).status, "settled")
      const events = yield* outbound(contract.id)
      assert.deepStrictEqual(
        events.map((e) => e.eventType),
        ["funds_received", "payout_settled"]
      )
      const body = events[1]!.payload as { payout: { transaction_hash: string } }
      assert.strictEqual(body.payout.transaction_hash, chain.broadcasts[1])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a payout that only waits (fee cap, an empty hot wallet) is never reported failed", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      const contract = yield* exercisedContract(chain, "5.00")
      chain.outcomes.push("pending")
      chain.refusals.push("insufficient_funds")
      yield* Payouts.runDue() // signed and persisted; the broadcast is refused: it waits, funds
      const unfunded = yield* payoutOf(contract.id)
      assert.strictEqual(unfunded.status, "prepared")
      assert.strictEqual(unfunded.waiting, "insufficient_funds")
      assert.strictEqual(unfunded.attempts, 0)
      chain.replies.push("fee_cap")
      yield* Payouts.runDue() // funded now, but the chain asks more than the cap
      const capped = yield* payoutOf(contract.id)
      assert.strictEqual(capped.waiting, "fee_cap")
      assert.strictEqual(capped.replacements, 0)
      assert.deepStrictEqual(
        (yield* outbound(contract.id)).map((e) => e.eventType),
        ["funds_received"]
      )
      assert.strictEqual((yield* stored(contract.id)).status, "exercised")
    }).pipe(Effect.provide(layer))
  })

  it.effect(
    "a hot wallet short of funds at signing is a wait, drafted again a minute later, never reported failed",
    () => {
      const { chain, layer } = harness()
      return Effect.gen(function* () {
        const contract = yield* exercisedContract(chain, "5.00")
        chain.outcomes.push("unfunded", "unfunded")
        yield* Payouts.runDue() // the draft finds the hot wallet empty: nothing signed
        const unfunded = yield* payoutOf(contract.id)
        assert.strictEqual(unfunded.status, "pending")
        assert.strictEqual(unfunded.waiting, "insufficient_funds")
        assert.strictEqual(unfunded.attempts, 0)
        assert.isTrue(PayoutWait.isStuck(unfunded))
        yield* Payouts.runDue() // not due again yet: nothing drafted
        assert.strictEqual(chain.outcomes.length, 1)
        yield* TestClock.adjust(minutes(1))
        yield* Payouts.runDue() // still empty
        yield* TestClock.adjust(minutes(1))
        yield* Payouts.runDue() // funded: signed and sent
        yield* Payouts.runDue() // mined
        assert.strictEqual((yield* stored(contract.id)).status, "settled")
        assert.deepStrictEqual(
          (yield* outbound(contract.id)).map((e) => e.eventType),
          ["funds_received", "payout_settled"]
        )
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect(
    "a payout the hot wallet can pay only after those already signed waits for funds, never signed to revert",
    () => {
      const { chain, layer } = harness()
      // production: the sandbox pays from the simulated chain, which has no wallet to run short
      const production: Partner.PartnerScope = { ...alice, environment: "production" }
      return Effect.gen(function* () {
        const first = yield* exercisedContract(chain, "5.00", production)
        const second = yield* exercisedContract(chain, "5.00", production)
        yield* Payouts.start(yield* stored(first.id))
        yield* Payouts.start(yield* stored(second.id))
        const [a, b] = [yield* payoutOf(first.id), yield* payoutOf(second.id)]
        assert.isTrue(Money.equals(a.amount, b.amount))
        // room for one payout and a half: as 100 USDC for two of 60
        const key = FakeChain.balanceKey({ chain: a.chain, environment: a.environment, token: a.currency })
        chain.tokenBalances.set(key, Money.multiply(a.amount, Money.unsafe("1.5")))
        const committed = PayoutRepo.PayoutRepo.use((repo) => repo.committed(a)).pipe(Effect.orDie)
        /** The payout signed and the one that waits, whichever the pass drafted first. */
        const split = Effect.gen(function* () {
          const both = [yield* payoutOf(first.id), yield* payoutOf(second.id)]
          return {
            signed: both.find((p) => p.status !== "pending")!,
            waiting: both.find((p) => p.status === "pending")
          }
        })

        chain.outcomes.push("pending")
        yield* Payouts.runDue() // both due in one pass: one signed and sent, the other refused by the draft
        const { signed, waiting } = yield* split
        assert.strictEqual(signed.status, "prepared")
        assert.isDefined(waiting)
        assert.strictEqual(waiting!.waiting, "insufficient_funds")
        assert.strictEqual(waiting!.attempts, 0)
        assert.include(waiting!.lastError, `${Money.format(signed.amount)} USDC committed`)
        assert.isTrue(Money.equals(yield* committed, signed.amount))
        assert.strictEqual(new Set(chain.broadcasts).size, 1) // the first's bytes, sent again while in flight

        yield* TestClock.adjust(minutes(1))
        yield* Payouts.runDue() // drafted again while the first is in flight: still refused
        assert.strictEqual((yield* payoutOf(waiting!.contractId)).status, "pending")
        assert.strictEqual(new Set(chain.broadcasts).size, 1) // the first's bytes, sent again while in flight

        chain.minePending()
        yield* Payouts.runDue() // the first is confirmed: its amount left the wallet, nothing is committed
        assert.strictEqual((yield* stored(signed.contractId)).status, "settled")
        assert.isTrue(Money.isZero(yield* committed))
        yield* TestClock.adjust(minutes(1))
        yield* Payouts.runDue() // half a payout left: a confirmation frees no more than it had committed
        const short = yield* payoutOf(waiting!.contractId)
        assert.strictEqual(short.status, "pending")
        assert.strictEqual(short.waiting, "insufficient_funds")
        assert.include(short.lastError, "0 USDC committed")

        chain.tokenBalances.set(key, Money.sum(chain.tokenBalances.get(key)!, signed.amount)) // the treasury tops up
        yield* TestClock.adjust(minutes(1))
        yield* Payouts.runDue() // signed and sent
        yield* Payouts.runDue() // mined
        assert.strictEqual((yield* stored(waiting!.contractId)).status, "settled")
        assert.strictEqual(new Set(chain.broadcasts).size, 2)
        assert.isTrue(Money.equals(chain.tokenBalances.get(key)!, Money.multiply(a.amount, Money.unsafe("0.5"))))
        for (const contract of [first, second]) {
          assert.deepStrictEqual(
            (yield* outbound(contract.id, production)).map((e) => e.eventType),
            ["funds_received", "payout_settled"]
          )
        }
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect("an operator's cancellation, once mined, sends the payout again as a new transaction: paid once", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      const contract = yield* exercisedContract(chain, "5.00")
      yield* Payouts.runDue() // version 0 sent
      const cancelling = yield* Payouts.replaceNow(contract.id, "cancel").pipe(
        Effect.provideService(ChainGateway.ChainGateway, {
          ...chain.gateway,
          // version 0 is not mined yet as the operator cancels
          lookupPayout: () => Effect.succeed({ _tag: "Pending" as const })
        })
      )
      assert.strictEqual(cancelling.replacements, 1)
      assert.isTrue(cancelling.transactionHash!.endsWith("c"))
      yield* Payouts.runDue() // the cancellation is mined: back to pending, nothing paid
      const restarted = yield* payoutOf(contract.id)
      assert.strictEqual(restarted.status, "pending")
      assert.isNull(restarted.prepared)
      assert.strictEqual((yield* stored(contract.id)).status, "exercised")
      yield* Payouts.runDue() // a new transaction (attempt 1)
      yield* Payouts.runDue() // mined: settled
      assert.strictEqual((yield* stored(contract.id)).status, "settled")
      const settled = (yield* outbound(contract.id)).filter((e) => e.eventType === "payout_settled")
      assert.strictEqual(settled.length, 1)
      const body = settled[0]!.payload as { payout: { transaction_hash: string } }
      assert.strictEqual(body.payout.transaction_hash, `0xpay-${restarted.id}-1`)
    }).pipe(Effect.provide(layer))
  })

  it.effect("an operator cannot bump or cancel a payout already mined, nor one that has none", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      const contract = yield* exercisedContract(chain, "5.00")
      const none = yield* Effect.flip(Payouts.replaceNow(contract.id, "bump"))
      assert.strictEqual((none as Payouts.PayoutActionRefused).reason, "not_found")
      yield* Payouts.runDue() // sent, and the fake chain mines at once
      const mined = yield* Effect.flip(Payouts.replaceNow(contract.id, "cancel"))
      assert.strictEqual(mined._tag, "PayoutActionRefused")
      assert.strictEqual((mined as Payouts.PayoutActionRefused).reason, "mined")
      yield* Payouts.runDue()
      const settled = yield* Effect.flip(Payouts.replaceNow(contract.id, "bump"))
      assert.strictEqual((settled as Payouts.PayoutActionRefused).reason, "not_in_flight")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a worker whose lease ran out cannot broadcast: its write over the moved row is refused", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      const contract = yield* exercisedContract(chain, "5.00")
      const pending = Option.getOrThrow(yield* Payouts.start(yield* stored(contract.id)))
      yield* Payouts.advance(pending) // the worker holding the lease: prepares, stores, broadcasts
      yield* Payouts.advance(pending) // a late worker with the old row: its store is refused
      assert.strictEqual(chain.broadcasts.length, 1)
      assert.strictEqual((yield* payoutOf(contract.id)).transactionHash, chain.broadcasts[0])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a zero payout settles at once with nothing sent on-chain", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      const contract = yield* exercisedContract(chain, "6.00")
      yield* Payouts.runDue()
      assert.strictEqual((yield* stored(contract.id)).status, "settled")
      const settled = (yield* outbound(contract.id)).at(-1)!.payload as {
        payout: { amount: string; transaction_hash: null; block_number: null }
      }
      assert.strictEqual(settled.payout.amount, "0.000000")
      assert.isNull(settled.payout.transaction_hash)
      assert.isNull(settled.payout.block_number)
      assert.strictEqual(chain.broadcasts.length, 0)
      // never a job for the chain worker
      assert.strictEqual((yield* payoutOf(contract.id)).status, "confirmed")
      assert.strictEqual(chain.prepared.size, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a payout confirmed before a crash, with the contract not yet settled, is settled by the next pass", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      const contract = yield* exercisedContract(chain, "5.00")
      const created = Option.getOrThrow(yield* Payouts.start(yield* stored(contract.id)))
      // the chain confirmed, the payout row says so, and the process died before the contract commit
      yield* overwritePayout({ ...created, status: "confirmed", transactionHash: "0xdone", blockNumber: 9 }, created)
      assert.strictEqual((yield* stored(contract.id)).status, "exercised")
      yield* Payouts.runDue()
      assert.strictEqual((yield* stored(contract.id)).status, "settled")
      const settled = (yield* outbound(contract.id)).at(-1)!.payload as { payout: { transaction_hash: string } }
      assert.strictEqual(settled.payout.transaction_hash, "0xdone")
      assert.strictEqual(chain.prepared.size, 0)
      yield* Payouts.runDue() // settling again changes nothing
      assert.strictEqual((yield* outbound(contract.id)).filter((e) => e.eventType === "payout_settled").length, 1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("partial transfers add up; the contract activates once the total is covered", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const quote = yield* Quotes.create(alice, request({ contract_type: "forward" }))
      assert.isTrue(Money.isPositive(quote.deposit_amount!))
      const contract = yield* Contracts.create(alice, { quote_id: quote.id })
      chain.fund(contract.funding_wallet_address, contract.premium_amount, at(minutes(1)))
      yield* Funding.confirmFunding()
      assert.strictEqual((yield* stored(contract.id)).status, "quote_created")
      // the cursor past the transfer is saved by the commit that counted it
      assert.strictEqual(yield* cursorOf(contract.id), "1:0")
      chain.fund(contract.funding_wallet_address, contract.deposit_amount!, at(minutes(2)))
      yield* Funding.confirmFunding()
      assert.strictEqual((yield* stored(contract.id)).status, "active")
      assert.strictEqual(yield* cursorOf(contract.id), "2:0")
      const received = (yield* outbound(contract.id))[0]!.payload as { funds: { amount: string } }
      assert.strictEqual(received.funds.amount, Money.format(contract.total_amount))
    }).pipe(Effect.provide(layer))
  })

  it.effect("a chain that cannot be observed holds back only its own contracts' funding", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const onPolygon = yield* Contracts.create(alice, { quote_id: (yield* Quotes.create(alice, request())).id })
      const onSolana = yield* Contracts.create(alice, {
        quote_id: (yield* Quotes.create(alice, request({ chain: "solana", customer_reference_id: "cust-2" }))).id
      })
      chain.fund(onPolygon.funding_wallet_address, onPolygon.total_amount, at(minutes(1)))
      chain.fund(onSolana.funding_wallet_address, onSolana.total_amount, at(minutes(1)))
      chain.unreachable.add("solana")
      assert.strictEqual(yield* Funding.confirmFunding(), 1)
      assert.strictEqual((yield* stored(onPolygon.id)).status, "active")
      assert.strictEqual((yield* stored(onSolana.id)).status, "quote_created")
      // back up: the next pass sees it
      chain.unreachable.clear()
      assert.strictEqual(yield* Funding.confirmFunding(), 1)
      assert.strictEqual((yield* stored(onSolana.id)).status, "active")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a transfer after the total is covered is recorded for refund with its exact amount, once", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const contract = yield* Contracts.create(alice, { quote_id: (yield* Quotes.create(alice, request())).id })
      chain.fund(contract.funding_wallet_address, contract.total_amount, at(minutes(1)))
      chain.fund(contract.funding_wallet_address, Money.unsafe("1.234567"), at(minutes(2)))
      assert.strictEqual(yield* Funding.confirmFunding(), 1)
      const active = yield* stored(contract.id)
      assert.strictEqual(active.status, "active")
      assert.strictEqual(Money.format(active.fundedAmount), Money.format(contract.total_amount))

      const extra = chain.transfers.get(contract.funding_wallet_address)![1]!
      const recorded = yield* ContractRepo.ContractRepo.use((repo) =>
        repo.unmatchedTransfers({ contractId: contract.id, limit: 10 })
      )
      assert.deepStrictEqual(recorded, [
        {
          contractId: contract.id,
          partnerId: alice.partnerId,
          environment: "sandbox",
          chain: "polygon",
          transactionHash: extra.transactionHash,
          index: 0,
          blockNumber: extra.blockNumber,
          token: "USDC",
          amount: "1.234567",
          unit: "token",
          reason: "not_awaiting_funds",
          contractStatus: "active",
          observedAt: at(0)
        }
      ])

      // the refused transfer was the observation's last: its cursor is saved on its own
      assert.strictEqual(yield* cursorOf(contract.id), "2:0")
      // observing again (say the cursor was lost): the counted transfer is not unmatched, the extra one stays one row
      yield* loseCursor(contract.id)
      yield* TestClock.adjust(minutes(5))
      assert.isFalse(yield* Funding.observe(active))
      assert.strictEqual((yield* unmatched).length, 1)
      assert.strictEqual((yield* stored(contract.id)).history.length, active.history.length)
    }).pipe(Effect.provide(layer))
  })

  it.effect("another token on the funding address is recorded as wrong_token and never activates", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const contract = yield* Contracts.create(alice, { quote_id: (yield* Quotes.create(alice, request())).id })
      const token = "0x7ceb23fd6bc0add59e62ac25578270cff1b9f619"
      chain.sendStray(contract.funding_wallet_address, token, "500000000000000000000")
      assert.strictEqual(yield* Funding.confirmFunding(), 0)
      const waiting = yield* stored(contract.id)
      assert.strictEqual(waiting.status, "quote_created")
      assert.isTrue(Money.isZero(waiting.fundedAmount))
      const [stray] = yield* unmatched
      assert.deepStrictEqual(
        [stray?.reason, stray?.token, stray?.amount, stray?.unit, stray?.contractStatus],
        ["wrong_token", token, "500000000000000000000", "base_units", "quote_created"]
      )

      // later passes record nothing new: the cursor moved on, and a replay from scratch is deduplicated
      assert.strictEqual(yield* Funding.confirmFunding(), 0)
      yield* loseCursor(contract.id)
      assert.strictEqual(yield* Funding.confirmFunding(), 0)
      assert.strictEqual((yield* unmatched).length, 1)
      assert.strictEqual((yield* stored(contract.id)).history.length, 1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("funds arriving after the contract failed are recorded, never revive it", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const contract = yield* Contracts.create(alice, { quote_id: (yield* Quotes.create(alice, request())).id })
      yield* TestClock.adjust(hours(1) + 1)
      assert.strictEqual(yield* Funding.failUnfunded(), 1)
      chain.fund(contract.funding_wallet_address, contract.total_amount, at(hours(2)))
      const failed = yield* stored(contract.id)
      assert.isFalse(yield* Funding.observe(failed))
      assert.strictEqual((yield* stored(contract.id)).status, "failed")
      const [late] = yield* unmatched
      assert.deepStrictEqual(
        [late?.reason, late?.contractStatus, late?.amount],
        ["not_awaiting_funds", "failed", Money.format(contract.total_amount)]
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("the late-funds pass records funds sent after activation or failure, within its horizon only", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const paid = yield* Contracts.create(alice, { quote_id: (yield* Quotes.create(alice, request())).id })
      const unpaid = yield* Contracts.create(alice, { quote_id: (yield* Quotes.create(alice, request())).id })
      chain.fund(paid.funding_wallet_address, paid.total_amount, at(minutes(1)))
      assert.strictEqual(yield* Funding.confirmFunding(), 1)
      yield* TestClock.adjust(hours(1) + 1)
      assert.strictEqual(yield* Funding.failUnfunded(), 1)

      // a day later: both addresses receive funds; the funding pass no longer looks at either
      yield* TestClock.adjust(days(1))
      chain.fund(paid.funding_wallet_address, Money.unsafe("2"), at(days(1)))
      chain.fund(unpaid.funding_wallet_address, Money.unsafe("3"), at(days(1)))
      assert.strictEqual(yield* Funding.confirmFunding(), 0)
      assert.strictEqual((yield* unmatched).length, 0)
      yield* Funding.watchLateFunds()
      assert.deepStrictEqual(
        (yield* unmatched).map((t) => [t.contractId, t.contractStatus, t.amount]).sort(),
        [
          [paid.id, "active", "2"],
          [unpaid.id, "failed", "3"]
        ].sort()
      )
      assert.strictEqual((yield* stored(unpaid.id)).status, "failed")
      yield* Funding.watchLateFunds()
      assert.strictEqual((yield* unmatched).length, 2, "recorded once")

      // past the horizon (a week after their last transition) the addresses are no longer watched
      yield* TestClock.adjust(days(7))
      chain.fund(paid.funding_wallet_address, Money.unsafe("4"), at(days(8) + hours(2)))
      yield* Funding.watchLateFunds()
      assert.strictEqual((yield* unmatched).length, 2)
    }).pipe(Effect.provide(layer))
  })

  it.effect("unfunded contracts fail at the deadline, partly funded ones default", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const q1 = yield* Quotes.create(alice, request())
      const q2 = yield* Quotes.create(alice, request({ customer_reference_id: "cust-2" }))
      const unfunded = yield* Contracts.create(alice, { quote_id: q1.id })
      const partial = yield* Contracts.create(alice, { quote_id: q2.id })
      chain.fund(partial.funding_wallet_address, Money.unsafe("1.000000"), at(minutes(5)))
      yield* Funding.confirmFunding()
      assert.strictEqual(yield* Funding.failUnfunded(), 0)
      yield* TestClock.adjust(hours(1) + 1)
      assert.strictEqual(yield* Funding.failUnfunded(), 2)
      assert.strictEqual((yield* stored(unfunded.id)).status, "failed")
      assert.strictEqual((yield* stored(partial.id)).status, "defaulted")
    }).pipe(Effect.provide(layer))
  })

  it.effect("window end expires options and forfeits forward deposits", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const option = yield* Contracts.create(alice, { quote_id: (yield* Quotes.create(alice, request())).id })
      const forward = yield* Contracts.create(alice, {
        quote_id: (yield* Quotes.create(alice, request({ contract_type: "forward" }))).id,
        partner_transaction_reference: "tx-42"
      })
      for (const c of [option, forward]) chain.fund(c.funding_wallet_address, c.total_amount, at(minutes(1)))
      yield* Funding.confirmFunding()
      assert.strictEqual(yield* Expiry.expireDue(), 0)
      yield* TestClock.setTime(start + days(30) + 1)
      assert.strictEqual(yield* Expiry.expireDue(), 2)
      assert.strictEqual((yield* stored(option.id)).status, "expired")
      assert.strictEqual((yield* stored(forward.id)).status, "deposit_forfeited")
      const expired = (yield* outbound(forward.id)).at(-1)!.payload as {
        event_type: string
        partner_transaction_reference: string
        deposit_outcome: { status: string; amount: string }
      }
      assert.strictEqual(expired.event_type, "contract_expired")
      assert.strictEqual(expired.partner_transaction_reference, "tx-42")
      assert.deepStrictEqual(expired.deposit_outcome.status, "forfeited")
      assert.strictEqual(expired.deposit_outcome.amount, Money.format(forward.deposit_amount!))
      assert.isNull(((yield* outbound(option.id)).at(-1)!.payload as { deposit_outcome: null }).deposit_outcome)
      const forfeited = (yield* ledgerOf(forward.id)).filter((e) => e.kind === "deposit_forfeited")
      assert.deepStrictEqual(
        forfeited.map((e) => [e.account, Money.format(e.amount)]),
        [
          ["deposits_held", Money.format(forward.deposit_amount!)],
          ["forfeited_deposits", `-${Money.format(forward.deposit_amount!)}`]
        ]
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("contract creation refusals: failed, expired, already accepted, another partner's quote", () => {
    const { layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const failed = yield* Quotes.create(alice, request({ provider_rate: Money.unsafe("6.00") }))
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.failure_reason?.code, "provider_rate_off_market")
      assert.strictEqual(Money.format(failed.total_amount), "0")
      const notAccepted = yield* Effect.flip(Contracts.create(alice, { quote_id: failed.id }))
      assert.strictEqual(notAccepted._tag, "QuoteNotAccepted")

      const good = yield* Quotes.create(alice, request())
      const foreign = yield* Effect.flip(Contracts.create(bob, { quote_id: good.id }))
      assert.strictEqual(foreign._tag, "QuoteNotFound")
      assert.strictEqual((yield* Effect.flip(Quotes.get(bob, good.id)))._tag, "QuoteNotFound")

      yield* Contracts.create(alice, { quote_id: good.id })
      const again = yield* Effect.flip(Contracts.create(alice, { quote_id: good.id }))
      assert.strictEqual(again._tag, "QuoteAlreadyAccepted")

      const stale = yield* Quotes.create(alice, request())
      yield* TestClock.adjust(90_000)
      const expired = yield* Effect.flip(Contracts.create(alice, { quote_id: stale.id }))
      assert.strictEqual(expired._tag, "QuoteExpired")
      assert.strictEqual((yield* Quotes.get(alice, stale.id)).status, "failed")
    }).pipe(Effect.provide(layer))
  })

  it.effect("inbound events: duplicates replay, a reused key with another body is refused, states are enforced", () => {
    const { layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const contract = yield* Contracts.create(alice, { quote_id: (yield* Quotes.create(alice, request())).id })
      const early = yield* Effect.flip(
        Inbound.ingest(alice, {
          idempotencyKey: "exercise-early",
          event: exercise(contract.id, "5.0", at(0)),
          payload: { a: 1 }
        })
      )
      assert.strictEqual(early._tag, "InvalidContractState")

      const event = { event_type: "funds_in_route" as const, fx_contract_id: contract.id }
      const first = yield* Inbound.ingest(alice, { idempotencyKey: "same-key-01", event, payload: { x: 1, y: 2 } })
      const replay = yield* Inbound.ingest(alice, { idempotencyKey: "same-key-01", event, payload: { y: 2, x: 1 } })
      assert.deepStrictEqual(replay, { webhook_event_id: first.webhook_event_id, status: "duplicate" })
      const reused = yield* Effect.flip(
        Inbound.ingest(alice, { idempotencyKey: "same-key-01", event, payload: { x: 2 } })
      )
      assert.strictEqual(reused._tag, "IdempotencyKeyReused")

      const unknown = yield* Effect.flip(Inbound.ingest(bob, { idempotencyKey: "bob-key-0001", event, payload: {} }))
      assert.strictEqual(unknown._tag, "ContractNotFound")

      const mismatch = yield* Effect.flip(
        Inbound.ingest(alice, { idempotencyKey: "mismatch-01", event: { ...event, chain: "solana" }, payload: {} })
      )
      assert.strictEqual(mismatch._tag, "ContractMismatch")
    }).pipe(Effect.provide(layer))
  })

  it.effect("lists page newest first with opaque cursors, scoped to the partner", () => {
    const { layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) {
        ids.push((yield* Quotes.create(alice, request())).id)
        yield* TestClock.adjust(1000)
      }
      yield* Quotes.create(bob, request())
      const first = yield* Quotes.list(alice, { limit: 2 })
      assert.deepStrictEqual(
        first.items.map((q) => q.id),
        [ids[4], ids[3]]
      )
      const second = yield* Quotes.list(alice, { limit: 2, cursor: first.next_cursor! })
      assert.deepStrictEqual(
        second.items.map((q) => q.id),
        [ids[2], ids[1]]
      )
      const third = yield* Quotes.list(alice, { limit: 2, cursor: second.next_cursor! })
      assert.deepStrictEqual(
        third.items.map((q) => q.id),
        [ids[0]]
      )
      assert.isNull(third.next_cursor)

      const bad = yield* Effect.flip(Quotes.list(alice, { cursor: "not-a-cursor" }))
      assert.strictEqual(bad._tag, "ValidationError")

      const contract = yield* Contracts.create(alice, { quote_id: ids[4]! })
      const locks = yield* Contracts.listLocks(alice, "cust-1", {})
      assert.deepStrictEqual(
        locks.items.map((l) => [l.id, l.status]),
        [[contract.id, "quote_created"]]
      )
      assert.strictEqual((yield* Contracts.listLocks(bob, "cust-1", {})).items.length, 0)

      yield* Inbound.ingest(alice, {
        idempotencyKey: "audit-key-01",
        event: { event_type: "funds_in_route", fx_contract_id: contract.id },
        payload: { event_type: "funds_in_route", fx_contract_id: contract.id }
      })
      const audit = yield* WebhookEvents.list(alice, { direction: "incoming" })
      assert.strictEqual(audit.items.length, 1)
      assert.strictEqual(audit.items[0]?.idempotency_key, "audit-key-01")
      assert.strictEqual(audit.items[0]?.status, "processed")
    }).pipe(Effect.provide(layer))
  })
})
