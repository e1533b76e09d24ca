/**
 * Hedge P&L marked at the snapshot's forward for each order's value date (risk.md, Hedging), against
 * figures worked out by hand. The snapshot: one-pillar ACT/360 curves, which hold their rate flat in
 * simple interest, so `DF(t) = 1 / (1 + r·t/360)`: USD 3.6 %, BRL 9 %, EUR 1.8 %; USD/BRL at 5,
 * EUR/USD at 1.2. `as_of` is a Monday at midday UTC and a value date counts from its midday, so `t`
 * is whole days: the spot date (Wednesday) is 2 days on, a 30-day forward 30.
 *
 *   F(USD/BRL, 2 d)  = 5 × 1.0005 / 1.0002   = 5 + 0.0015 / 1.0002  = 5.00149970005998800…
 *   F(USD/BRL, 30 d) = 5 × 1.0075 / 1.003    = 5 + 0.0225 / 1.003   = 5.02243270189431705…
 *   F(EUR/USD, 30 d) = 1.2 × 1.003 / 1.0015  = 1.2 + 0.0018 / 1.0015 = 1.20179730404393410…
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Option } from "effect"
import { type HedgeOrder, HedgeMarks, Money, RiskReport } from "@ratelock/core"
import { illustrativeWith } from "./fixtures/snapshots.ts"

const asOf = DateTime.makeUnsafe("2026-03-02T12:00:00Z")
const spotDate = "2026-03-04"
const forwardDate = "2026-04-01"

const flat = (rate: string) => ({ convention: "ACT/360", points: [{ tenor_days: 365, rate }] })

const snapshot = illustrativeWith(asOf, (document) => {
  document.rates.USD = flat("0.036")
  document.rates.BRL = flat("0.09")
  document.rates.EUR = flat("0.018")
  document.spot["USD/BRL"] = "5"
  document.spot["EUR/USD"] = "1.2"
})

const fUsdBrlSpot = 5 + 0.0015 / 1.0002
const fUsdBrl30 = 5 + 0.0225 / 1.003
const fEurUsd30 = 1.2 + 0.0018 / 1.0015

type Marked = Pick<HedgeOrder.HedgeOrder, "pair" | "status" | "side" | "fillAmount" | "fillRate" | "valueDate">

const order = (o: {
  readonly pair?: string
  readonly status?: HedgeOrder.HedgeOrderStatus
  readonly side: "buy" | "sell"
  readonly fillAmount: string | null
  readonly fillRate: string | null
  readonly valueDate: string
}): Marked => ({
  pair: o.pair ?? "USD/BRL",
  status: o.status ?? "filled",
  side: o.side,
  fillAmount: o.fillAmount === null ? null : Money.unsafe(o.fillAmount),
  fillRate: o.fillRate === null ? null : Money.unsafe(o.fillRate),
  valueDate: o.valueDate
})

/** The P&L as the risk report prints it: 2 decimals, half away from zero. */
const reported = (orders: ReadonlyArray<Marked>) => Money.format(RiskReport.figure(HedgeMarks.pnl(snapshot, orders)))

const forwardOf = (pair: string, valueDate: string) =>
  Option.getOrThrowWith(HedgeMarks.forward(snapshot, pair, valueDate), () => new Error(`no forward for ${pair}`))

describe("HedgeMarks.forward", () => {
  it("is covered interest parity on the pair's curves to the value date's midday", () => {
    assert.closeTo(forwardOf("USD/BRL", spotDate), fUsdBrlSpot, 1e-12)
    assert.closeTo(forwardOf("USD/BRL", forwardDate), fUsdBrl30, 1e-12)
    // EUR is the BASE here: its curve is the foreign one
    assert.closeTo(forwardOf("EUR/USD", forwardDate), fEurUsd30, 1e-12)
  })

  it("is the spot for a value date already past (nothing left to carry)", () => {
    assert.closeTo(forwardOf("USD/BRL", "2026-02-27"), 5, 1e-12)
    assert.closeTo(forwardOf("USD/BRL", "2026-03-02"), 5, 1e-12)
  })

  it("has none for a pair that is not a market pair as written", () => {
    assert.isTrue(Option.isNone(HedgeMarks.forward(snapshot, "BRL/USD", spotDate)))
    assert.isTrue(Option.isNone(HedgeMarks.forward(snapshot, "USD/JPY", spotDate)))
  })
})

describe("HedgeMarks.pnl", () => {
  it("a spot buy gains what the forward is above its rate", () => {
    // 100,000 × (F − 4.99) = 1,000 + 150 / 1.0002 = 1,149.97000599880…
    const buy = order({ side: "buy", fillAmount: "100000", fillRate: "4.99", valueDate: spotDate })
    assert.closeTo(HedgeMarks.pnl(snapshot, [buy]), 1000 + 150 / 1.0002, 1e-7)
    assert.strictEqual(reported([buy]), "1149.97")
  })

  it("a forward sell gains what the forward is below its rate, on the amount filled", () => {
    // 25,000 filled at 5.03 (what was filled is what is marked): 25,000 × (5.03 − F) = 750 − 562.5 / 1.003 = 189.18245264207…
    const sell = order({ side: "sell", fillAmount: "25000", fillRate: "5.03", valueDate: forwardDate })
    assert.closeTo(HedgeMarks.pnl(snapshot, [sell]), 750 - 562.5 / 1.003, 1e-7)
    assert.strictEqual(reported([sell]), "189.18")
  })

  it("a forward sell above the forward loses, in the pair's QUOTE", () => {
    // EUR/USD sold 50,000 at 1.2 for 30 days: −50,000 × 0.0018 / 1.0015 = −90 / 1.0015 = −89.86520219670…
    const sell = order({
      pair: "EUR/USD",
      side: "sell",
      fillAmount: "50000",
      fillRate: "1.2",
      valueDate: forwardDate
    })
    assert.closeTo(HedgeMarks.pnl(snapshot, [sell]), -90 / 1.0015, 1e-8)
    assert.strictEqual(reported([sell]), "-89.87")
  })

  it("sums the fills and counts nothing of an order without one", () => {
    const orders = [
      order({ side: "buy", fillAmount: "100000", fillRate: "4.99", valueDate: spotDate }),
      order({ side: "sell", fillAmount: "25000", fillRate: "5.03", valueDate: forwardDate }),
      // a past value date marks at spot: 10,000 × (5 − 4.9) = 1,000
      order({ side: "buy", fillAmount: "10000", fillRate: "4.9", valueDate: "2026-02-27" }),
      // waiting, sent, rejected: no fill, no P&L (whatever their amounts would say)
      order({ status: "intended", side: "buy", fillAmount: null, fillRate: null, valueDate: spotDate }),
      order({ status: "sent", side: "sell", fillAmount: null, fillRate: null, valueDate: spotDate }),
      order({ status: "rejected", side: "buy", fillAmount: null, fillRate: null, valueDate: spotDate }),
      // a pair the snapshot cannot mark adds nothing rather than a guess
      order({ pair: "BRL/USD", side: "buy", fillAmount: "1000000", fillRate: "0.1", valueDate: spotDate })
    ]
    // 1,149.97000599880… + 189.18245264207… + 1,000 = 2,339.15245864087…
    assert.closeTo(HedgeMarks.pnl(snapshot, orders), 1000 + 150 / 1.0002 + 750 - 562.5 / 1.003 + 1000, 1e-7)
    assert.strictEqual(reported(orders), "2339.15")
  })

  it("is 0 without a fill", () => {
    assert.strictEqual(HedgeMarks.pnl(snapshot, []), 0)
    assert.strictEqual(reported([]), "0.00")
  })
})
