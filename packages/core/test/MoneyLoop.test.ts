/**
 * The money loop on adapters-store's memory store and the in-test fake chain: funding addresses
 * swept into the hot wallet then the treasury beyond its float, a forward's deposit refunded once
 * (waiting for a refund address first), an unmatched transfer refunded by an operator, fees and
 * every movement booked balanced, and the reconciliation of the books with the chain.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { MemoryStore } from "@ratelock/adapters-store"
import {
  ChainGateway,
  ContractRepo,
  Contracts,
  Funding,
  IdGenerator,
  Inbound,
  Ledger,
  MarketData,
  Money,
  MovementRepo,
  Movements,
  type Partner,
  PartnerRepo,
  Payouts,
  Quotes,
  Reconciliation,
  Refunds,
  Sweeps,
  Treasury
} from "@ratelock/core"
import { quoteRequest } from "./fixtures/quoteRequest.ts"
import { FakeChain } from "./fakes/FakeChain.ts"

const start = Date.parse("2026-11-23T12:00:00Z")
const at = (offsetMs: number) => DateTime.makeUnsafe(start + offsetMs)
const minutes = (n: number) => n * 60_000

const alice: Partner.PartnerScope = { partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0001", environment: "sandbox" }
const refundAddress = "0x2222222222222222222222222222222222222222"
const treasuryAddress = "0x3333333333333333333333333333333333333333"

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

const movements = MovementRepo.MovementRepo.use((repo) => repo.list({ limit: 1000 })).pipe(Effect.orDie)

/** A funded forward on polygon USDC (active), and its funding address. */
const fundedForward = (chain: FakeChain, customer = "cust-1") =>
  Effect.gen(function* () {
    const quote = yield* Quotes.create(
      alice,
      quoteRequest(at(0), { contract_type: "forward", customer_reference_id: customer })
    )
    const contract = yield* Contracts.create(alice, { quote_id: quote.id })
    chain.fund(contract.funding_wallet_address, contract.total_amount, at(minutes(1)))
    yield* Funding.confirmFunding()
    return contract
  })

/** The customer transacts at 5.10, below the locked rate: a payout is due. */
const exercised = (contractId: string) =>
  Inbound.ingest(alice, {
    idempotencyKey: `exercise-${contractId}`,
    event: {
      event_type: "contract_exercised",
      fx_contract_id: contractId,
      executed_at: at(minutes(30)),
      live_execution_rate: Money.unsafe("5.10"),
      payout_wallet_address: "0x1111111111111111111111111111111111111111",
      chain: "polygon"
    },
    payload: {}
  })

/** Why an operator's refund of `transferId` is refused. */
const refusal = (transferId: string) =>
  Effect.flip(Refunds.refundTransfer({ transferId, requestedBy: "cli:test" })).pipe(
    Effect.map((e) => (e._tag === "RefundRefused" ? e.reason : e._tag))
  )

/** Every pass that moves money, once each, as a worker round would. */
const round = Effect.gen(function* () {
  yield* Payouts.runDue()
  yield* Sweeps.plan()
  yield* Movements.runDue()
  yield* Movements.runDue()
})

/** Every treasury entry booked so far, per currency: each must be zero. */
const treasuryBalances = MovementRepo.MovementRepo.use((repo) =>
  repo.entriesSince({ since: DateTime.makeUnsafe(0) })
).pipe(
  Effect.map((entries) => Ledger.balances(entries)),
  Effect.orDie
)

const setRefundAddress = PartnerRepo.PartnerRepo.use((repo) =>
  Effect.andThen(
    repo.insertPartner({ id: alice.partnerId, name: "Alice", createdAt: at(0) }),
    repo.saveRefundAddress({
      partnerId: alice.partnerId,
      environment: "sandbox",
      chain: "polygon",
      address: refundAddress,
      updatedAt: at(0)
    })
  )
).pipe(Effect.orDie)

describe("the money loop", () => {
  it.effect("a funded forward's address is swept whole into the hot wallet, once, and booked", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const contract = yield* fundedForward(chain)
      chain.nativeFee = Money.unsafe("0.0021")
      yield* round
      yield* round
      const [sweep, ...more] = (yield* movements).filter((m) => m.kind === "sweep")
      assert.strictEqual(more.length, 0)
      assert.strictEqual(sweep!.status, "confirmed")
      assert.strictEqual(sweep!.destination, null)
      assert.strictEqual(Money.format(sweep!.amount), Money.format(contract.total_amount))
      assert.strictEqual(Money.format(chain.addressBalances.get(contract.funding_wallet_address)!), "0.000000")
      assert.strictEqual(
        Money.format(chain.addressBalances.get(FakeChain.hotWalletAddress)!),
        Money.format(contract.total_amount)
      )
      // nothing left to sweep by the books, and the treasury ledger balances per currency
      const left = yield* MovementRepo.MovementRepo.use((r) =>
        r.fundingBalances({ environment: "sandbox", chain: "polygon" })
      )
      assert.deepStrictEqual(left, [])
      for (const [, total] of yield* treasuryBalances) assert.isTrue(Money.isZero(total))
      const entries = yield* MovementRepo.MovementRepo.use((r) => r.entriesOf(Movements.bookingSource(sweep!)))
      assert.deepStrictEqual(
        entries.map((e) => [e.account, e.currency, Money.format(e.amount)]),
        [
          ["payout_wallet", "USDC", Money.format(contract.total_amount)],
          ["funding_wallet", "USDC", `-${Money.format(contract.total_amount)}`],
          ["payout_wallet", "POL", "-0.0021"],
          ["network_fees", "POL", "0.0021"]
        ]
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("beyond the hot wallet's float, sweeps go to the treasury; below the minimum, nothing moves", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const first = yield* fundedForward(chain, "cust-1")
      const second = yield* fundedForward(chain, "cust-2")
      // the hot wallet holds 100 USDC on chain; its float is just above: the first sweep fills it,
      // the second goes cold
      chain.hotWallets.set("sandbox|polygon", {
        address: "hot",
        balances: [{ asset: "USDC", amount: Money.unsafe("100") }]
      })
      const float = Money.sum(Money.unsafe("100"), Money.unsafe("0.000001"))
      yield* Effect.gen(function* () {
        yield* round
        yield* round
      }).pipe(
        Effect.provideService(Sweeps.SweepSettings, {
          minimum: {},
          float: { polygon: { USDC: float } },
          treasury: { polygon: treasuryAddress }
        })
      )
      const sweeps = (yield* movements).filter((m) => m.kind === "sweep")
      assert.deepStrictEqual(
        sweeps.map((s) => [s.source, s.destination, s.status]).sort(),
        [
          [first.funding_wallet_address, null, "confirmed"],
          [second.funding_wallet_address, treasuryAddress, "confirmed"]
        ].sort()
      )
      // dust under the minimum stays where it is
      const dust = yield* fundedForward(chain, "cust-3")
      yield* round.pipe(
        Effect.provideService(Sweeps.SweepSettings, {
          minimum: { polygon: { USDC: Money.unsafe("1000000") } },
          float: {},
          treasury: {}
        })
      )
      assert.isFalse((yield* movements).some((m) => m.source === dust.funding_wallet_address))
    }).pipe(Effect.provide(layer))
  })

  it.effect("a forward's deposit goes back once its payout settles, waiting for a refund address", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const contract = yield* fundedForward(chain)
      yield* exercised(contract.id)
      yield* round
      yield* round
      const refund = (yield* movements).find((m) => m.kind === "refund")!
      assert.strictEqual(refund.key, Refunds.depositKey(contract.id))
      assert.strictEqual(refund.waiting, "no_refund_address")
      assert.strictEqual(Money.format(refund.amount), Money.format(contract.deposit_amount!))
      // the treasury view lists it, and why it waits
      const waiting = (yield* Treasury.view()).refunds_waiting
      assert.deepStrictEqual(
        waiting.map((r) => [r.contract_id, r.waiting]),
        [[contract.id, "no_refund_address"]]
      )
      yield* setRefundAddress
      yield* TestClock.adjust("2 minutes")
      yield* round
      yield* round
      const sent = (yield* movements).filter((m) => m.kind === "refund")
      assert.strictEqual(sent.length, 1)
      assert.strictEqual(sent[0]!.status, "confirmed")
      assert.strictEqual(sent[0]!.destination, refundAddress)
      // one transaction paid it: every broadcast of it was the same version
      assert.strictEqual(new Set(chain.broadcasts.filter((h) => h.includes(refund.id))).size, 1)
      // the deposit owed back is settled in the books: refunds_payable is zero again
      const owed = yield* MovementRepo.MovementRepo.use((r) => r.entriesOf(Movements.bookingSource(sent[0]!)))
      assert.deepStrictEqual(
        owed.map((e) => [e.account, Money.format(e.amount)]),
        [
          ["refunds_payable", Money.format(contract.deposit_amount!)],
          ["payout_wallet", `-${Money.format(contract.deposit_amount!)}`]
        ]
      )
      yield* round
      assert.strictEqual((yield* movements).filter((m) => m.kind === "refund").length, 1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("an operator refunds an unmatched transfer once, to the address given", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const contract = yield* fundedForward(chain)
      chain.fund(contract.funding_wallet_address, Money.unsafe("12.5"), at(minutes(5)))
      yield* Funding.watchLateFunds()
      const hash = chain.transfers.get(contract.funding_wallet_address)!.at(-1)!.transactionHash
      const refund = yield* Refunds.refundTransfer({ transferId: hash, to: refundAddress, requestedBy: "cli:test" })
      assert.strictEqual(refund.purpose, "unmatched")
      assert.strictEqual(Money.format(refund.amount), "12.5")
      assert.strictEqual(yield* refusal(hash), "already_refunded")
      assert.strictEqual(yield* refusal("0xnope"), "not_found")
      yield* round
      yield* round
      const done = Option.getOrThrow(yield* MovementRepo.MovementRepo.use((r) => r.findById(refund.id)))
      assert.strictEqual(done.status, "confirmed")
      for (const [, total] of yield* treasuryBalances) assert.isTrue(Money.isZero(total))
    }).pipe(Effect.provide(layer))
  })

  it.effect("a surplus is refunded by the transfer that brought it, once; funds still awaited are not", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const quote = yield* Quotes.create(alice, quoteRequest(at(0), { customer_reference_id: "cust-surplus" }))
      const contract = yield* Contracts.create(alice, { quote_id: quote.id })
      // half of what is due: the contract still awaits funds, nothing is owed back yet
      chain.fund(contract.funding_wallet_address, Money.unsafe("1"), at(minutes(1)))
      yield* Funding.confirmFunding()
      const first = chain.transfers.get(contract.funding_wallet_address)![0]!.transactionHash
      assert.strictEqual(yield* refusal(first), "not_refundable")
      // then 5 over what is due, in one transfer: active, 5 owed back
      chain.fund(contract.funding_wallet_address, Money.sum(contract.total_amount, Money.unsafe("4")), at(minutes(2)))
      yield* Funding.confirmFunding()
      const second = chain.transfers.get(contract.funding_wallet_address)![1]!.transactionHash
      const refund = yield* Refunds.refundTransfer({
        transferId: `${second}:0`,
        to: refundAddress,
        requestedBy: "cli:test"
      })
      assert.deepInclude(refund, { purpose: "surplus", key: `surplus:${contract.id}`, destination: refundAddress })
      assert.isTrue(Money.equals(refund.amount, Money.unsafe("5")))
      // named by the other transfer of the same contract: the same funds, refused
      assert.strictEqual(yield* refusal(first), "already_refunded")
      yield* round
      yield* round
      const done = Option.getOrThrow(yield* MovementRepo.MovementRepo.use((r) => r.findById(refund.id)))
      assert.strictEqual(done.status, "confirmed")
      // the partner's prepayment is settled in the books: the contract's credit, the refund's debit
      const booked = yield* MovementRepo.MovementRepo.use((r) => r.entriesOf(Movements.bookingSource(done)))
      const credit = Refunds.owedBack(yield* ContractRepo.ContractRepo.use((r) => r.ledgerEntries(contract.id)))
      const debit = booked.find((e) => e.account === "partner_prepayment")!.amount
      assert.isTrue(Money.equals(credit, debit))
    }).pipe(Effect.provide(layer))
  })

  it.effect("a payout whose transaction reverted: its fee is booked once, then the one that lands", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const contract = yield* fundedForward(chain)
      chain.nativeFee = Money.unsafe("0.003")
      chain.outcomes.push("fail")
      yield* exercised(contract.id)
      yield* Payouts.runDue() // created, signed, broadcast
      yield* Payouts.runDue() // reverted: its fee booked, retried in a minute
      yield* Payouts.runDue() // not due yet: nothing booked twice
      yield* TestClock.adjust("2 minutes")
      yield* Payouts.runDue()
      yield* Payouts.runDue()
      const fees = (yield* MovementRepo.MovementRepo.use((r) =>
        r.entriesSince({ since: DateTime.makeUnsafe(0) })
      )).filter((e) => e.kind === "network_fee" && e.account === "network_fees")
      // the reverted transaction's fee, and the landed one's
      assert.deepStrictEqual(
        fees.map((e) => Money.format(e.amount)),
        ["0.003", "0.003"]
      )
      assert.strictEqual(new Set(fees.map((e) => e.source)).size, 2)
      for (const [, total] of yield* treasuryBalances) assert.isTrue(Money.isZero(total))
    }).pipe(Effect.provide(layer))
  })

  it.effect("watch-only funding is not swept; the treasury view says what waits", () => {
    const { chain, layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const contract = yield* fundedForward(chain)
      chain.watchOnly.add("sandbox|polygon")
      yield* round
      assert.deepStrictEqual(yield* movements, [])
      const row = (yield* Treasury.view()).sweeps.find(
        (s) => s.environment === "sandbox" && s.chain === "polygon" && s.token === "USDC"
      )!
      assert.strictEqual(row.funding_keys, "watch_only")
      assert.strictEqual(row.awaiting_sweep, 1)
      assert.strictEqual(row.awaiting_sweep_amount, Money.format(contract.total_amount))
    }).pipe(Effect.provide(layer))
  })

  it.effect(
    "reconciliation: clean after a sweep, at the confirmed depth; a token sent to the hot wallet is one difference until recorded",
    () => {
      const { chain, layer } = harness()
      return Effect.gen(function* () {
        yield* TestClock.setTime(start)
        yield* fundedForward(chain)
        yield* round
        yield* round
        chain.hotWallets.set("sandbox|polygon", {
          address: "hot",
          balances: [{ asset: "USDC", amount: chain.addressBalances.get(FakeChain.hotWalletAddress)! }]
        })
        const clean = yield* Reconciliation.reconcileRail("sandbox", "polygon")
        assert.strictEqual(clean.error, null)
        assert.deepStrictEqual(clean.differences, [])
        // one `balances` call per token polygon serves (USDC, USDT, BRLA), the hot wallet's address
        // among the funding addresses', `hotWallet` for where it is, `nativeBalances` for its POL
        assert.strictEqual(clean.chainCalls, 5)
        // the hot wallet's three tokens and POL (the funding address is swept: zero by the books)
        assert.strictEqual(clean.checked, 4)
        // a payout of 40 USDC and its fee mined in the latest block, not yet at the confirmation
        // depth, so not yet in the books: the hot wallet read at that depth agrees with them
        chain.latestHotWallets.set("sandbox|polygon", {
          address: "hot",
          balances: [
            {
              asset: "USDC",
              amount: Money.subtract(chain.addressBalances.get(FakeChain.hotWalletAddress)!, Money.unsafe("40"))
            },
            { asset: "NATIVE", amount: Money.unsafe("-0.0021") }
          ]
        })
        assert.deepStrictEqual((yield* Reconciliation.reconcileRail("sandbox", "polygon")).differences, [])
        chain.latestHotWallets.clear()
        // 7.25 USDC straight into the hot wallet, unrecorded
        chain.hotWallets.set("sandbox|polygon", {
          address: "hot",
          balances: [
            {
              asset: "USDC",
              amount: Money.sum(chain.addressBalances.get(FakeChain.hotWalletAddress)!, Money.unsafe("7.25"))
            }
          ]
        })
        const found = yield* Reconciliation.reconcileRail("sandbox", "polygon")
        assert.deepStrictEqual(
          found.differences.map((d) => [d.wallet, d.currency, Money.format(d.difference)]),
          [["hot_wallet", "USDC", "7.250000"]]
        )
        const alerts = Treasury.alerts(yield* Treasury.view())
        assert.isTrue(alerts.some((a) => a.kind === "reconciliation_differences"))
        yield* TestClock.adjust("1 minute")
        const still = yield* Reconciliation.reconcileRail("sandbox", "polygon")
        // first seen at the earlier run
        assert.strictEqual(still.differences[0]!.since.epochMilliseconds, found.at.epochMilliseconds)
        yield* Reconciliation.recordInflow({
          environment: "sandbox",
          chain: "polygon",
          wallet: "hot_wallet",
          currency: "USDC",
          amount: Money.unsafe("7.25"),
          as: "topup"
        })
        assert.deepStrictEqual((yield* Reconciliation.reconcileRail("sandbox", "polygon")).differences, [])
      }).pipe(Effect.provide(layer))
    }
  )
})
