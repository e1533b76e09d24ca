/**
 * The book's engine (`Pricing.bookWindowOption`, `Pricing.bookSteps`): the quotes' BBSR lattice on about one step
 * a day instead of two, what `Risk` revalues every lock with. Its bound: within 1 bp of notional of the
 * reference, a 10,000-step plain CRR with the same window rule (what `pnpm bench` measures against), checked
 * here on the cases where `pnpm bench` and `pnpm bench:risk --accuracy` found it furthest from the reference.
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
  it("takes about one step a day of the whole life, at least 50, an even number: about half the quotes' past 50 days", () => {
    assert.strictEqual(Pricing.bookSteps(1 / 24 / 365), 50)
    assert.strictEqual(Pricing.bookSteps(49 / 365), 50)
    assert.strictEqual(Pricing.bookSteps(90 / 365), 90)
    assert.strictEqual(Pricing.bookSteps(90.5 / 365), 92)
    assert.strictEqual(Pricing.bookSteps(180 / 365), 180)
    for (const days of [51, 60, 99.5, 180]) {
      const half = Pricing.windowSteps(days / 365) / 2
      assert.isTrue(Math.abs(Pricing.bookSteps(days / 365) - half) <= 1, `${days} days`)
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
      // pnpm bench's worst case: a put on USD against NGN's 27 %, at 1.02 × the forward, window [7, 60] days
      [
        "USD/NGN 1.02F [7, 60]",
        put({
          base: usd,
          quote: ngn,
          spot: 1500,
          strikeFactor: 1.02,
          ofForward: true,
          volatility: 0.2,
          from: 7,
          to: 60
        })
      ],
      // bench:risk --accuracy: USD/BRL after usd_minus_10, a few days' window six weeks out
      [
        "USD/BRL 1.078 [42, 46]",
        put({ base: usd, quote: brl, spot: 4.87, strikeFactor: 1.078, volatility: 0.158, from: 42.2, to: 45.9 })
      ],
      [
        "USD/BRL 1.091 [32, 79]",
        put({ base: usd, quote: brl, spot: 4.87, strikeFactor: 1.091, volatility: 0.162, from: 32.2, to: 79 })
      ],
      [
        "USD/BRL 1.004 [24, 28]",
        put({ base: usd, quote: brl, spot: 5.412, strikeFactor: 1.004, volatility: 0.194, from: 24.4, to: 27.6 })
      ],
      [
        "USD/MXN 1.118 [2, 139]",
        put({ base: usd, quote: mxn, spot: 16.54, strikeFactor: 1.118, volatility: 0.139, from: 1.8, to: 138.7 })
      ],
      // the other side: a put on BRL paid in USD, American over half a year
      [
        "BRL/USD 1.02 [0, 180]",
        put({ base: brl, quote: usd, spot: 1 / 5.4, strikeFactor: 1.02, volatility: 0.14, from: 0, to: 180 })
      ]
    ]
    for (const [label, input] of cases) {
      const bp = errorBp(input)
      assert.isTrue(bp <= 1, `${label}: ${bp.toFixed(4)} bp`)
    }
  })
})
