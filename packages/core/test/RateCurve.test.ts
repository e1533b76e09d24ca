import { assert, describe, it } from "@effect/vitest"
import { RateCurve } from "@ratelock/core"
import { DateTime } from "effect"
import fc from "fast-check"

const day = 86_400_000
const monday = Date.UTC(2026, 0, 5) // Monday 2026-01-05 00:00 UTC
const at = (days: number, hours = 0) => monday + days * day + hours * 3_600_000

describe("RateCurve", () => {
  describe("discountFactor", () => {
    it("simple ACT/360 for USD, EUR and MXN", () => {
      for (const currency of ["USD", "EUR", "MXN"] as const) {
        // 1 / (1 + 0.05 · 90/360) = 1 / 1.0125
        assert.closeTo(RateCurve.discountFactor({ currency, rate: 0.05, from: monday, to: at(90) }), 1 / 1.0125, 1e-15)
      }
    })

    it("simple ACT/365 for NGN", () => {
      // 1 / (1 + 0.27 · 73/365) = 1 / 1.054
      assert.closeTo(
        RateCurve.discountFactor({ currency: "NGN", rate: 0.27, from: monday, to: at(73) }),
        1 / 1.054,
        1e-15
      )
    })

    it("BUS/252 compounded for BRL, on business days", () => {
      const brl = (from: number, to: number) => RateCurve.discountFactor({ currency: "BRL", rate: 0.1425, from, to })
      // Monday → next Monday: 5 business days, 1.1425^(−5/252)
      assert.closeTo(brl(monday, at(7)), 0.9973602592317635, 1e-15)
      // Friday 18:00 → Monday 06:00: a quarter of Friday and a quarter of Monday
      assert.closeTo(brl(at(4, 18), at(7, 6)), 0.9997357118275232, 1e-15)
      // Saturday → Monday: no business time, no discounting
      assert.strictEqual(brl(at(5), at(7)), 1)
    })

    it("discounts nothing over an empty or negative span", () => {
      assert.strictEqual(RateCurve.discountFactor({ currency: "USD", rate: 0.05, from: at(3), to: at(3) }), 1)
      assert.strictEqual(RateCurve.discountFactor({ currency: "BRL", rate: 0.1425, from: at(3), to: at(1) }), 1)
    })

    it("accepts DateTime.Utc as well as epoch milliseconds", () => {
      const from = DateTime.makeUnsafe(monday)
      const to = DateTime.makeUnsafe(at(30, 15))
      for (const currency of ["USD", "NGN", "BRL"] as const) {
        assert.strictEqual(
          RateCurve.discountFactor({ currency, rate: 0.1, from, to }),
          RateCurve.discountFactor({ currency, rate: 0.1, from: monday, to: at(30, 15) })
        )
      }
    })
  })

  describe("businessDays", () => {
    it("counts Monday → next Monday as 5 and weekends as nothing", () => {
      assert.strictEqual(RateCurve.businessDays(monday, at(7)), 5)
      assert.strictEqual(RateCurve.businessDays(at(5), at(7)), 0)
      assert.strictEqual(RateCurve.businessDays(at(5, 3), at(6, 20)), 0)
      assert.strictEqual(RateCurve.businessDays(at(4), at(7)), 1)
    })

    it("counts the elapsed fraction of a weekday", () => {
      assert.closeTo(RateCurve.businessDays(at(0, 12), at(1, 6)), 0.75, 1e-12)
      assert.closeTo(RateCurve.businessDays(at(4, 18), at(7, 6)), 0.5, 1e-12)
    })

    it("adds 5 per whole week from any instant, and is additive", () => {
      const instant = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) })
      fc.assert(
        fc.property(instant, fc.integer({ min: 0, max: 520 }), instant, (from, weeks, other) => {
          const total = RateCurve.businessDays(from, other)
          assert.closeTo(RateCurve.businessDays(from, from + weeks * 7 * day), 5 * weeks, 1e-9)
          const middle = Math.floor((from + other) / 2)
          assert.closeTo(RateCurve.businessDays(from, middle) + RateCurve.businessDays(middle, other), total, 1e-9)
          // Never more than the calendar time.
          assert.isAtMost(Math.abs(total), Math.abs(other - from) / day + 1e-9)
        })
      )
    })
  })

  it("yearFraction365 is ACT/365F", () => {
    assert.strictEqual(RateCurve.yearFraction365(monday, at(365)), 1)
    assert.closeTo(RateCurve.yearFraction365(monday, at(0, 12)), 0.5 / 365, 1e-18)
  })

  describe("forward", () => {
    it("is covered interest parity on each leg's convention", () => {
      // USD/BRL 5.40 over 28 days Monday → Monday (20 business days):
      // DF_BRL = 1.1425^(−20/252) = 0.989482772786254, DF_USD = 1/(1 + 0.0375·28/360) = 0.9970918155380141
      // F = 5.40 · 0.9970918155380141 / 0.989482772786254
      const f = RateCurve.forward({
        spot: 5.4,
        domestic: { currency: "BRL", rate: 0.1425 },
        foreign: { currency: "USD", rate: 0.0375 },
        from: monday,
        to: at(28)
      })
      assert.closeTo(f, 5.441525564658194, 1e-12)
    })
  })

  describe("continuousRate", () => {
    it("inverts the discount factor", () => {
      assert.closeTo(RateCurve.continuousRate(Math.exp(-0.05 * 0.5), 0.5), 0.05, 1e-15)
      const df = RateCurve.discountFactor({ currency: "USD", rate: 0.0375, from: monday, to: at(90) })
      const years = RateCurve.yearFraction365(monday, at(90))
      assert.closeTo(Math.exp(-RateCurve.continuousRate(df, years) * years), df, 1e-15)
    })

    it("is 0 at a zero horizon", () => {
      assert.strictEqual(RateCurve.continuousRate(1, 0), 0)
      assert.strictEqual(RateCurve.continuousRate(1, -1), 0)
    })
  })

  describe("cipFairStrike", () => {
    const legs = {
      brl: { currency: "BRL", rate: 0.1425 },
      usd: { currency: "USD", rate: 0.0375 }
    } as const

    it("takes the forward at the start when it rises (high-rate QUOTE)", () => {
      const strike = RateCurve.cipFairStrike({
        spot: 5.4,
        domestic: legs.brl,
        foreign: legs.usd,
        now: monday,
        windowStart: monday,
        windowEnd: at(28)
      })
      assert.strictEqual(strike, 5.4)
    })

    it("takes the forward at the end when it falls (low-rate QUOTE)", () => {
      const input = { spot: 1 / 5.4, domestic: legs.usd, foreign: legs.brl, now: monday }
      const strike = RateCurve.cipFairStrike({ ...input, windowStart: at(7), windowEnd: at(28) })
      // F(t1) = 0.18483101871989877 (5 business days, 7 days), F(t2) = 0.18377199337164454
      assert.closeTo(strike, 0.18377199337164454, 1e-15)
      const ends = [at(7), at(28)].map((to) => RateCurve.forward({ ...input, from: monday, to }))
      assert.strictEqual(strike, Math.min(...ends))
    })
  })
})
