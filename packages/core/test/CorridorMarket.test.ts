/**
 * A direction's market from a snapshot: curves, smile and reference rate as the window-option engine reads
 * them. The flat (illustrative) snapshot observed at the pricing instant gives exactly the inputs, and so the
 * prices, that today's static table gives through `RateCurve`.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CorridorMarket,
  Corridor,
  DiscountCurve,
  MarketData,
  MarketSnapshot,
  Money,
  Pricing,
  RateCurve,
  VolSurface
} from "@ratelock/core"
import { DateTime, Option, Result } from "effect"
import fc from "fast-check"
import { exampleDocument, exampleNow } from "./fixtures/marketSnapshot.ts"

const day = 86_400_000
const monday = Date.UTC(2026, 2, 2) // Monday 00:00 UTC

/** Today's static table for a direction (pricing.md's illustrative defaults), as the pricer read it before snapshots. */
const tableCorridor = (direction: Corridor.Direction) => {
  const table = MarketData.defaultTable()
  const p = Corridor.marketPair(direction)
  const entry = table.pairs[`${p.base}/${p.quote}`]!
  const leg = (currency: Corridor.Currency): RateCurve.Leg => ({ currency, rate: table.rates[currency]! })
  const reference = Money.unsafe(entry.reference)
  return {
    referenceRate: p.inverted ? Money.divide(Money.one, reference) : reference,
    volatility: entry.volatility,
    base: leg(p.inverted ? p.quote : p.base),
    quote: leg(p.inverted ? p.base : p.quote)
  }
}

/** The engine inputs today's pricer computes from the static table (QuotePricer's own arithmetic). */
const todaysInputs = (
  direction: Corridor.Direction,
  input: { spot: number; strike: number; now: number; windowStart: number; windowEnd: number }
) => {
  const corridor = tableCorridor(direction)
  const { now, windowEnd } = input
  const start = Math.max(input.windowStart, now)
  const rate = (leg: RateCurve.Leg) =>
    RateCurve.continuousRate(
      RateCurve.discountFactor({ ...leg, from: now, to: windowEnd }),
      RateCurve.yearFraction365(now, windowEnd)
    )
  const forward = (to: number) =>
    RateCurve.forward({ spot: input.spot, domestic: corridor.quote, foreign: corridor.base, from: now, to })
  return {
    spot: input.spot,
    strike: input.strike,
    forwardStart: forward(start),
    forwardEnd: forward(windowEnd),
    domesticRate: rate(corridor.quote),
    foreignRate: rate(corridor.base),
    volatility: corridor.volatility,
    windowStartYears: (start - now) / (365 * day),
    windowEndYears: (windowEnd - now) / (365 * day)
  }
}

const touchesBrl = (direction: Corridor.Direction) => Corridor.includes(direction, "BRL")

describe("CorridorMarket", () => {
  describe("the flat snapshot prices as today's static table", () => {
    /** The `n`th weekday from Monday 2026-03-02, at midnight. */
    const weekday = (n: number) => monday + (7 * Math.floor(n / 5) + (n % 5)) * day
    const window = (anyInstant: boolean) =>
      fc
        .record({
          nowIndex: fc.integer({ min: 0, max: 1000 }),
          anyNow: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2030, 0, 1) }),
          startDays: fc.integer({ min: 0, max: 200 }),
          lengthDays: fc.integer({ min: 1, max: 200 }),
          startHours: fc.double({ min: 0, max: 23.99, noNaN: true }),
          spotShift: fc.double({ min: -0.1, max: 0.1, noNaN: true }),
          moneyness: fc.double({ min: 0.8, max: 1.2, noNaN: true })
        })
        .map(({ nowIndex, anyNow, startDays, lengthDays, startHours, spotShift, moneyness }) => {
          if (anyInstant) {
            const windowStart = anyNow + startDays * day + startHours * 3_600_000
            return { now: anyNow, windowStart, windowEnd: windowStart + lengthDays * day, spotShift, moneyness }
          }
          // BUS/252 now counts whole days: at weekday midnights both counts agree
          return {
            now: weekday(nowIndex),
            windowStart: weekday(nowIndex + startDays),
            windowEnd: weekday(nowIndex + startDays + lengthDays),
            spotShift,
            moneyness
          }
        })

    for (const direction of Corridor.directions) {
      it(`${direction}: the same forwards, rates, vol and window-option price, to the last bit`, () => {
        const reference = Money.toModel(tableCorridor(direction).referenceRate)
        fc.assert(
          fc.property(window(!touchesBrl(direction)), ({ now, windowStart, windowEnd, spotShift, moneyness }) => {
            const snapshot = MarketSnapshot.illustrativeAt(DateTime.makeUnsafe(now))
            const market = Option.getOrThrow(CorridorMarket.make(snapshot, direction))
            const spot = reference * (1 + spotShift)
            const args = { spot, strike: spot * moneyness, now, windowStart, windowEnd }
            const inputs = CorridorMarket.windowInputs(market, args)
            const today = todaysInputs(direction, args)
            assert.deepStrictEqual(inputs, today)
            assert.strictEqual(
              Pricing.windowOption({ ...inputs, kind: "put" }),
              Pricing.windowOption({ ...today, kind: "put" })
            )
          }),
          { numRuns: 25 }
        )
      })
    }

    it("has the table's reference rate for every direction (1 / spot when inverted)", () => {
      for (const direction of Corridor.directions) {
        const market = Option.getOrThrow(CorridorMarket.make(MarketSnapshot.illustrative, direction))
        assert.isTrue(Money.equals(market.referenceRate, tableCorridor(direction).referenceRate), direction)
      }
    })
  })

  describe("on the example snapshot", () => {
    const result = MarketSnapshot.validate(exampleDocument(), { now: exampleNow })
    if (Result.isFailure(result)) throw new Error("example refused")
    const snapshot = result.success
    const now = exampleNow

    it("takes the direction's curves: domestic is QUOTE's, foreign is BASE's", () => {
      const market = Option.getOrThrow(CorridorMarket.make(snapshot, "USD_TO_BRL"))
      assert.strictEqual(market.domestic.currency, "BRL")
      assert.strictEqual(market.foreign.currency, "USD")
      const inverse = Option.getOrThrow(CorridorMarket.make(snapshot, "BRL_TO_USD"))
      assert.strictEqual(inverse.domestic.currency, "USD")
      assert.isTrue(inverse.vols.inverted)
      assert.isTrue(Money.equals(inverse.referenceRate, Money.divide(Money.one, Money.unsafe("5.4120"))))
      // the same snapshot and direction: built once
      assert.strictEqual(CorridorMarket.make(snapshot, "USD_TO_BRL"), CorridorMarket.make(snapshot, "USD_TO_BRL"))
    })

    it("prices a USD_TO_BRL window: BRL carry lifts the forward, the put's vol is below ATM (USD calls over puts)", () => {
      const market = Option.getOrThrow(CorridorMarket.make(snapshot, "USD_TO_BRL"))
      const spot = 5.42
      const windowEnd = now + 90 * day
      const inputs = CorridorMarket.windowInputs(market, { spot, strike: 5.3, now, windowStart: now, windowEnd })
      assert.strictEqual(inputs.forwardStart, spot)
      assert.isTrue(inputs.forwardEnd > spot * 1.02 && inputs.forwardEnd < spot * 1.04)
      assert.closeTo(
        inputs.forwardEnd,
        DiscountCurve.forward({ spot, domestic: market.domestic, foreign: market.foreign, from: now, to: windowEnd }),
        1e-15
      )
      assert.closeTo(inputs.domesticRate, DiscountCurve.continuousRate(market.domestic, now, windowEnd), 0)
      const atm = VolSurface.atmVol(market.vols, (windowEnd - snapshot.as_of.epochMilliseconds) / (365 * day))
      assert.isTrue(inputs.volatility < atm, `${inputs.volatility} < ${atm}`)
      assert.closeTo(inputs.windowEndYears, 90 / 365, 1e-15)
      // ATM forward strike: the ATM vol
      assert.closeTo(CorridorMarket.volatility(market, windowEnd, inputs.forwardEnd, inputs.forwardEnd), atm, 1e-15)
      const value = Pricing.windowOption({ ...inputs, kind: "put" })
      assert.isTrue(value > 0 && value < 0.1)
    })

    it("prices the inverse direction on the mirrored smile: the same option, the same vol", () => {
      const direct = Option.getOrThrow(CorridorMarket.make(snapshot, "USD_TO_BRL"))
      const inverse = Option.getOrThrow(CorridorMarket.make(snapshot, "BRL_TO_USD"))
      const expiry = now + 45 * day
      const forward = CorridorMarket.forward(direct, 5.42, now, expiry)
      assert.closeTo(CorridorMarket.forward(inverse, 1 / 5.42, now, expiry), 1 / forward, 1e-15)
      for (const strike of [5.0, 5.3, 5.5, 5.8]) {
        assert.strictEqual(
          CorridorMarket.volatility(inverse, expiry, 1 / strike, 1 / forward),
          CorridorMarket.volatility(direct, expiry, strike, forward)
        )
      }
    })

    it("has none for a direction whose pair the snapshot lacks (a validated one never does)", () => {
      const partial = { ...snapshot, vols: { ...snapshot.vols } }
      delete (partial.vols as Record<string, unknown>)["USD/NGN"]
      assert.isTrue(Option.isNone(CorridorMarket.make(partial, "NGN_TO_USD")))
      assert.isTrue(Option.isSome(CorridorMarket.make(partial, "USD_TO_MXN")))
    })
  })
})
