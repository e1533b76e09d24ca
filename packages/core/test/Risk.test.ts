/**
 * The book's revaluation against risk.md: single locks' greeks against the engine's own finite differences, a
 * book's figures as the sums of its locks', the signs risk.md states (greeks and stress), environments kept
 * apart, committed locks and payouts due reported beside the open book, and determinism.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Fiber, Option, Result, Schema } from "effect"
import {
  type Contract,
  Corridor,
  CorridorMarket,
  Environment,
  MarketSnapshot,
  Money,
  Pricing,
  RateCurve,
  Risk,
  RiskReport,
  RiskScenario
} from "@ratelock/core"
// the engine's stages are not in the barrel: they are reached by path
import * as LockRisk from "../src/risk/internal/LockRisk.ts"
import * as RiskBook from "../src/risk/internal/RiskBook.ts"
import type * as RiskPlan from "../src/risk/internal/RiskPlan.ts"
import { dayMs, type LockSpec, lockAt } from "./fixtures/book.ts"
import { quoteOf } from "./fixtures/contract.ts"
import { exampleDocument, exampleNow } from "./fixtures/marketSnapshot.ts"

const now = DateTime.makeUnsafe("2026-11-23T12:00:00Z")
/** pricing.md's table as a snapshot observed now: flat curves and flat smiles, USD/BRL at 5.4. */
const flat = MarketSnapshot.illustrativeAt(now)
/** The repository's example: 15-pillar curves, 12-pillar smiles with risk reversals and butterflies. */
const example = Result.getOrThrow(MarketSnapshot.validate(exampleDocument(), { now: exampleNow }))
const exampleAt = DateTime.makeUnsafe(exampleNow)

const book = (at: DateTime.Utc, specs: ReadonlyArray<LockSpec>): RiskBook.Book => ({
  contracts: specs.map((spec) => lockAt(at, spec))
})

const relativeClose = (actual: number, expected: number, tolerance = 1e-9) =>
  assert.isTrue(
    Math.abs(actual - expected) <= tolerance * Math.abs(expected),
    `${actual} is not within ${tolerance} (relative) of ${expected}`
  )

const onlyLock = (b: RiskBook.Book, snapshot = flat, at = now): LockRisk.LockRisk => {
  const { locks } = Risk.revalue(b, snapshot, at)
  assert.strictEqual(locks.length, 1)
  return locks[0]!
}

const production = <A extends { readonly environment: string }>(reports: ReadonlyArray<A>): A =>
  reports.find((r) => r.environment === "production")!

const pairOf = (report: RiskReport.BookRisk, pair: string) => report.pairs.find((p) => p.pair === pair)!
const num = (d: Money.Decimal) => Money.toModel(d)

// ---------------------------------------------------------------------------------------------------------------
// The engine called directly: pricing.md's flat USD and BRL legs discounted from the snapshot's as_of (= now)

const legs = { USD: { currency: "USD", rate: 0.0375 }, BRL: { currency: "BRL", rate: 0.1425 } } as const
type LegName = keyof typeof legs
const years = (from: DateTime.Utc, to: DateTime.Utc) => RateCurve.yearFraction365(from, to)
/** The continuous rate over [from, to] of a leg whose curve is anchored at `now`: `−ln(DF(to)/DF(from)) / τ`. */
const rate = (leg: LegName, from: DateTime.Utc, to: DateTime.Utc) => {
  const df = (at: DateTime.Utc) => RateCurve.discountFactor({ ...legs[leg], from: now, to: at })
  return RateCurve.continuousRate(df(to) / df(from), years(from, to))
}
const later = (at: DateTime.Utc, days: number) => DateTime.makeUnsafe(at.epochMilliseconds + days * dayMs)

/** The book's engine's value per 1 BASE of a put on `base` (paid in `quote`) over [max(at, t1), t2]. */
const engine = (input: {
  readonly base: LegName
  readonly quote: LegName
  readonly spot: number
  readonly strike: number
  readonly sigma: number
  readonly t1: DateTime.Utc
  readonly t2: DateTime.Utc
  readonly at?: DateTime.Utc
}) => {
  const at = input.at ?? now
  const start = input.t1.epochMilliseconds > at.epochMilliseconds ? input.t1 : at
  return Pricing.bookWindowOption({
    spot: input.spot,
    strike: input.strike,
    domesticRate: rate(input.quote, at, input.t2),
    foreignRate: rate(input.base, at, input.t2),
    volatility: input.sigma,
    windowStartYears: years(at, start),
    windowEndYears: years(at, input.t2),
    kind: "put"
  })
}

describe("Risk.revalue: one lock", () => {
  it("a USD_TO_BRL lock: value, delta, gamma, vega and theta are the engine's finite differences (±1 % spot, +1 vol point, +1 day)", () => {
    const lock = onlyLock(
      book(now, [{ id: "l1", direction: "USD_TO_BRL", notional: "100000", strike: "5.45", from: 0, to: 30 }])
    )
    const terms = { base: "USD", quote: "BRL", strike: 5.45, t1: now, t2: later(now, 30) } as const
    const v = (spot: number, sigma = 0.14, at = now) => engine({ ...terms, spot, sigma, at })
    const n = 100_000
    const s = 5.4
    relativeClose(lock.value, v(s))
    relativeClose(lock.mtm, -n * v(s))
    relativeClose(lock.greeks!.delta, (-n * v(s * 1.01) + n * v(s * 0.99)) / (0.02 * s))
    relativeClose(lock.greeks!.gamma, (-n * v(s * 1.01) + 2 * n * v(s) - n * v(s * 0.99)) / (0.01 * s), 1e-7)
    relativeClose(lock.greeks!.vega, -n * v(s, 0.14 + 0.01) + n * v(s), 1e-8)
    relativeClose(lock.greeks!.theta, -n * v(s, 0.14, later(now, 1)) + n * v(s), 1e-7)
    // a pair in its usual order: the corridor's delta is the pair's
    assert.strictEqual(lock.greeks!.corridorDelta, lock.greeks!.delta)
  })

  it("a BRL_TO_USD lock (a put on BRL) is valued in BRL on USD/BRL: its delta is that value's change per unit of USD/BRL", () => {
    const k = 0.1851851851 // 1 / 5.4, as a locked rate keeps it
    const lock = onlyLock(
      book(now, [{ id: "l2", direction: "BRL_TO_USD", notional: "500000", strike: String(k), from: 5, to: 60 }])
    )
    const terms = { base: "BRL", quote: "USD", strike: k, t1: later(now, 5), t2: later(now, 60) } as const
    const v = (pairSpot: number, sigma = 0.14) => engine({ ...terms, spot: 1 / pairSpot, sigma })
    const n = 500_000
    const p = 5.4
    // value in USD per BRL, converted into BRL at the (moved) USD/BRL rate
    const mtmBrl = (pairSpot: number) => -n * v(pairSpot) * pairSpot
    relativeClose(lock.mtm, mtmBrl(p), 1e-9)
    relativeClose(lock.corridorMtm, -n * v(p), 1e-9)
    relativeClose(lock.greeks!.delta, (mtmBrl(p * 1.01) - mtmBrl(p * 0.99)) / (0.02 * p), 1e-8)
    relativeClose(lock.greeks!.vega, -n * v(p, 0.15) * p + n * v(p) * p, 1e-8)
    // in the corridor's own terms: the change of its USD value per unit of BRL's USD price
    relativeClose(
      lock.greeks!.corridorDelta,
      (-n * v(p * 0.99) + n * v(p * 1.01)) / (1 / (p * 0.99) - 1 / (p * 1.01)),
      1e-8
    )
  })

  it("on a snapshot with smiles, a bump re-reads the smile at the moved forward (the engine on CorridorMarket's inputs)", () => {
    const spec: LockSpec = { id: "l3", direction: "USD_TO_MXN", notional: "250000", strike: "18.2", from: -2, to: 90 }
    const lock = onlyLock(book(exampleAt, [spec]), example, exampleAt)
    const market = Option.getOrThrow(CorridorMarket.make(example, "USD_TO_MXN"))
    const s = Money.toModel(market.referenceRate)
    const v = (spot: number) =>
      Pricing.bookWindowOption({
        ...CorridorMarket.windowInputs(market, {
          spot,
          strike: 18.2,
          now: exampleAt,
          windowStart: later(exampleAt, -2),
          windowEnd: later(exampleAt, 90)
        }),
        kind: "put"
      })
    relativeClose(lock.greeks!.delta, (250_000 * (v(s * 0.99) - v(s * 1.01))) / (0.02 * s), 1e-12)
  })

  it("signs: a short put's delta is positive in its BASE for every corridor; gamma and vega negative; mtm ≤ 0", () => {
    const specs = Corridor.directions.map((direction, i): LockSpec => {
      const spot = Money.toModel(Option.getOrThrow(CorridorMarket.make(flat, direction)).referenceRate)
      return { id: `s${i}`, direction, notional: "100000", strike: spot.toPrecision(10), from: 0, to: 45 }
    })
    const { locks } = Risk.revalue(book(now, specs), flat, now)
    assert.strictEqual(locks.length, Corridor.directions.length)
    for (const lock of locks) {
      const g = lock.greeks!
      const label = lock.lock.direction
      assert.isTrue(g.corridorDelta > 0, `${label} delta ${g.corridorDelta}`)
      assert.isTrue(g.gamma < 0, `${label} gamma ${g.gamma}`)
      assert.isTrue(g.vega < 0, `${label} vega ${g.vega}`)
      assert.isTrue(lock.mtm < 0 && lock.corridorMtm < 0, label)
      // in the pair's order an inverted corridor's delta turns negative: short BRL puts are short USD/BRL rallies
      assert.strictEqual(g.delta > 0, !lock.lock.inverted, `${label} pair delta ${g.delta}`)
    }
  })
})

describe("Risk.revalue: the book", () => {
  const mixed: ReadonlyArray<LockSpec> = [
    { id: "m1", direction: "USD_TO_BRL", notional: "100000", strike: "5.45", from: 0, to: 30 },
    {
      id: "m2",
      direction: "USD_TO_BRL",
      notional: "540000",
      notionalCurrency: "BRL",
      strike: "5.3",
      from: 10,
      to: 120
    },
    { id: "m3", direction: "BRL_TO_USD", notional: "80000", notionalCurrency: "USD", strike: "0.18", from: -3, to: 15 },
    { id: "m4", direction: "EUR_TO_USD", notional: "70000", strike: "1.18", from: 0, to: 170 },
    { id: "m5", direction: "NGN_TO_USD", notional: "20000", strike: "0.00065", from: 1, to: 40 },
    { id: "m6", direction: "BRL_TO_MXN", notional: "300000", strike: "3.4", from: 0, to: 7, partnerId: "partner-b" }
  ]

  it("each figure of a pair is the sum of its locks', and each lock is valued as it would be alone", () => {
    const b = book(now, mixed)
    const { books, locks } = Risk.revalue(b, flat, now)
    const report = production(books)
    for (const lock of locks) {
      const alone = onlyLock({ contracts: b.contracts.filter((c) => c.id === lock.lock.id) })
      assert.deepStrictEqual(alone.greeks, lock.greeks)
      assert.strictEqual(alone.mtm, lock.mtm)
    }
    for (const pair of MarketSnapshot.servedPairs) {
      const mine = locks.filter((l) => l.lock.pair === pair)
      const figures = pairOf(report, pair)
      const sum = (f: (l: LockRisk.LockRisk) => number) => mine.reduce((s, l) => s + f(l), 0)
      assert.strictEqual(figures.open_locks, mine.length)
      assert.strictEqual(Money.format(figures.delta), Money.format(RiskReport.figure(sum((l) => l.greeks!.delta))))
      assert.strictEqual(Money.format(figures.gamma), Money.format(RiskReport.figure(sum((l) => l.greeks!.gamma))))
      assert.strictEqual(Money.format(figures.vega), Money.format(RiskReport.figure(sum((l) => l.greeks!.vega))))
      assert.strictEqual(Money.format(figures.mtm), Money.format(RiskReport.figure(sum((l) => l.mtm))))
    }
    const usdBrl = pairOf(report, "USD/BRL")
    assert.strictEqual(usdBrl.open_locks, 3)
    // 100,000 USD + 540,000 BRL at 5.3 + 80,000 USD (a BRL_TO_USD notional in USD is USD at any rate)
    assert.closeTo(num(usdBrl.open_notional), 100_000 + 540_000 / 5.3 + 80_000, 0.01)
    assert.closeTo(num(usdBrl.mtm_usd), num(usdBrl.mtm) / 5.4, 0.011)
  })

  it("currency exposure: each pair's delta in its BASE and −delta × spot in its QUOTE, in units and USD", () => {
    const report = production(Risk.revalue(book(now, mixed), flat, now).books)
    const exposure = (c: string) => report.currencies.find((e) => e.currency === c)!
    const delta = (pair: string) => num(pairOf(report, pair).delta)
    assert.closeTo(
      num(exposure("USD").net_exposure),
      delta("USD/BRL") - delta("EUR/USD") * 1.17 + delta("USD/NGN"),
      0.03
    )
    assert.closeTo(num(exposure("EUR").net_exposure), delta("EUR/USD"), 0.011)
    assert.closeTo(num(exposure("BRL").net_exposure), -delta("USD/BRL") * 5.4 + delta("BRL/MXN"), 0.06)
    assert.closeTo(num(exposure("BRL").net_exposure_usd), num(exposure("BRL").net_exposure) / 5.4, 0.011)
    // the USD_TO_BRL locks dominate USD/BRL: the service is long USD against BRL (it loses if USD falls)
    assert.isTrue(delta("USD/BRL") > 0)
    assert.isTrue(num(exposure("BRL").net_exposure) < 0)
  })

  it("per partner: each partner's own locks only; the totals are the pairs'", () => {
    const report = production(Risk.revalue(book(now, mixed), flat, now).books)
    assert.deepStrictEqual(
      report.partners.map((p) => [p.partner_id, p.open_locks, p.pairs.map((x) => x.pair)]),
      [
        ["partner-a", 5, ["USD/BRL", "EUR/USD", "USD/NGN"]],
        ["partner-b", 1, ["BRL/MXN"]]
      ]
    )
    const b = report.partners[1]!
    assert.strictEqual(Money.format(b.pairs[0]!.delta), Money.format(pairOf(report, "BRL/MXN").delta))
    const total = report.partners.reduce((s, p) => s + num(p.mtm_usd), 0)
    assert.closeTo(total, num(report.mtm_usd), 0.02)
  })

  it("committed locks and payouts due are reported apart from the open book", () => {
    const b: RiskBook.Book = {
      contracts: [
        lockAt(now, { id: "o1", direction: "USD_TO_BRL", notional: "10000", strike: "5.4", from: 0, to: 30 }),
        lockAt(now, {
          id: "c1",
          direction: "USD_TO_BRL",
          notional: "20000",
          strike: "5.4",
          from: 0,
          to: 30,
          status: "quote_created"
        }),
        lockAt(now, {
          id: "c2",
          direction: "BRL_TO_USD",
          notional: "5000",
          notionalCurrency: "USD",
          strike: "0.185",
          from: 0,
          to: 30,
          status: "funds_in_route"
        }),
        // contract.ts's exercise: 10,000 USD locked at 5.4424, live 5.1234, paid in USDC (pricing.md: 622.633407)
        lockAt(now, {
          id: "x1",
          direction: "USD_TO_BRL",
          notional: "10000",
          strike: "5.4424",
          from: -5,
          to: 5,
          status: "exercised"
        }),
        lockAt(now, {
          id: "x2",
          direction: "USD_TO_BRL",
          notional: "10000",
          strike: "5.4424",
          from: -5,
          to: 5,
          status: "exercised"
        }),
        ...(["settled", "expired", "failed", "defaulted", "deposit_forfeited"] as const).map((status, i) =>
          lockAt(now, {
            id: `z${i}`,
            direction: "USD_TO_BRL",
            notional: "99999",
            strike: "5.4",
            from: 0,
            to: 30,
            status
          })
        )
      ],
      payouts: [
        { contractId: "x2", chain: "solana", currency: "USDC", amount: Money.unsafe("10.500000"), status: "pending" }
      ]
    }
    const report = production(Risk.revalue(b, flat, now).books)
    assert.strictEqual(report.open_locks, 1)
    assert.strictEqual(Money.format(pairOf(report, "USD/BRL").open_notional), "10000.00")
    assert.strictEqual(report.committed.locks, 2)
    const committed = report.committed.pairs.find((p) => p.pair === "USD/BRL")!
    assert.strictEqual(committed.locks, 2)
    assert.strictEqual(Money.format(committed.notional), "25000.00") // 5,000 USD of the BRL_TO_USD lock
    const corridor = (d: Corridor.Direction) => report.corridors.find((c) => c.corridor === d)!
    assert.strictEqual(corridor("USD_TO_BRL").committed_locks, 1)
    assert.strictEqual(Money.format(corridor("BRL_TO_USD").committed_notional), "27027.03") // 5,000 / 0.185 BRL
    assert.deepStrictEqual(Schema.encodeSync(Schema.Array(RiskReport.PayoutDue))(report.payouts_due), [
      { token: "USDC", chain: "solana", payouts: 2, amount: "633.133407", amount_usd: "633.13" }
    ])
  })
})

describe("Risk.stress", () => {
  const atm = (direction: Corridor.Direction, id: string, notional = "1000000"): LockSpec => {
    const spot = Money.toModel(Option.getOrThrow(CorridorMarket.make(example, direction)).referenceRate)
    return { id, direction, notional, notionalCurrency: "USD", strike: spot.toPrecision(10), from: 0, to: 60 }
  }
  const changes = (specs: ReadonlyArray<LockSpec>) => {
    const [report] = Risk.stress(book(exampleAt, specs), example, exampleAt, RiskScenario.defaults, {
      environments: ["production"]
    })
    return new Map(report!.stress.map((s) => [s.name, num(s.mtm_change_usd)]))
  }

  it("a USD_TO_BRL book (puts on USD) loses in a BRL rally and gains when BRL sells off", () => {
    const c = changes([atm("USD_TO_BRL", "a"), atm("USD_TO_BRL", "b", "250000")])
    assert.isBelow(c.get("brl_plus_15")!, 0)
    assert.isBelow(c.get("usd_minus_10")!, 0)
    assert.isAbove(c.get("brl_minus_15")!, 0)
    assert.isBelow(c.get("vol_plus_5")!, 0)
    assert.strictEqual(c.get("ngn_devaluation_30"), 0)
    assert.strictEqual(c.get("eur_minus_10"), 0) // USD/BRL is the cross of two EUR pairs that move alike
  })

  it("a BRL_TO_USD book (puts on BRL) loses in brl_minus_15, usd_plus_10 and crash_combo", () => {
    const c = changes([atm("BRL_TO_USD", "a"), atm("BRL_TO_USD", "b", "300000")])
    assert.isBelow(c.get("brl_minus_15")!, 0)
    assert.isBelow(c.get("usd_plus_10")!, 0)
    assert.isBelow(c.get("crash_combo")!, 0)
    assert.isAbove(c.get("brl_plus_15")!, 0)
  })

  it("results come worst first; each is its pairs' changes; a scenario is a full revaluation at its shocked rates", () => {
    const specs = [atm("USD_TO_BRL", "a"), atm("NGN_TO_USD", "b"), atm("EUR_TO_USD", "c", "500000")]
    const [report] = Risk.stress(book(exampleAt, specs), example, exampleAt, RiskScenario.defaults, {
      environments: ["production"]
    })
    const totals = report!.stress.map((s) => num(s.mtm_change_usd))
    assert.deepStrictEqual(
      totals,
      [...totals].sort((x, y) => x - y)
    )
    for (const s of report!.stress) {
      assert.closeTo(
        s.pairs.reduce((sum, p) => sum + num(p.mtm_change_usd), 0),
        num(s.mtm_change_usd),
        0.03
      )
    }
    // ngn_devaluation_30 by hand: the NGN_TO_USD lock alone, valued at USD/NGN × 1.3, in USD
    const ngn = report!.stress.find((s) => s.name === "ngn_devaluation_30")!
    const market = Option.getOrThrow(CorridorMarket.make(example, "NGN_TO_USD"))
    const spot = Money.toModel(market.referenceRate)
    const lock = lockAt(exampleAt, specs[1]!)
    const n = Money.toModel(lock.notionalAmount) / Money.toModel(lock.lockedRate)
    const v = (s: number) =>
      Pricing.bookWindowOption({
        ...CorridorMarket.windowInputs(market, {
          spot: s,
          strike: Money.toModel(lock.lockedRate),
          now: exampleAt,
          windowStart: lock.windowStart,
          windowEnd: lock.windowEnd
        }),
        kind: "put"
      })
    assert.closeTo(num(ngn.mtm_change_usd), -n * (v(spot / 1.3) - v(spot)), 0.011)
  })

  it("report gives revalue's figures and stress's results in one pass", () => {
    const b = book(exampleAt, [atm("USD_TO_BRL", "a"), atm("BRL_TO_MXN", "b")])
    const [reported] = Risk.report(b, example, exampleAt, RiskScenario.defaults, { environments: ["production"] })
    const [risk] = Risk.revalue(b, example, exampleAt, { environments: ["production"] }).books
    const [stressed] = Risk.stress(b, example, exampleAt, RiskScenario.defaults, { environments: ["production"] })
    const { stress, ...figures } = reported!
    assert.deepStrictEqual(figures, risk)
    assert.deepStrictEqual(stress, stressed!.stress)
  })
})

describe("Risk: environments and determinism", () => {
  /** A lock on every corridor in each environment, each environment with its own partners and notionals. */
  const spread = (environment: Contract.ContractRecord["environment"], scale: number): ReadonlyArray<LockSpec> =>
    Corridor.directions.map((direction, i) => {
      const spot = Money.toModel(Option.getOrThrow(CorridorMarket.make(example, direction)).referenceRate)
      return {
        id: `${environment}-${i}`,
        direction,
        notional: String(scale * (i + 1)),
        notionalCurrency: "USD",
        strike: (spot * (0.97 + 0.01 * i)).toPrecision(10),
        from: i - 3,
        to: 20 * (i + 1),
        environment,
        partnerId: `${environment}-partner-${i % 3}`
      }
    })
  const encode = Schema.encodeSync(Schema.Array(RiskReport.BookReport))
  const reportOf = (specs: ReadonlyArray<LockSpec>, options?: Risk.Options) =>
    encode(Risk.report(book(exampleAt, specs), example, exampleAt, RiskScenario.defaults, options))

  it("the production report never includes a sandbox lock (and the reverse)", () => {
    const prod = spread("production", 10_000)
    const sandbox = spread("sandbox", 7_777)
    const both = reportOf([...sandbox, ...prod])
    assert.deepStrictEqual(
      both.map((r) => r.environment),
      ["production", "sandbox"]
    )
    assert.deepStrictEqual(both[0], reportOf(prod)[0])
    assert.deepStrictEqual(both[1], reportOf(sandbox)[1])
    assert.strictEqual(both[0]!.open_locks, Corridor.directions.length)
    assert.isTrue(both[0]!.partners.every((p) => p.partner_id.startsWith("production-")))
    assert.deepStrictEqual(reportOf([...sandbox, ...prod], { environments: ["production"] }), [both[0]!])
  })

  it("the same book, snapshot and instant give the same figures, whatever the book's order or slices", () => {
    const specs = [...spread("production", 10_000), ...spread("sandbox", 3_000)]
    const first = reportOf(specs)
    assert.deepStrictEqual(reportOf(specs), first)
    assert.deepStrictEqual(reportOf([...specs].reverse()), first)
    // as a host revaluing on threads does: slices, each with the same plan, added up once
    const b = book(exampleAt, [...specs].reverse())
    const plan = Risk.plan({ snapshot: example, now: exampleAt, greeks: true, scenarios: RiskScenario.defaults })
    const open = RiskBook.openLocks(b, Environment.productionFirst)
    const slices = [open.slice(0, 5), open.slice(5, 11), open.slice(11)].map((slice) => Risk.sumLocks(plan, slice))
    // sums cross threads by structured clone
    const sums = Risk.mergeSums(plan, structuredClone(slices.reverse()))
    assert.deepStrictEqual(encode(Risk.reportFrom({ book: b, snapshot: example, now: exampleAt, plan, sums })), first)
  })

  it.effect("reportInSlices: report's figures to the bit, yielding to other fibers between slices", () =>
    Effect.gen(function* () {
      const specs = [...spread("production", 10_000), ...spread("sandbox", 3_000)]
      const b = book(exampleAt, specs)
      // another fiber counts its turns while the book is revalued one lock a slice
      let turns = 0
      const counter = yield* Effect.forkChild(
        Effect.forever(Effect.sync(() => turns++).pipe(Effect.andThen(Effect.yieldNow)))
      )
      const sliced = yield* Risk.reportInSlices(b, example, exampleAt, RiskScenario.defaults, { sliceSize: 1 })
      const during = turns
      yield* Fiber.interrupt(counter)
      assert.deepStrictEqual(encode(sliced), reportOf(specs))
      // one turn a slice or so: report itself would have held the thread until the end (no turn at all)
      assert.isAtLeast(during, specs.length / 2)
    })
  )

  it("locks with the same terms are priced once and counted each", () => {
    const one = { id: "d1", direction: "USD_TO_BRL", notional: "100000", strike: "5.4", from: 0, to: 30 } as const
    const single = production(Risk.revalue(book(now, [one]), flat, now).books)
    const double = production(Risk.revalue(book(now, [one, { ...one, id: "d2" }]), flat, now).books)
    const p1 = pairOf(single, "USD/BRL")
    const p2 = pairOf(double, "USD/BRL")
    assert.strictEqual(p2.open_locks, 2)
    assert.closeTo(num(p2.delta), 2 * num(p1.delta), 0.011)
    assert.closeTo(num(p2.mtm), 2 * num(p1.mtm), 0.011)
  })

  it("a quote's terms are its lock's: a lock not yet made can be revalued (its delta, against a limit)", () => {
    const contract = lockAt(now, {
      id: "q1",
      direction: "BRL_TO_USD",
      notional: "5000",
      notionalCurrency: "USD",
      strike: "0.185",
      from: 0,
      to: 30
    })
    const quote = quoteOf(contract)
    assert.deepStrictEqual({ ...RiskBook.lockTerms(quote), id: contract.id }, RiskBook.lockTerms(contract))
    const plan = Risk.plan({ snapshot: flat, now, greeks: true, scenarios: [] })
    const [risk] = Risk.valueLocks(plan, [RiskBook.lockTerms(quote)])
    assert.isAbove(risk!.greeks!.corridorDelta, 0)
  })

  it("a lock whose window ended (not yet expired by the worker) is worth its intrinsic value", () => {
    const lock = onlyLock(
      book(now, [{ id: "e1", direction: "USD_TO_BRL", notional: "1000", strike: "5.5", from: -10, to: -1 }])
    )
    assert.closeTo(lock.value, 0.1, 1e-12)
    assert.closeTo(lock.greeks!.theta, 0, 1e-9)
  })
})

describe("Risk: the book's engine", () => {
  /** A lock on every corridor for each window (days from now) and strike (× the direction's spot). */
  const grid = (
    windows: ReadonlyArray<readonly [number, number]>,
    strikes: ReadonlyArray<number>
  ): ReadonlyArray<RiskBook.LockTerms> =>
    Corridor.directions.flatMap((direction, i) => {
      const spot = Money.toModel(Option.getOrThrow(CorridorMarket.make(example, direction)).referenceRate)
      return windows.flatMap(([from, to], w) =>
        strikes.map((factor, s) =>
          RiskBook.lockTerms(
            lockAt(exampleAt, {
              id: `g${i}-${w}-${s}`,
              direction,
              notional: "100000",
              strike: (spot * factor).toPrecision(10),
              from,
              to
            })
          )
        )
      )
    })
  const planWith = (engine?: RiskPlan.Engine) =>
    Risk.plan({ snapshot: example, now: exampleAt, greeks: true, scenarios: RiskScenario.defaults, engine })

  it("prices each move as the engine on CorridorMarket.windowInputs at the moved market: the parts a move leaves alone, read once per lock, change nothing", () => {
    // a window ending within the day: one day later its end is that instant, so the smile is read there
    const locks = grid(
      [
        [-2, 90],
        [5, 60],
        [-1, 0.5]
      ],
      [1]
    )
    for (const engine of [undefined, Pricing.windowOption]) {
      const plan = planWith(engine)
      for (const lock of locks) {
        const pair = plan.pairs.get(lock.pair)!
        const market = pair.directions.get(lock.direction)!
        const expected = pair.moves.map((move) =>
          plan.engine({
            ...CorridorMarket.windowInputs(market.curves.get(move.volShift)!, {
              spot: market.inverted ? market.spot / move.spotFactor : market.spot * move.spotFactor,
              strike: lock.strike,
              now: exampleNow + move.days * dayMs,
              windowStart: lock.windowStart,
              windowEnd: lock.windowEnd
            }),
            kind: "put"
          })
        )
        assert.deepStrictEqual([...LockRisk.unitValues(plan, lock)], expected, lock.id)
      }
    }
    assert.strictEqual(planWith().engine, Pricing.bookWindowOption)
  })

  it("moves a lock's figures from the quotes' engine's by at most: 1 bp of notional a price, 0.003 of delta and 0.01 of gamma per 1 BASE, 1 bp of vega and theta (bench:risk --accuracy: the largest over 9,000 locks)", () => {
    const locks = grid(
      [
        [0, 7],
        [-3, 60],
        [30, 180]
      ],
      [0.97, 1.02]
    )
    const book = Risk.valueLocks(planWith(), locks)
    const quotes = Risk.valueLocks(planWith(Pricing.windowOption), locks)
    locks.forEach((lock, i) => {
      const b = book[i]!
      const q = quotes[i]!
      // in the pair's units: N_b in its BASE, and that at its spot in its QUOTE
      const notional = RiskBook.pairNotional(lock)
      const quoteNotional = notional * Money.toModel(Option.getOrThrow(MarketSnapshot.spot(example, lock.pair)))
      const bp = (x: number, y: number, of: number) => (Math.abs(x - y) / of) * 1e4
      assert.isAtMost(bp(b.mtm, q.mtm, quoteNotional), 1, `${lock.id} mtm`)
      b.scenarioMtm.forEach((mtm, s) => {
        // a scenario's mtm is at its own spot: 1 bp of that notional, bounded by the spot's largest shock
        assert.isAtMost(bp(mtm, q.scenarioMtm[s]!, quoteNotional * 1.3), 1, `${lock.id} scenario ${s}`)
      })
      assert.isAtMost(Math.abs(b.greeks!.delta - q.greeks!.delta) / notional, 0.003, `${lock.id} delta`)
      assert.isAtMost(Math.abs(b.greeks!.gamma - q.greeks!.gamma) / notional, 0.01, `${lock.id} gamma`)
      assert.isAtMost(bp(b.greeks!.vega, q.greeks!.vega, quoteNotional), 1, `${lock.id} vega`)
      assert.isAtMost(bp(b.greeks!.theta, q.greeks!.theta, quoteNotional), 1, `${lock.id} theta`)
    })
  })
})
