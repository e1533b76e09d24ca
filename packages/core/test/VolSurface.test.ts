/**
 * Volatility surfaces from snapshot pillars (market-data.md, Conventions): ATM by total variance in tenor,
 * risk reversal and butterfly linear in tenor, the three-point smile in ln(K/F) on forward-delta strikes, flat
 * outside; inverted directions mirrored. Properties: a flat snapshot is its ATM vol at every strike, smile vols
 * are positive for every valid snapshot, no calendar arbitrage at ATM, the strike-from-delta inversion
 * round-trips.
 */
import { assert, describe, it } from "@effect/vitest"
import { MarketSnapshot, VolSurface } from "@ratelock/core"
import { Option, Result } from "effect"
import fc from "fast-check"
import { exampleDocument, exampleNow, validDocument } from "./fixtures/marketSnapshot.ts"

const snapshotOf = (document: unknown) => {
  const result = MarketSnapshot.validate(document, { now: exampleNow })
  if (Result.isFailure(result)) throw new Error(JSON.stringify(result.failure))
  return result.success
}
const example = snapshotOf(exampleDocument())
const surfaceOf = (snapshot: MarketSnapshot.MarketSnapshot, pair: string) =>
  Option.getOrThrow(VolSurface.fromSnapshot(snapshot, pair))

const years = fc.double({ min: 1 / 365 / 24, max: 12, noNaN: true })
const logMoneyness = fc.double({ min: -3, max: 3, noNaN: true })

/** The smile's quadratic before the floor: what the page's "quadratic through the three points" gives. */
const quadratic = (s: VolSurface.Smile, strike: number) => {
  const x = Math.log(strike / s.forward)
  return s.vols[0] + s.slope * (x - s.x[0]) + s.curvature * (x - s.x[0]) * (x - s.x[1])
}

describe("VolSurface", () => {
  describe("a flat snapshot (one pillar, no risk reversal or butterfly)", () => {
    it("is its ATM vol at every tenor, strike and forward, in both orientations", () => {
      fc.assert(
        fc.property(
          fc.double({ min: 0.0011, max: 2, noNaN: true }),
          fc.integer({ min: 1, max: 3650 }),
          years,
          logMoneyness,
          fc.double({ min: 0.001, max: 5000, noNaN: true }),
          fc.boolean(),
          (atm, tenorDays, t, x, forward, inverted) => {
            const surface = VolSurface.make({ pair: "USD/BRL", inverted, pillars: [{ tenorDays, atm }] })
            assert.strictEqual(VolSurface.volAt(surface, t, forward * Math.exp(x), forward), atm)
            assert.strictEqual(VolSurface.atmVol(surface, t), atm)
          }
        )
      )
    })

    it("is MarketSnapshot.illustrative's vol per pair", () => {
      for (const pair of MarketSnapshot.servedPairs) {
        const surface = surfaceOf(MarketSnapshot.illustrative, pair)
        const atm = Number(MarketSnapshot.illustrativeDocument.vols[pair]![0]!.atm)
        for (const t of [0, 1 / 365, 0.5, 1, 3]) assert.strictEqual(VolSurface.volAt(surface, t, 1.3, 1.1), atm)
      }
    })
  })

  describe("term structure", () => {
    const surface = VolSurface.make({
      pair: "USD/BRL",
      pillars: [
        { tenorDays: 30, atm: 0.145, rr25: 0.014, bf25: 0.004 },
        { tenorDays: 91, atm: 0.149, rr25: 0.0185, bf25: 0.005 },
        { tenorDays: 365, atm: 0.156, rr25: 0.025, bf25: 0.0067 }
      ]
    })

    it("interpolates ATM total variance σ²·t linearly between pillars, flat vol outside", () => {
      assert.closeTo(VolSurface.atmVol(surface, 91 / 365), 0.149, 1e-15)
      const t = 200 / 365
      const w = (200 - 91) / (365 - 91)
      const variance = (1 - w) * 0.149 ** 2 * (91 / 365) + w * 0.156 ** 2 * 1
      assert.closeTo(VolSurface.atmVol(surface, t), Math.sqrt(variance / t), 1e-15)
      for (const early of [0, 1 / 365, 29 / 365]) assert.strictEqual(VolSurface.atmVol(surface, early), 0.145)
      for (const late of [366 / 365, 5]) assert.strictEqual(VolSurface.atmVol(surface, late), 0.156)
    })

    it("runs risk reversal and butterfly linearly in t, flat outside", () => {
      const t = 200 / 365
      const w = (200 - 91) / (365 - 91)
      assert.closeTo(VolSurface.riskReversal(surface, t), 0.0185 + w * (0.025 - 0.0185), 1e-15)
      assert.closeTo(VolSurface.butterfly(surface, t), 0.005 + w * (0.0067 - 0.005), 1e-15)
      assert.strictEqual(VolSurface.riskReversal(surface, 7 / 365), 0.014)
      assert.strictEqual(VolSurface.butterfly(surface, 2), 0.0067)
    })

    it("has no calendar arbitrage at ATM for any valid snapshot: σ²·t never falls", () => {
      fc.assert(
        fc.property(validDocument, years, years, (document, a, b) => {
          const snapshot = snapshotOf(document)
          const [t1, t2] = a < b ? [a, b] : [b, a]
          for (const pair of MarketSnapshot.servedPairs) {
            const s = surfaceOf(snapshot, pair)
            const w1 = VolSurface.atmVol(s, t1) ** 2 * t1
            const w2 = VolSurface.atmVol(s, t2) ** 2 * t2
            assert.isAtLeast(w2, w1 * (1 - 1e-12))
          }
        }),
        { numRuns: 100 }
      )
    })
  })

  describe("strikes from deltas", () => {
    it("round-trips: the strike of a forward delta has that delta, and back", () => {
      fc.assert(
        fc.property(
          fc.double({ min: 0.01, max: 5000, noNaN: true }),
          fc.double({ min: 0.01, max: 1.5, noNaN: true }),
          fc.double({ min: 1 / 365, max: 5, noNaN: true }),
          fc.double({ min: 0.02, max: 0.98, noNaN: true }),
          fc.constantFrom("call", "put" as const),
          (forward, volatility, t, size, kind) => {
            const delta = kind === "call" ? size : -size
            const strike = VolSurface.strikeFromDelta({ forward, delta, volatility, years: t, kind })
            const back = VolSurface.forwardDelta({ forward, strike, volatility, years: t, kind })
            assert.closeTo(back, delta, 1e-12)
            assert.closeTo(
              VolSurface.strikeFromDelta({ forward, delta: back, volatility, years: t, kind }) / strike,
              1,
              1e-9
            )
          }
        )
      )
    })

    it("puts the ATMF strike between the 25-delta put and call strikes", () => {
      const args = { forward: 5.5, volatility: 0.15, years: 0.5 }
      const put = VolSurface.strikeFromDelta({ ...args, delta: -0.25, kind: "put" })
      const call = VolSurface.strikeFromDelta({ ...args, delta: 0.25, kind: "call" })
      assert.isTrue(put < 5.5 && 5.5 < call)
      // ln(K/F) = ∓0.6745·σ√t + σ²t/2
      assert.closeTo(Math.log(call / 5.5), 0.6744897501960817 * 0.15 * Math.sqrt(0.5) + 0.5 * 0.15 ** 2 * 0.5, 1e-12)
    })
  })

  describe("the three-point smile", () => {
    const surface = surfaceOf(example, "USD/BRL")
    const t = 0.5
    const forward = 5.55

    it("goes through 25Δ put, ATM and 25Δ call at their strikes, each strike from its own vol", () => {
      const atm = VolSurface.atmVol(surface, t)
      const rr = VolSurface.riskReversal(surface, t)
      const bf = VolSurface.butterfly(surface, t)
      const putVol = atm + bf - rr / 2
      const callVol = atm + bf + rr / 2
      const putStrike = VolSurface.strikeFromDelta({ forward, delta: -0.25, volatility: putVol, years: t, kind: "put" })
      const callStrike = VolSurface.strikeFromDelta({
        forward,
        delta: 0.25,
        volatility: callVol,
        years: t,
        kind: "call"
      })
      assert.closeTo(VolSurface.volAt(surface, t, putStrike, forward), putVol, 1e-12)
      assert.closeTo(VolSurface.volAt(surface, t, forward, forward), atm, 1e-15)
      assert.closeTo(VolSurface.volAt(surface, t, callStrike, forward), callVol, 1e-12)
      // flat beyond the outer strikes
      assert.closeTo(VolSurface.volAt(surface, t, putStrike * 0.8, forward), putVol, 1e-15)
      assert.closeTo(VolSurface.volAt(surface, t, callStrike * 1.3, forward), callVol, 1e-15)
      // USD calls over puts on an EM pair: vol rises with the strike
      assert.isTrue(putVol < atm && atm < callVol)
    })

    it("is a quadratic in ln(K/F) between the outer strikes, one the floor never bends for the example", () => {
      for (const pair of MarketSnapshot.servedPairs) {
        const s = surfaceOf(example, pair)
        for (const tenor of [1, 7, 30, 91, 182, 365, 730, 1095]) {
          const smile = VolSurface.smile(s, tenor / 365, 1)
          assert.isTrue(smile.x[0] < 0 && smile.x[1] === 0 && smile.x[2] > 0, "put < ATMF < call")
          for (let i = 0; i <= 100; i++) {
            const x = smile.x[0] + ((smile.x[2] - smile.x[0]) * i) / 100
            const strike = Math.exp(x)
            assert.closeTo(VolSurface.smileVol(smile, strike), quadratic(smile, strike), 1e-15)
          }
        }
      }
    })

    it("gives positive, finite vols for every valid snapshot, tenor and strike", () => {
      fc.assert(
        fc.property(validDocument, years, logMoneyness, fc.boolean(), (document, t, x, inverted) => {
          const snapshot = snapshotOf(document)
          for (const pair of MarketSnapshot.servedPairs) {
            const s = { ...surfaceOf(snapshot, pair), inverted }
            const vol = VolSurface.volAt(s, t, Math.exp(x), 1)
            assert.isTrue(Number.isFinite(vol) && vol > 0, `${pair} t=${t} x=${x}: ${vol}`)
          }
        }),
        { numRuns: 300 }
      )
    })

    it("stays positive where a quadratic through three positive points would not", () => {
      // a steep put wing, an ATM near the floor and a call wing close to ATM: the parabola dips below 0
      const steep = VolSurface.make({ pair: "USD/NGN", pillars: [{ tenorDays: 36, atm: 0.01, rr25: -1.98, bf25: 1 }] })
      const smile = VolSurface.smile(steep, 0.1, 1)
      const dips = Array.from({ length: 1001 }, (_, i) => smile.x[0] + ((smile.x[2] - smile.x[0]) * i) / 1000).some(
        (x) => quadratic(smile, Math.exp(x)) < 0
      )
      assert.isTrue(dips, "the example should dip")
      for (let i = 0; i <= 1000; i++) {
        const x = smile.x[0] + ((smile.x[2] - smile.x[0]) * i) / 1000
        assert.isAtLeast(VolSurface.smileVol(smile, Math.exp(x)), VolSurface.minimumVol)
      }
    })
  })

  it("keeps wings interpolated between two valid pillars above the floor", () => {
    // ATM falls faster in total variance than the butterfly rises linearly: near 7 days both wings,
    // atm + bf25, are under 0.001 (about 2e-7)
    const surface = VolSurface.make({
      pair: "BRL/MXN",
      pillars: [
        { tenorDays: 3, atm: 0.022578, bf25: -0.01852 },
        { tenorDays: 30, atm: 0.01 }
      ]
    })
    const t = 7.12 / 365
    assert.isTrue(VolSurface.atmVol(surface, t) + VolSurface.butterfly(surface, t) < VolSurface.minimumVol)
    for (const x of [-1, -1e-3, -1e-10, 0, 1e-10, 1e-3, 1]) {
      assert.isAtLeast(VolSurface.volAt(surface, t, Math.exp(x), 1), VolSurface.minimumVol)
    }
  })

  it("shifted: every pillar's ATM moves (the smile with it), never below the floor", () => {
    const surface = VolSurface.make({
      pair: "USD/BRL",
      pillars: [
        { tenorDays: 30, atm: 0.12, rr25: 0.01, bf25: 0.003 },
        { tenorDays: 180, atm: 0.15, rr25: 0.02, bf25: 0.004 }
      ]
    })
    const up = VolSurface.shifted(surface, 0.05)
    assert.deepStrictEqual([...up.atm], [0.12 + 0.05, 0.15 + 0.05])
    assert.deepStrictEqual([...up.rr25], [...surface.rr25])
    assert.closeTo(VolSurface.atmVol(up, 30 / 365), 0.17, 1e-15)
    assert.strictEqual(VolSurface.shifted(surface, 0), surface)
    const down = VolSurface.shifted(surface, -0.5)
    assert.deepStrictEqual([...down.atm], [VolSurface.minimumVol, VolSurface.minimumVol])
  })

  describe("inverted directions", () => {
    it("read the pair's smile at 1/K around 1/F (a BRL put on BRL_TO_USD is a USD call)", () => {
      const pair = surfaceOf(example, "USD/BRL")
      const inverted = Option.getOrThrow(VolSurface.forDirection(example, "BRL_TO_USD"))
      assert.isTrue(inverted.inverted)
      assert.isFalse(Option.getOrThrow(VolSurface.forDirection(example, "USD_TO_BRL")).inverted)
      fc.assert(
        fc.property(years, logMoneyness, (t, x) => {
          const forward = 5.5
          const strike = forward * Math.exp(x)
          assert.strictEqual(
            VolSurface.volAt(inverted, t, 1 / strike, 1 / forward),
            VolSurface.volAt(pair, t, strike, forward)
          )
        })
      )
      // mirrored: the high USD-call vol sits at the low BRL_TO_USD strikes
      const t = 0.5
      const low = VolSurface.volAt(inverted, t, (1 / 5.5) * 0.9, 1 / 5.5)
      const high = VolSurface.volAt(inverted, t, (1 / 5.5) * 1.1, 1 / 5.5)
      assert.isTrue(low > high)
    })
  })
})
