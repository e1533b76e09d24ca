/**
 * The daily closes as the service takes them, on adapters-store's memory store and the in-test fake chain: the
 * workers' pass once per cut, an operator's close chained to the one before, a close refused without market data
 * (and nothing written), the realised premium equal to the contracts' ledger to the unit, and the report of a span
 * of days.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { MemoryStore } from "@ratelock/adapters-store"
import {
  ChainGateway,
  ContractRepo,
  Contracts,
  DailyCloseRepo,
  DailyCloses,
  Funding,
  IdGenerator,
  MarketData,
  Money,
  type Partner,
  PeriodPnl,
  Quotes
} from "@ratelock/core"
import { FakeChain } from "./fakes/FakeChain.ts"
import { quoteRequest } from "./fixtures/quoteRequest.ts"

const start = Date.parse("2026-11-23T12:00:00Z")
const at = (offsetMs: number) => DateTime.makeUnsafe(start + offsetMs)
const hours = (n: number) => n * 3_600_000
const alice: Partner.PartnerScope = { partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0001", environment: "sandbox" }

/** The sandbox on the illustrative snapshot; production, with no snapshot imported, has no market data in force. */
const harness = () => {
  const chain = new FakeChain()
  const layer = Layer.mergeAll(
    MemoryStore.layerMemory,
    Layer.succeed(ChainGateway.ChainGateway, chain.gateway),
    Layer.succeed(MarketData.MarketData, MarketData.fromLatest({ latest: Effect.succeed(Option.none()) })),
    IdGenerator.IdGenerator.layerTest,
    // nothing commits concurrently here, and the test clock moves only when told
    Layer.succeed(DailyCloses.Settle, Duration.zero)
  )
  return { chain, layer }
}

const closes = (environment: Partner.Environment) =>
  DailyCloseRepo.DailyCloseRepo.use((repo) => repo.list({ environment })).pipe(Effect.orDie)

/** A funded option (active): its premium is booked when its funds arrive. */
const fundedOption = (chain: FakeChain, customer: string) =>
  Effect.gen(function* () {
    const quote = yield* Quotes.create(alice, quoteRequest(yield* DateTime.now, { customer_reference_id: customer }))
    const contract = yield* Contracts.create(alice, { quote_id: quote.id })
    chain.fund(contract.funding_wallet_address, contract.total_amount, yield* DateTime.now)
    yield* Funding.confirmFunding()
    return contract
  })

describe("DailyCloses", () => {
  it.effect("the pass closes each environment with market data once per cut; production without it is skipped", () => {
    const { layer } = harness()
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      // 12:00 is after today's 09:00 cut: the pass closes for it at once, and once only
      const cut = DailyCloses.Settings
      assert.strictEqual(yield* Effect.provideService(DailyCloses.pass(), cut, { cut: "09:00" }), 1)
      assert.strictEqual(yield* Effect.provideService(DailyCloses.pass(), cut, { cut: "09:00" }), 0)
      const [first] = yield* closes("sandbox")
      assert.strictEqual(DateTime.formatIso(first!.scheduled_for!), "2026-11-23T09:00:00.000Z")
      assert.isNull(first!.pnl)
      assert.deepStrictEqual(yield* closes("production"), [])
      // the next day's cut: a second close, its P&L from the first
      yield* TestClock.adjust(Duration.hours(24))
      assert.strictEqual(yield* Effect.provideService(DailyCloses.pass(), cut, { cut: "09:00" }), 1)
      const [, second] = yield* closes("sandbox")
      assert.strictEqual(second!.previous_close_id, first!.id)
      assert.strictEqual(second!.pnl!.from_close_id, first!.id)
    }).pipe(Effect.provide(layer))
  })

  it.effect(
    "an operator's close: refused without market data, nothing written; chained, its premium the ledger's",
    () => {
      const { chain, layer } = harness()
      return Effect.gen(function* () {
        yield* TestClock.setTime(start)
        const refused = yield* Effect.flip(DailyCloses.closeNow("production"))
        if (refused._tag !== "CloseRefused") return assert.fail(refused.message)
        assert.strictEqual(refused.reason, "no_market_data")
        assert.match(refused.message, /no market data snapshot has been imported/)
        assert.deepStrictEqual(yield* closes("production"), [])

        const first = yield* DailyCloses.closeNow("sandbox")
        yield* TestClock.adjust(Duration.hours(1))
        const sold = yield* Effect.all([fundedOption(chain, "c-1"), fundedOption(chain, "c-2")])
        yield* TestClock.adjust(Duration.hours(1))
        const second = yield* DailyCloses.closeNow("sandbox")
        assert.strictEqual(second.previous_close_id, first.id)
        const pnl = second.pnl!
        // the premiums are the contracts' ledger's premium_income, to the unit
        const ledger = yield* Effect.forEach(sold, (c) =>
          ContractRepo.ContractRepo.use((repo) => repo.ledgerEntries(c.id))
        )
        const premiums = ledger
          .flat()
          .filter((e) => e.account === "premium_income")
          .reduce((sum, e) => Money.subtract(sum, e.amount), Money.zero)
        assert.isTrue(Money.isPositive(premiums))
        assert.isTrue(Money.equals(pnl.usd.premiums, premiums), Money.format(pnl.usd.premiums))
        assert.strictEqual(
          pnl.pairs.reduce((n, p) => n + p.locks_sold, 0),
          2
        )
        const explained = PeriodPnl.explainedLines.reduce(
          (sum, line) => Money.sum(sum, pnl.usd[line]),
          pnl.usd.unexplained
        )
        assert.isTrue(Money.equals(explained, pnl.usd.total))
        // new business: the premiums, less what the locks are worth against the service at the close
        assert.isTrue(Money.lessThan(pnl.usd.new_business, premiums))
        assert.strictEqual(
          second.pairs.reduce((n, p) => n + p.open_locks, 0),
          2
        )

        // the report of the day: this period, its figures the close's
        const report = yield* DailyCloses.pnl({ environment: "sandbox", from: "2026-11-23", to: "2026-11-23" })
        assert.strictEqual(report.periods, 1)
        assert.isTrue(Money.equals(report.totals.total, pnl.usd.total))
        assert.strictEqual(report.days.length, 1)
        assert.strictEqual(report.partners[0]!.partner_id, alice.partnerId)
        assert.isTrue(Money.equals(report.partners[0]!.premiums, premiums))
        assert.strictEqual(at(hours(2)).epochMilliseconds, second.closed_at.epochMilliseconds)
      }).pipe(Effect.provide(layer))
    }
  )
})
