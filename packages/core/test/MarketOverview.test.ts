import { assert, describe, it } from "@effect/vitest"
import { DiscountCurve, MarketOverview, MarketSnapshot, VolSurface } from "@ratelock/core"
import { DateTime, Option, Result } from "effect"
import { exampleDocument, exampleNow } from "./fixtures/marketSnapshot.ts"

describe("MarketOverview", () => {
  it("shows every served corridor with forwards and ATM vols at 1W, 1M, 3M and 6M", () => {
    const shown = MarketOverview.corridors(MarketSnapshot.illustrative)
    const usdBrl = shown.find((c) => c.corridor === "USD_TO_BRL")!
    assert.strictEqual(usdBrl.spot, "5.4")
    assert.deepStrictEqual(
      usdBrl.points.map((p) => p.tenor),
      ["1W", "1M", "3M", "6M"]
    )
    // BRL rates above USD's: the USD/BRL forward rises with the tenor; a flat smile is 14 % everywhere
    const forwards = usdBrl.points.map((p) => Number(p.forward))
    for (let i = 1; i < forwards.length; i++) assert.isAbove(forwards[i]!, forwards[i - 1]!)
    for (const p of usdBrl.points) assert.strictEqual(p.atm_vol, "0.14")
    // the inverted direction: 1 / spot
    const brlUsd = shown.find((c) => c.corridor === "BRL_TO_USD")!
    assert.closeTo(Number(brlUsd.points[0]!.forward) * Number(usdBrl.points[0]!.forward), 1, 1e-9)
  })
})

describe("MarketOverview curves and vols", () => {
  const checked = MarketSnapshot.validate(exampleDocument(), { now: exampleNow })
  if (Result.isFailure(checked)) throw new Error("example refused")
  const snapshot = checked.success
  const document = exampleDocument()
  const asOf = DateTime.toEpochMillis(snapshot.as_of)
  const day = 86_400_000

  it("lists every served currency's curve as imported, with each pillar's discount factor", () => {
    const curves = MarketOverview.curves(snapshot)
    assert.deepStrictEqual(
      curves.map((c) => c.currency),
      [...MarketSnapshot.servedCurrencies]
    )
    for (const c of curves) {
      const imported = document.rates[c.currency]
      assert.strictEqual(c.convention, imported.convention)
      assert.deepStrictEqual(
        c.points.map((p) => [p.tenor_days, Number(p.rate)]),
        imported.points.map((p: { tenor_days: number; rate: string }) => [p.tenor_days, Number(p.rate)])
      )
      const curve = Option.getOrThrow(DiscountCurve.fromSnapshot(snapshot, c.currency))
      for (const p of c.points) {
        const df = DiscountCurve.discountFactor(curve, asOf + p.tenor_days * day)
        assert.closeTo(Number(p.discount_factor), df, df * 1e-9)
      }
    }
  })

  it("lists every served pair's vol pillars and its smile at 1M and 3M as the pricer reads it", () => {
    const vols = MarketOverview.vols(snapshot)
    assert.deepStrictEqual(
      vols.map((v) => v.pair),
      [...MarketSnapshot.servedPairs]
    )
    for (const v of vols) {
      assert.deepStrictEqual(
        v.pillars.map((p) => [p.tenor_days, Number(p.atm), Number(p.rr25), Number(p.bf25)]),
        document.vols[v.pair].map((p: { tenor_days: number; atm: string; rr25?: string; bf25?: string }) => [
          p.tenor_days,
          Number(p.atm),
          Number(p.rr25 ?? 0),
          Number(p.bf25 ?? 0)
        ])
      )
      const surface = Option.getOrThrow(VolSurface.fromSnapshot(snapshot, v.pair))
      assert.deepStrictEqual(
        v.smiles.map((s) => s.tenor),
        ["1M", "3M"]
      )
      for (const smile of v.smiles) {
        const days = smile.tenor === "1M" ? 30 : 91
        const [put, atm, call] = smile.points
        assert.deepStrictEqual(
          smile.points.map((p) => p.point),
          ["25d_put", "atm", "25d_call"]
        )
        // ATM is the forward; the 25-delta put is struck below it, the call above
        assert.strictEqual(atm!.strike, smile.forward)
        assert.isBelow(Number(put!.strike), Number(smile.forward))
        assert.isAbove(Number(call!.strike), Number(smile.forward))
        assert.closeTo(Number(atm!.vol), VolSurface.atmVol(surface, days / 365), 1e-6)
        // each point is the vol a lock struck there is priced at
        for (const p of smile.points) {
          const priced = VolSurface.volAt(surface, days / 365, Number(p.strike), Number(smile.forward))
          assert.closeTo(Number(p.vol), priced, 1e-5)
        }
      }
    }
  })
})
