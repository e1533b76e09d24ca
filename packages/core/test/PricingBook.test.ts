/**
 * The book's engine (`Pricing.bookWindowOption`, `Pricing.bookSteps`): the quotes' BBSR lattice on 0.9 steps a
 * day instead of two, what `Risk` revalues every lock with. Its bound: within 1 bp of notional of the reference,
 * a 10,000-step plain CRR with the same window rule (what `pnpm bench` measures against), for every direction
 * served; checked here on the cases where `pnpm bench` and `pnpm bench:risk --accuracy` (the book's own prices,
 * and its sweep of puts deep in the money at the highest carry served) found it furthest from the reference.
 */
import { assert, describe, it } from "@effect/vitest"
import { Pricing, RateCurve } from "@ratelock/core"

const day = 86_400_000
const now = Date.UTC(2026, 2, 2, 9, 0)

/** The reference: plain CRR, 10,000 steps, the same window rule. */
const reference = (input: Pricing.WindowOptionInput) =>
  Pricing.windowLattice({ ...input, steps: 10_000, method: "crr" })

/** `|v − v_ref| / spot × 10⁴`. */
const errorBp = (input: Pricing.WindowOptionInput) =>
  (Math.abs(Pricing.bookWindowOption(input) - reference(input)) / input.spot) * 1e4

type Leg = RateCurve.Leg
const usd: Leg = { currency: "USD", rate: 0.0375 }
const brl: Leg = { currency: "BRL", rate: 0.1425 }
const mxn: Leg = { currency: "MXN", rate: 0.07 }
const ngn: Leg = { currency: "NGN", rate: 0.27 }
/** USD/BRL at its reference rate, at the vol of pricing.md's table and at a stressed one. */
const usdBrl = { spot: 5.4, volatility: 0.14 }
const usdBrlStressed = { spot: 5.4, volatility: 0.19 }

/**
 * A put on `base` paid in `quote` over [t1, t2] days from now, struck at `strikeFactor` × spot, or × the cip_fair
 * strike `min(F(t1), F(t2))` (as `pnpm bench`'s grid) when `ofForward`.
 */
const put = (input: {
  readonly base: Leg
  readonly quote: Leg
  readonly spot: number
  readonly strikeFactor: number
  readonly ofForward?: boolean
  readonly volatility: number
  readonly from: number
  readonly to: number
}): Pricing.WindowOptionInput => {
  const t1 = now + input.from * day
  const t2 = now + input.to * day
  const fair = RateCurve.cipFairStrike({
    spot: input.spot,
    domestic: input.quote,
    foreign: input.base,
    now,
    windowStart: t1,
    windowEnd: t2
  })
  const rate = (leg: Leg) =>
    RateCurve.continuousRate(
      RateCurve.discountFactor({ ...leg, from: now, to: t2 }),
      RateCurve.yearFraction365(now, t2)
    )
  return {
    spot: input.spot,
    strike: input.strikeFactor * (input.ofForward ? fair : input.spot),
    domesticRate: rate(input.quote),
    foreignRate: rate(input.base),
    volatility: input.volatility,
    windowStartYears: RateCurve.yearFraction365(now, t1),
    windowEndYears: RateCurve.yearFraction365(now, t2),
    kind: "put"
  }
}

describe("Pricing: the book's engine", () => {
  it("takes 0.9 steps a day of the whole life, at least 50, an even number: 45 % of the quotes' past 56 days", () => {
    assert.strictEqual(Pricing.bookSteps(1 / 24 / 365), 50)
    assert.strictEqual(Pricing.bookSteps(55 / 365), 50)
    assert.strictEqual(Pricing.bookSteps(90 / 365), 82)
    assert.strictEqual(Pricing.bookSteps(100 / 365), 90)
    assert.strictEqual(Pricing.bookSteps(180 / 365), 162)
    for (const days of [60, 99.5, 140, 180]) {
      const share = Pricing.bookSteps(days / 365) / Pricing.windowSteps(days / 365)
      assert.isTrue(share >= 0.44 && share <= 0.46, `${days} days: ${share}`)
    }
  })

  it("is the quotes' lattice on its own steps, and the European closed form for a window starting at its end", () => {
    const input = put({ base: usd, quote: brl, spot: 5.4, strikeFactor: 1.01, volatility: 0.14, from: 10, to: 100 })
    assert.strictEqual(Pricing.bookWindowOption(input), Pricing.windowOptionOn(input, Pricing.bookSteps(100 / 365)))
    const european = { ...input, windowStartYears: input.windowEndYears }
    assert.strictEqual(
      Pricing.bookWindowOption(european),
      Pricing.garmanKohlhagen({ ...european, years: european.windowEndYears })
    )
  })

  it("stays within 1 bp of notional of the 10,000-step CRR where it strays most: high carry, deep in the money, short windows starting later", () => {
    const cases: ReadonlyArray<readonly [string, Pricing.WindowOptionInput]> = [
      // a put on USD against BRL's 14.25 %, 8 % in the money (a lock after brl_plus_15 or usd_minus_10), vol 19 %
      [
        "USD/BRL 1.08F [0, 70]",
        put({ base: usd, quote: brl, ...usdBrlStressed, strikeFactor: 1.08, ofForward: true, from: 0, to: 70 })
      ],
      [
        "USD/BRL 1.08F [0, 90]",
        put({ base: usd, quote: brl, ...usdBrlStressed, strikeFactor: 1.08, ofForward: true, from: 0, to: 90 })
      ],
      // pnpm bench's grid, served directions: a little in the money over [7, 60] days, and an hour's window
      [
        "USD/BRL 1.02F [7, 60]",
        put({ base: usd, quote: brl, ...usdBrl, strikeFactor: 1.02, ofForward: true, from: 7, to: 60 })
      ],
      [
        "USD/BRL 0.97F [30, 31]",
        put({ base: usd, quote: brl, ...usdBrl, strikeFactor: 0.97, ofForward: true, from: 30, to: 31 })
      ],
      // bench:risk --accuracy: USD/BRL after usd_minus_10, a few days' window six weeks out
      [
        "USD/BRL 1.078 [42, 46]",
        put({ base: usd, quote: brl, spot: 4.87, strikeFactor: 1.078, volatility: 0.158, from: 42.2, to: 45.9 })
      ],
      [
        "USD/MXN 1.118 [2, 139]",
        put({ base: usd, quote: mxn, spot: 16.54, strikeFactor: 1.118, volatility: 0.139, from: 1.8, to: 138.7 })
      ],
      // the other side: a put on NGN paid in USD, in the money, its window opening in two weeks
      [
        "NGN/USD 1.1F [15, 50]",
        put({
          base: ngn,
          quote: usd,
          spot: 1 / 1500,
          strikeFactor: 1.1,
          ofForward: true,
          volatility: 0.25,
          from: 15,
          to: 50
        })
      ]
    ]
    for (const [label, input] of cases) {
      const bp = errorBp(input)
      assert.isTrue(bp <= 1, `${label}: ${bp.toFixed(4)} bp`)
    }
  })
})
