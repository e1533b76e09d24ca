/**
 * Discount curves from snapshot pillars (market-data.md, Conventions): pillar discount factors in each
 * currency's convention, log-linear between pillars, the nearest rate held flat outside, BUS/252 on the
 * snapshot's holidays; and a one-pillar curve discounts exactly as `RateCurve` does today.
 */
import { assert, describe, it } from "@effect/vitest"
import { DiscountCurve, MarketSnapshot, RateCurve } from "@ratelock/core"
import { Option, Result } from "effect"
import fc from "fast-check"
import { exampleDocument, exampleNow } from "./fixtures/marketSnapshot.ts"

const day = 86_400_000
const monday = Date.UTC(2026, 2, 2) // Monday 2026-03-02 00:00 UTC

const flat = (currency: "USD" | "EUR" | "MXN" | "NGN" | "BRL", rate: number, asOf: number, holidays?: Array<string>) =>
  DiscountCurve.make({
    currency,
    convention: RateCurve.conventions[currency],
    asOf,
    points: [{ tenorDays: 365, rate }],
    ...(holidays ? { holidays } : {})
  })

const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2040, 0, 1) })
const span = fc.integer({ min: 1, max: 5 * 365 * day })
const rate = fc.double({ min: -0.05, max: 1, noNaN: true })

const exampleSnapshot = () => {
  const result = MarketSnapshot.validate(exampleDocument(), { now: exampleNow })
  if (Result.isFailure(result)) throw new Error("example refused")
  return result.success
}

describe("DiscountCurve", () => {
  describe("a one-pillar curve is today's RateCurve", () => {
    it("simple ACT/360 and ACT/365: the same discount factor, rate and forward, to the last bit", () => {
      fc.assert(
        fc.property(
          fc.constantFrom("USD", "EUR", "MXN", "NGN" as const),
          rate,
          instant,
          span,
          (currency, r, from, length) => {
            const curve = flat(currency, r, from)
            const to = from + length
            assert.strictEqual(
              DiscountCurve.discountFactorBetween(curve, from, to),
              RateCurve.discountFactor({ currency, rate: r, from, to })
            )
            assert.strictEqual(
              DiscountCurve.continuousRate(curve, from, to),
              RateCurve.continuousRate(
                RateCurve.discountFactor({ currency, rate: r, from, to }),
                RateCurve.yearFraction365(from, to)
              )
            )
          }
        )
      )
    })

    it("CIP forwards: the same as RateCurve.forward", () => {
      fc.assert(
        fc.property(
          rate,
          rate,
          instant,
          span,
          fc.double({ min: 0.001, max: 5000, noNaN: true }),
          (rd, rf, from, length, spot) => {
            const to = from + length
            assert.strictEqual(
              DiscountCurve.forward({
                spot,
                domestic: flat("MXN", rd, from),
                foreign: flat("USD", rf, from),
                from,
                to
              }),
              RateCurve.forward({
                spot,
                domestic: { currency: "MXN", rate: rd },
                foreign: { currency: "USD", rate: rf },
                from,
                to
              })
            )
          }
        )
      )
    })

    it("BUS/252: the same as RateCurve between weekday midnights (whole business days)", () => {
      const weekdayMidnight = fc
        .integer({ min: 0, max: 3000 })
        .map((n) => monday + (7 * Math.floor(n / 5) + (n % 5)) * day)
      fc.assert(
        fc.property(rate, weekdayMidnight, weekdayMidnight, (r, a, b) => {
          const [from, to] = a < b ? [a, b] : [b, a]
          if (from === to) return
          assert.strictEqual(
            DiscountCurve.discountFactorBetween(flat("BRL", r, from), from, to),
            RateCurve.discountFactor({ currency: "BRL", rate: r, from, to })
          )
        })
      )
    })
  })

  describe("BUS/252 business days", () => {
    const brl = (asOf: number, holidays?: Array<string>) => flat("BRL", 0.1425, asOf, holidays)

    it("count weekdays from the day after as_of's date through the instant's date", () => {
      const friday = Date.UTC(2026, 2, 6, 15) // Friday 15:00
      const curve = brl(friday)
      assert.strictEqual(DiscountCurve.businessDays(curve, Date.UTC(2026, 2, 6, 23)), 0) // same day
      assert.strictEqual(DiscountCurve.businessDays(curve, Date.UTC(2026, 2, 7, 12)), 0) // Saturday
      assert.strictEqual(DiscountCurve.businessDays(curve, Date.UTC(2026, 2, 9, 0)), 1) // Monday 00:00
      assert.strictEqual(DiscountCurve.businessDays(curve, Date.UTC(2026, 2, 9, 18)), 1) // Monday 18:00
      assert.strictEqual(DiscountCurve.businessDays(curve, Date.UTC(2026, 2, 13, 9)), 5) // next Friday
      assert.strictEqual(DiscountCurve.businessDays(curve, Date.UTC(2026, 2, 5, 9)), -1) // Thursday before
      assert.strictEqual(DiscountCurve.discountFactor(curve, Date.UTC(2026, 2, 8, 9)), 1) // Sunday: nothing yet
      assert.closeTo(DiscountCurve.discountFactor(curve, Date.UTC(2026, 2, 13, 9)), 1.1425 ** (-5 / 252), 1e-15)
    })

    it("leave out the snapshot's holidays that fall on weekdays, each once", () => {
      const friday = Date.UTC(2026, 1, 13, 20) // Friday before Carnival
      const nextFriday = Date.UTC(2026, 1, 20, 12)
      assert.strictEqual(DiscountCurve.businessDays(brl(friday), nextFriday), 5)
      // Carnival Monday and Tuesday, repeated, and a Sunday (2026-11-15) that was never a business day
      const carnival = brl(friday, ["2026-02-17", "2026-02-16", "2026-02-16", "2026-11-15"])
      assert.strictEqual(DiscountCurve.businessDays(carnival, nextFriday), 3)
      assert.strictEqual(
        DiscountCurve.businessDays(carnival, Date.UTC(2026, 10, 16)),
        DiscountCurve.businessDays(brl(friday), Date.UTC(2026, 10, 16)) - 2
      )
      assert.closeTo(DiscountCurve.discountFactor(carnival, nextFriday), 1.1425 ** (-3 / 252), 1e-15)
    })

    it("price a pillar on its business days: the example's BRL holidays lengthen nothing but BUS/252", () => {
      const snapshot = exampleSnapshot()
      const brlCurve = Option.getOrThrow(DiscountCurve.fromSnapshot(snapshot, "BRL"))
      const asOf = snapshot.as_of.epochMilliseconds
      // 30 days from Monday 2026-03-02: 22 weekdays (Mar 3 - Apr 1), no holiday among them
      assert.strictEqual(DiscountCurve.businessDays(brlCurve, asOf + 30 * day), 22)
      // 61 days (to May 2): 44 weekdays, less Good Friday (Apr 3), Tiradentes (Apr 21) and May 1
      assert.strictEqual(DiscountCurve.businessDays(brlCurve, asOf + 61 * day), 41)
      assert.closeTo(DiscountCurve.discountFactor(brlCurve, asOf + 61 * day), 1.1478 ** (-41 / 252), 1e-15)
    })
  })

  describe("interpolation", () => {
    const asOf = Date.UTC(2026, 2, 2, 20)
    const usd = DiscountCurve.make({
      currency: "USD",
      convention: RateCurve.conventions.USD,
      asOf,
      points: [
        { tenorDays: 7, rate: 0.0364 },
        { tenorDays: 30, rate: 0.036 },
        { tenorDays: 91, rate: 0.0352 },
        { tenorDays: 365, rate: 0.0332 }
      ]
    })
    const at = (days: number) => asOf + days * day

    it("discounts each pillar by its own rate in its convention", () => {
      for (const [days, r] of [
        [7, 0.0364],
        [30, 0.036],
        [91, 0.0352],
        [365, 0.0332]
      ] as const) {
        assert.closeTo(DiscountCurve.discountFactor(usd, at(days)), 1 / (1 + (r * days) / 360), 1e-16)
      }
    })

    it("is log-linear in the discount factor between pillars (flat forward rates)", () => {
      fc.assert(
        fc.property(
          fc.double({ min: 30, max: 91, noNaN: true }),
          fc.double({ min: 30, max: 91, noNaN: true }),
          (a, b) => {
            const w = (a - 30) / 61
            const lnDf = (d: number) => Math.log(DiscountCurve.discountFactor(usd, at(d)))
            assert.closeTo(lnDf(a), (1 - w) * lnDf(30) + w * lnDf(91), 1e-14)
            // the instantaneous forward rate is the same over any part of the interval
            if (Math.abs(a - b) > 1e-3) {
              const forward = (lnDf(a) - lnDf(b)) / (b - a)
              assert.closeTo(forward, (lnDf(30) - lnDf(91)) / 61, 1e-10)
            }
          }
        )
      )
    })

    it("holds the nearest pillar's rate flat, in its convention, before the first and after the last", () => {
      for (const days of [0.5, 1, 3, 6.99]) {
        assert.closeTo(DiscountCurve.discountFactor(usd, at(days)), 1 / (1 + (0.0364 * days) / 360), 1e-16)
      }
      for (const days of [365.01, 400, 3650]) {
        assert.closeTo(DiscountCurve.discountFactor(usd, at(days)), 1 / (1 + (0.0332 * days) / 360), 1e-16)
      }
      assert.strictEqual(DiscountCurve.discountFactor(usd, asOf), 1)
    })

    it("is continuous at the pillars, and discounts a span as DF(to) / DF(from)", () => {
      for (const days of [7, 30, 91, 365]) {
        // a millisecond either side moves a discount factor by about 1e-12
        const pillar = DiscountCurve.discountFactor(usd, at(days))
        assert.closeTo(DiscountCurve.discountFactor(usd, at(days) - 1), pillar, 1e-11)
        assert.closeTo(DiscountCurve.discountFactor(usd, at(days) + 1), pillar, 1e-11)
      }
      assert.closeTo(
        DiscountCurve.discountFactorBetween(usd, at(10), at(200)),
        DiscountCurve.discountFactor(usd, at(200)) / DiscountCurve.discountFactor(usd, at(10)),
        1e-16
      )
      // the continuous ACT/365F rate the engine takes: −ln DF / τ
      assert.closeTo(
        DiscountCurve.continuousRate(usd, at(10), at(200)),
        -Math.log(DiscountCurve.discountFactorBetween(usd, at(10), at(200))) / (190 / 365),
        1e-15
      )
    })

    it("keeps a positive discount factor where a negative simple rate runs out decades past the last pillar", () => {
      const eur = DiscountCurve.make({
        currency: "EUR",
        convention: RateCurve.conventions.EUR,
        asOf,
        points: [{ tenorDays: 3650, rate: -0.05 }]
      })
      const df = DiscountCurve.discountFactor(eur, at(36_500))
      assert.isTrue(df > 0 && Number.isFinite(df))
      assert.closeTo(Math.log(df) / 36_500, Math.log(DiscountCurve.discountFactor(eur, at(3650))) / 3650, 1e-15)
    })

    it("refuses pillars out of order or none at all (a validated snapshot has neither)", () => {
      const make = (points: Array<{ tenorDays: number; rate: number }>) => () =>
        DiscountCurve.make({ currency: "USD", convention: RateCurve.conventions.USD, asOf, points })
      assert.throws(make([]))
      assert.throws(
        make([
          { tenorDays: 30, rate: 0.03 },
          { tenorDays: 30, rate: 0.03 }
        ])
      )
    })
  })

  describe("from a snapshot", () => {
    it("reads each currency's curve in the snapshot's convention", () => {
      const snapshot = exampleSnapshot()
      for (const currency of MarketSnapshot.servedCurrencies) {
        const curve = Option.getOrThrow(DiscountCurve.fromSnapshot(snapshot, currency))
        assert.strictEqual(curve.pillarDays.length, 15)
        assert.deepStrictEqual(curve.convention, DiscountCurve.convention(snapshot.rates[currency]!.convention))
      }
      assert.isTrue(Option.isNone(DiscountCurve.fromSnapshot(snapshot, "GBP")))
      const { domestic, foreign } = Option.getOrThrow(DiscountCurve.forDirection(snapshot, "USD_TO_BRL"))
      assert.strictEqual(domestic.currency, "BRL")
      assert.strictEqual(foreign.currency, "USD")
    })
  })
})
