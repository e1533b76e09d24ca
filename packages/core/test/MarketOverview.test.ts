import { assert, describe, it } from "@effect/vitest"
import { MarketOverview, MarketSnapshot } from "@ratelock/core"

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
