/**
 * The quote pricer against pricing.md: every quote field and every failure reason.
 */
import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, DateTime, Option } from "effect"
import { type MarketData, Money, Pricing, QuotePolicy, QuotePricer, type QuoteRequest, RateCurve } from "@ratelock/core"
import { quoteRequest } from "./fixtures/quoteRequest.ts"

const now = DateTime.makeUnsafe("2026-11-23T12:00:00Z")
const later = (days: number) => DateTime.makeUnsafe(now.epochMilliseconds + days * 86_400_000)
const policy = QuotePolicy.defaults

const usdBrl: MarketData.CorridorParameters = {
  referenceRate: Money.unsafe("5.40"),
  volatility: 0.14,
  base: { currency: "USD", rate: 0.0375 },
  quote: { currency: "BRL", rate: 0.1425 },
  notionalLimitBase: Money.unsafe("5000000")
}

const request = (overrides: Partial<QuoteRequest.QuoteRequest> = {}) => quoteRequest(now, overrides)

const price = (
  overrides: Partial<QuoteRequest.QuoteRequest> = {},
  corridor: MarketData.CorridorParameters = usdBrl,
  fiatPerQuote: Option.Option<Money.Decimal> = Option.none(),
  railSupported = true
) =>
  QuotePricer.price({
    request: request(overrides),
    corridor: Option.some(corridor),
    fiatPerQuote,
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
    domesticRate: cont(usdBrl.quote as { currency: "BRL"; rate: number }, t2),
    foreignRate: cont(usdBrl.base as { currency: "USD"; rate: number }, t2),
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
    const q = price(
      {
        direction: "BRL_TO_USD",
        notional_currency: "BRL",
        strike_mode: "custom",
        target_strike: Money.unsafe("0.18518518518518"),
        provider_rate: Money.unsafe("0.1852"),
        market_rate: Money.unsafe("0.1852")
      },
      { ...usdBrl, referenceRate: Money.unsafe("0.185185"), base: usdBrl.quote, quote: usdBrl.base }
    )
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
    const capped = price({ contract_type: "forward", window_end: later(180) }, { ...usdBrl, volatility: 0.3 })
    assert.strictEqual(Money.format(capped.depositAmount!), "1000.000000")
    assert.isTrue(Money.equals(long.totalAmount, Money.sum(long.premiumAmount, long.depositAmount!)))
    const tiny = price({ contract_type: "forward", notional_amount: Money.unsafe("10"), strike_mode: "live_spot" })
    assert.strictEqual(Money.format(tiny.premiumAmount), "1.000000")
  })

  it("strike_advantage_bps = floor(10⁴ × (locked / provider − 1)), never below 0", () => {
    assert.strictEqual(price({ strike_mode: "live_spot" }).strikeAdvantageBps, 18) // 5.41 / 5.40 − 1 = 18.5 bp
    assert.strictEqual(price({ strike_mode: "live_spot", provider_rate: Money.unsafe("5.50") }).strikeAdvantageBps, 0)
  })

  it("a cross settlement fiat converts at the market-data rate", () => {
    const eurPerBrl = Money.unsafe("0.16")
    const q = price(
      { strike_mode: "live_spot", settlement_currency: "EURC", chain: "ethereum" },
      usdBrl,
      Option.some(eurPerBrl)
    )
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
      const q = QuotePricer.price({
        request: request(),
        corridor: Option.none(),
        fiatPerQuote: Option.none(),
        railSupported: true,
        now,
        policy
      })
      assert.strictEqual(failure(q), "no_market_parameters")
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
    it("notional above the corridor limit", () => {
      assert.strictEqual(failure(price({ notional_amount: Money.unsafe("5000001") })), "notional_above_limit")
      assert.strictEqual(price({ notional_amount: Money.unsafe("5000000") }).status, "created")
    })
    it("a token the chain does not have (EURC on polygon)", () => {
      assert.strictEqual(
        failure(price({ settlement_currency: "EURC", chain: "polygon" })),
        "unsupported_settlement_rail"
      )
    })
    it("a rail this deployment does not settle on (e.g. no token configured in production)", () => {
      assert.strictEqual(
        failure(price({ settlement_currency: "USDC", chain: "ethereum" }, usdBrl, Option.none(), false)),
        "unsupported_settlement_rail"
      )
    })
    it("a cross fiat with no rate to convert", () => {
      assert.strictEqual(failure(price({ settlement_currency: "EURC", chain: "ethereum" })), "no_market_parameters")
    })
  })
})
