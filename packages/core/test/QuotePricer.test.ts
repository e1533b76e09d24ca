/**
 * The quote pricer against pricing.md: every quote field and every failure reason.
 */
import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, DateTime } from "effect"
import {
  CorridorLimit,
  MarketFreshness,
  MarketData,
  type MarketSnapshot,
  Money,
  Pricing,
  QuotePolicy,
  QuotePricer,
  type QuoteRequest,
  RateCurve
} from "@ratelock/core"
import { quoteRequest } from "./fixtures/quoteRequest.ts"
import { illustrativeWith } from "./fixtures/snapshots.ts"

const now = DateTime.makeUnsafe("2026-11-23T12:00:00Z")
const later = (days: number) => DateTime.makeUnsafe(now.epochMilliseconds + days * 86_400_000)
const policy = QuotePolicy.defaults

/** pricing.md's USD/BRL legs, as the illustrative snapshot has them. */
const usdBrl = {
  base: { currency: "USD", rate: 0.0375 },
  quote: { currency: "BRL", rate: 0.1425 }
} as const

/** The illustrative snapshot observed at `now`: flat curves and smiles, pricing.md's table. */
const illustrative = MarketFreshness.illustrative(now)

const request = (overrides: Partial<QuoteRequest.QuoteRequest> = {}) => quoteRequest(now, overrides)

const inForce = (snapshot: MarketSnapshot.MarketSnapshot): MarketFreshness.InForce => ({
  _tag: "InForce",
  snapshotId: "5d1c0f7e-8a8e-4c1b-9a51-0c2f3e4d5a6b",
  snapshot
})

const price = (
  overrides: Partial<QuoteRequest.QuoteRequest> = {},
  market: MarketFreshness.InForce = illustrative,
  railSupported = true
) =>
  QuotePricer.price({
    request: request(overrides),
    market,
    notionalLimits: MarketData.defaultNotionalLimits,
    now,
    policy,
    railSupported
  })

const years = (d: DateTime.Utc) => RateCurve.yearFraction365(now, d)
const cont = (leg: { currency: "USD" | "BRL"; rate: number }, to: DateTime.Utc) =>
  RateCurve.continuousRate(RateCurve.discountFactor({ ...leg, from: now, to }), years(to))

/** The model value per 1 BASE for a USD/BRL put struck at `strike`, exercisable in [t1, t2]. */
const modelValue = (strike: number, t1: DateTime.Utc, t2: DateTime.Utc, spot = 5.41) =>
  Pricing.windowOption({
    spot,
    strike,
    domesticRate: cont(usdBrl.quote, t2),
    foreignRate: cont(usdBrl.base, t2),
    volatility: 0.14,
    windowStartYears: years(t1),
    windowEndYears: years(t2),
    kind: "put"
  })

describe("QuotePricer", () => {
  it("cip_fair takes the forward at the worse window end, rounded down to the pair's 4 dp", () => {
    const start = later(10)
    const end = later(60)
    const q = price({ window_start: start, window_end: end })
    const f1 = RateCurve.forward({ spot: 5.41, domestic: usdBrl.quote, foreign: usdBrl.base, from: now, to: start })
    const f2 = RateCurve.forward({ spot: 5.41, domestic: usdBrl.quote, foreign: usdBrl.base, from: now, to: end })
    assert.strictEqual(q.status, "created")
    assert.strictEqual(Money.format(q.lockedRate), (Math.floor(Math.min(f1, f2) * 10_000) / 10_000).toFixed(4))
    assert.isFalse(Money.lessThan(q.lockedRate, Money.unsafe("5.41"))) // BRL rates above USD: forwards rise
  })

  it("live_spot locks market_rate; custom locks target_strike; the partner spread comes off", () => {
    assert.strictEqual(Money.format(price({ strike_mode: "live_spot" }).lockedRate), "5.4100")
    assert.strictEqual(
      Money.format(price({ strike_mode: "custom", target_strike: Money.unsafe("5.3") }).lockedRate),
      "5.3000"
    )
    const spread = price({ strike_mode: "live_spot", provider_extra_spread: Money.unsafe("0.015") })
    assert.strictEqual(Money.format(spread.lockedRate), "5.3950")
    assert.strictEqual(Money.format(spread.providerExtraSpread), "0.015")
  })

  it("inverted pairs keep 10 significant digits, rounded down", () => {
    const q = price({
      direction: "BRL_TO_USD",
      notional_currency: "BRL",
      strike_mode: "custom",
      target_strike: Money.unsafe("0.18518518518518"),
      provider_rate: Money.unsafe("0.1852"),
      market_rate: Money.unsafe("0.1852")
    })
    assert.strictEqual(Money.format(q.lockedRate), "0.1851851851")
  })

  it("option premium = value × N_b × 1.15, in the settlement fiat, rounded up to 6 dp", () => {
    const q = price({ strike_mode: "live_spot" })
    const value = modelValue(5.41, now, later(30))
    const inBrl = Money.multiply(Money.multiply(Money.fromModel(value), Money.unsafe("10000")), Money.unsafe("1.15"))
    const expected = Money.roundUp(Money.divide(inBrl, Money.unsafe("5.41")))
    assert.strictEqual(Money.format(q.premiumAmount), Money.format(expected))
    assert.strictEqual(q.premiumAmount.scale, 6)
    assert.isNull(q.depositAmount)
    assert.isTrue(Money.equals(q.totalAmount, q.premiumAmount))
    assert.strictEqual(Money.format(q.maxTransactionAmount), "10000")
  })

  it("a notional in QUOTE is converted to BASE at the locked rate", () => {
    const inUsd = price({ strike_mode: "live_spot" })
    const inBrl = price({ strike_mode: "live_spot", notional_currency: "BRL", notional_amount: Money.unsafe("54100") })
    assert.strictEqual(Money.format(inBrl.premiumAmount), Money.format(inUsd.premiumAmount))
    assert.strictEqual(Money.format(inBrl.maxTransactionAmount), "54100")
  })

  it("forward fee = max(1.00, 0.5 × option premium); deposit = notional × clamp(σ√τ2, 5 %, 10 %)", () => {
    const option = price({ strike_mode: "live_spot" })
    const forward = price({ strike_mode: "live_spot", contract_type: "forward" })
    const half = Money.roundUp(Money.multiply(option.premiumAmount, Money.unsafe("0.5")))
    // both round up from the same exact premium: they differ by at most one unit
    assert.isTrue(BigDecimal.abs(Money.subtract(forward.premiumAmount, half)).value <= 1n)
    assert.strictEqual(Money.format(forward.depositAmount!), "500.000000") // σ√τ = 4 % → floor 5 %
    const long = price({ contract_type: "forward", window_end: later(180) }) // 0.14 × √(180/365) = 9.83 %
    const ratio = 0.14 * Math.sqrt(180 / 365)
    assert.strictEqual(
      Money.format(long.depositAmount!),
      Money.format(Money.roundUp(Money.multiply(Money.unsafe("10000"), Money.fromModel(ratio))))
    )
    const volatile = illustrativeWith(now, (document) => {
      document.vols["USD/BRL"][0].atm = "0.3"
    })
    const capped = price({ contract_type: "forward", window_end: later(180) }, inForce(volatile))
    assert.strictEqual(Money.format(capped.depositAmount!), "1000.000000")
    assert.isTrue(Money.equals(long.totalAmount, Money.sum(long.premiumAmount, long.depositAmount!)))
    const tiny = price({ contract_type: "forward", notional_amount: Money.unsafe("10"), strike_mode: "live_spot" })
    assert.strictEqual(Money.format(tiny.premiumAmount), "1.000000")
  })

  it("strike_advantage_bps = floor(10⁴ × (locked / provider − 1)), never below 0", () => {
    assert.strictEqual(price({ strike_mode: "live_spot" }).strikeAdvantageBps, 18) // 5.41 / 5.40 − 1 = 18.5 bp
    assert.strictEqual(price({ strike_mode: "live_spot", provider_rate: Money.unsafe("5.50") }).strikeAdvantageBps, 0)
  })

  it("a cross settlement fiat converts at the snapshot's mid rate", () => {
    const eurPerBrl = Money.unsafe("0.16")
    const eurBrl625 = illustrativeWith(now, (document) => {
      document.spot["EUR/BRL"] = "6.25" // 1 / 6.25 = 0.16 EUR per BRL
    })
    const q = price({ strike_mode: "live_spot", settlement_currency: "EURC", chain: "ethereum" }, inForce(eurBrl625))
    const value = modelValue(5.41, now, later(30))
    const inBrl = Money.multiply(Money.multiply(Money.fromModel(value), Money.unsafe("10000")), Money.unsafe("1.15"))
    assert.strictEqual(Money.format(q.premiumAmount), Money.format(Money.roundUp(Money.multiply(inBrl, eurPerBrl))))
  })

  describe("failure reasons", () => {
    const failure = (q: QuotePricer.PricedQuote) => {
      assert.strictEqual(q.status, "failed")
      assert.strictEqual(Money.format(q.totalAmount), "0")
      return q.failureReason?.code
    }
    it("no market parameters", () => {
      const noUsdBrl = illustrativeWith(now, (document) => {
        delete document.vols["USD/BRL"]
      })
      assert.strictEqual(failure(price({}, inForce(noUsdBrl))), "no_market_parameters")
      const noLimit = QuotePricer.price({
        request: request(),
        market: illustrative,
        notionalLimits: {},
        railSupported: true,
        now,
        policy
      })
      assert.strictEqual(failure(noLimit), "no_market_parameters")
    })
    it("provider_rate more than 5 % from market_rate", () => {
      assert.strictEqual(failure(price({ provider_rate: Money.unsafe("5.69") })), "provider_rate_off_market")
      assert.strictEqual(price({ provider_rate: Money.unsafe("5.68") }).status, "created")
    })
    it("market_rate more than 20 % from the reference (inverted quoting)", () => {
      assert.strictEqual(
        failure(price({ market_rate: Money.unsafe("0.185"), provider_rate: Money.unsafe("0.185") })),
        "market_rate_off_reference"
      )
    })
    it("custom strike more than 20 % from market_rate", () => {
      assert.strictEqual(
        failure(price({ strike_mode: "custom", target_strike: Money.unsafe("4.3") })),
        "custom_strike_off_market"
      )
    })
    it("notional above the corridor's largest single lock", () => {
      assert.strictEqual(failure(price({ notional_amount: Money.unsafe("5000001") })), "corridor_capacity_exceeded")
      assert.strictEqual(price({ notional_amount: Money.unsafe("5000000") }).status, "created")
    })
    describe("corridor limits", () => {
      const corridor = (patch: Partial<CorridorLimit.CorridorLimit>) => ({
        ...CorridorLimit.unset("sandbox", "USD_TO_BRL"),
        ...patch
      })
      const withCorridor = (c: CorridorLimit.CorridorLimit, overrides: Partial<QuoteRequest.QuoteRequest> = {}) =>
        QuotePricer.price({
          request: request(overrides),
          market: illustrative,
          notionalLimits: MarketData.defaultNotionalLimits,
          corridor: c,
          now,
          policy,
          railSupported: true
        })
      it("fails corridor_capacity_exceeded exactly when the lock would take the corridor past max_open_notional", () => {
        const held = corridor({ maxOpenNotional: Money.unsafe("1000000"), openNotional: Money.unsafe("990000") })
        assert.strictEqual(withCorridor(held, { notional_amount: Money.unsafe("10000") }).status, "created")
        const over = withCorridor(held, { notional_amount: Money.unsafe("10000.000001") })
        assert.strictEqual(failure(over), "corridor_capacity_exceeded")
        // the partner is told nothing of what the corridor holds
        assert.notMatch(over.failureReason!.message, /[0-9]/)
        // a QUOTE notional counts as N_b = notional / locked rate: 54,100 BRL at 5.41 is 10,000 USD
        const inBrl = { notional_currency: "BRL", strike_mode: "live_spot" } as const
        assert.strictEqual(withCorridor(held, { ...inBrl, notional_amount: Money.unsafe("54100") }).status, "created")
        assert.strictEqual(
          failure(withCorridor(held, { ...inBrl, notional_amount: Money.unsafe("54100.01") })),
          "corridor_capacity_exceeded"
        )
      })
      it("max_net_delta holds the corridor's delta bound, its open notional, the same way", () => {
        const held = corridor({ maxNetDelta: Money.unsafe("20000"), openNotional: Money.unsafe("10000") })
        assert.strictEqual(withCorridor(held, { notional_amount: Money.unsafe("10000") }).status, "created")
        assert.strictEqual(
          failure(withCorridor(held, { notional_amount: Money.unsafe("10000.01") })),
          "corridor_capacity_exceeded"
        )
        // a limit lowered below what is held refuses every lock
        const lowered = corridor({ maxOpenNotional: Money.unsafe("5000"), openNotional: Money.unsafe("10000") })
        assert.strictEqual(
          failure(withCorridor(lowered, { notional_amount: Money.unsafe("1") })),
          "corridor_capacity_exceeded"
        )
      })
      it("an operator's max_lock_notional replaces the table's, below or above it", () => {
        const lower = corridor({ maxLockNotional: Money.unsafe("20000") })
        assert.strictEqual(withCorridor(lower, { notional_amount: Money.unsafe("20000") }).status, "created")
        assert.strictEqual(
          failure(withCorridor(lower, { notional_amount: Money.unsafe("20000.01") })),
          "corridor_capacity_exceeded"
        )
        const higher = corridor({ maxLockNotional: Money.unsafe("8000000") })
        assert.strictEqual(withCorridor(higher, { notional_amount: Money.unsafe("8000000") }).status, "created")
        // unset: the table's 5,000,000 USD
        assert.strictEqual(
          failure(withCorridor(corridor({}), { notional_amount: Money.unsafe("5000001") })),
          "corridor_capacity_exceeded"
        )
      })
    })
    it("a token the chain does not have (EURC on polygon)", () => {
      assert.strictEqual(
        failure(price({ settlement_currency: "EURC", chain: "polygon" })),
        "unsupported_settlement_rail"
      )
    })
    it("a rail this deployment does not settle on (e.g. no token configured in production)", () => {
      assert.strictEqual(
        failure(price({ settlement_currency: "USDC", chain: "ethereum" }, illustrative, false)),
        "unsupported_settlement_rail"
      )
    })
    it("a cross fiat with no rate to convert", () => {
      const noEurBrl = illustrativeWith(now, (document) => {
        delete document.spot["EUR/BRL"]
      })
      assert.strictEqual(
        failure(price({ settlement_currency: "EURC", chain: "ethereum" }, inForce(noEurBrl))),
        "no_market_parameters"
      )
    })
  })
})
