/**
 * The hedging decision: none inside the band; outside it exactly the order that brings the position
 * back to target (within half an order unit, so within the band); signs as risk.md fixes them; the
 * share of the delta the policy asks for; value dates; and the policy's own rules.
 */
import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, DateTime, Option, Result, Schema } from "effect"
import fc from "fast-check"
import { HedgePolicy, Money } from "@ratelock/core"

const d = Money.unsafe
const monday = DateTime.makeUnsafe("2026-11-23T15:00:00Z")

const policy = (overrides: Partial<HedgePolicy.HedgePolicy> = {}): HedgePolicy.HedgePolicy => ({
  environment: "production",
  pair: "USD/BRL",
  targetRatio: d("1"),
  band: d("50000"),
  instrument: "spot",
  valueDays: null,
  updatedAt: monday,
  ...overrides
})

/** A decimal from integer hundred-thousandths: amounts with more decimals than an order carries. */
const decimal = (min: number, max: number) => fc.integer({ min, max }).map((n) => BigDecimal.make(BigInt(n), 5))

const signed = (intent: HedgePolicy.Intent) =>
  intent.side === "buy" ? intent.amount : Money.subtract(Money.zero, intent.amount)

const abs = BigDecimal.abs
const halfUnit = d("0.005")

describe("HedgePolicy.decide", () => {
  it("inside the band places nothing", () => {
    fc.assert(
      fc.property(decimal(-1e12, 1e12), decimal(0, 1e11), decimal(100, 1e11), (delta, offset, band) => {
        const p = policy({ band })
        const goal = HedgePolicy.target(delta, p)
        // a position at most the band away from the target, on either side
        const within = BigDecimal.min(offset, band)
        for (const position of [Money.sum(goal, within), Money.subtract(goal, within)]) {
          assert.isTrue(Option.isNone(HedgePolicy.decide({ delta, position, policy: p, now: monday })))
        }
      })
    )
  })

  it("outside the band: the order moves the position to target within half an order unit, so within the band", () => {
    fc.assert(
      fc.property(
        decimal(-1e12, 1e12),
        decimal(-1e12, 1e12),
        decimal(1000, 1e10),
        fc.integer({ min: 0, max: 100 }),
        (delta, position, band, percent) => {
          const p = policy({ band, targetRatio: BigDecimal.make(BigInt(percent), 2) })
          const goal = HedgePolicy.target(delta, p)
          const gap = Money.subtract(goal, position)
          const intent = HedgePolicy.decide({ delta, position, policy: p, now: monday })
          if (!Money.greaterThan(abs(gap), band)) return assert.isTrue(Option.isNone(intent))
          const order = Option.getOrThrow(intent)
          assert.isTrue(Money.isPositive(order.amount))
          assert.strictEqual(order.amount.scale, HedgePolicy.orderDecimals)
          assert.strictEqual(order.side, Money.isPositive(gap) ? "buy" : "sell")
          const after = Money.sum(position, signed(order))
          const left = abs(Money.subtract(goal, after))
          assert.isFalse(Money.greaterThan(left, halfUnit), `${Money.format(left)} left from target`)
          assert.isFalse(Money.greaterThan(left, band))
          assert.isTrue(Money.equals(order.target, goal))
        }
      )
    )
  })

  it("a full hedge (ratio 1) leaves the residual delta within the band", () => {
    fc.assert(
      fc.property(decimal(-1e12, 1e12), decimal(-1e12, 1e12), decimal(1000, 1e10), (delta, position, band) => {
        const p = policy({ band })
        const intent = HedgePolicy.decide({ delta, position, policy: p, now: monday })
        const after = Option.match(intent, { onNone: () => position, onSome: (o) => Money.sum(position, signed(o)) })
        assert.isFalse(Money.greaterThan(abs(HedgePolicy.residual(delta, after)), band))
      })
    )
  })

  it("signs: a book of short puts (delta > 0) sells BASE; a negative delta buys it; the target offsets the delta", () => {
    const sell = Option.getOrThrow(
      HedgePolicy.decide({ delta: d("120000"), position: Money.zero, policy: policy(), now: monday })
    )
    assert.deepStrictEqual(
      [sell.side, Money.format(sell.amount), Money.format(sell.target)],
      ["sell", "120000.00", "-120000"]
    )
    const buy = Option.getOrThrow(
      HedgePolicy.decide({ delta: d("-75000.456"), position: Money.zero, policy: policy(), now: monday })
    )
    assert.deepStrictEqual([buy.side, Money.format(buy.amount)], ["buy", "75000.46"])
    // already short 100,000 against a delta of 160,000: sell the 60,000 more
    const more = Option.getOrThrow(
      HedgePolicy.decide({ delta: d("160000"), position: d("-100000"), policy: policy(), now: monday })
    )
    assert.deepStrictEqual([more.side, Money.format(more.amount)], ["sell", "60000.00"])
    // the book shrank: buy back what is now too much
    const back = Option.getOrThrow(
      HedgePolicy.decide({ delta: d("20000"), position: d("-100000"), policy: policy(), now: monday })
    )
    assert.deepStrictEqual([back.side, Money.format(back.amount)], ["buy", "80000.00"])
    assert.strictEqual(Money.format(HedgePolicy.residual(d("20000"), d("-100000"))), "-80000")
  })

  it("target_ratio: half the delta is hedged, and zero hedges nothing (unwinding any position)", () => {
    const half = Option.getOrThrow(
      HedgePolicy.decide({
        delta: d("300000"),
        position: Money.zero,
        policy: policy({ targetRatio: d("0.5") }),
        now: monday
      })
    )
    assert.deepStrictEqual([half.side, Money.format(half.amount)], ["sell", "150000.00"])
    assert.isTrue(
      Option.isNone(
        HedgePolicy.decide({
          delta: d("300000"),
          position: Money.zero,
          policy: policy({ targetRatio: d("0") }),
          now: monday
        })
      )
    )
    const unwind = Option.getOrThrow(
      HedgePolicy.decide({
        delta: d("300000"),
        position: d("-300000"),
        policy: policy({ targetRatio: d("0") }),
        now: monday
      })
    )
    assert.deepStrictEqual([unwind.side, Money.format(unwind.amount)], ["buy", "300000.00"])
  })

  it("exactly at the band is inside it; the narrowest band still lands every order inside it", () => {
    assert.isTrue(
      Option.isNone(HedgePolicy.decide({ delta: d("50000"), position: Money.zero, policy: policy(), now: monday }))
    )
    assert.isTrue(
      Option.isSome(HedgePolicy.decide({ delta: d("50000.001"), position: Money.zero, policy: policy(), now: monday }))
    )
    const narrow = policy({ band: d("0.01") })
    const small = Option.getOrThrow(
      HedgePolicy.decide({ delta: d("0.016"), position: Money.zero, policy: narrow, now: monday })
    )
    assert.deepStrictEqual([small.side, Money.format(small.amount)], ["sell", "0.02"])
  })

  it("value dates: spot two weekdays on, forwards their days on and off weekends", () => {
    const friday = DateTime.makeUnsafe("2026-11-27T22:30:00Z")
    assert.strictEqual(HedgePolicy.valueDate({ instrument: "spot", valueDays: null }, monday), "2026-11-25")
    assert.strictEqual(HedgePolicy.valueDate({ instrument: "spot", valueDays: null }, friday), "2026-12-01")
    assert.strictEqual(HedgePolicy.valueDate({ instrument: "forward", valueDays: 30 }, monday), "2026-12-23")
    // 33 days from Monday 23 November is Saturday 26 December: Monday 28
    assert.strictEqual(HedgePolicy.valueDate({ instrument: "forward", valueDays: 33 }, monday), "2026-12-28")
    const forward = Option.getOrThrow(
      HedgePolicy.decide({
        delta: d("100000"),
        position: Money.zero,
        policy: policy({ instrument: "forward", valueDays: 30 }),
        now: monday
      })
    )
    assert.deepStrictEqual([forward.instrument, forward.valueDate], ["forward", "2026-12-23"])
  })
})

describe("HedgePolicy schema", () => {
  const decode = Schema.decodeUnknownResult(HedgePolicy.HedgePolicy)
  const refused = (overrides: Record<string, unknown>) => Result.isFailure(decode({ ...policy(), ...overrides }))

  it("takes a valid spot and forward policy", () => {
    assert.isTrue(Result.isSuccess(decode(policy())))
    assert.isTrue(Result.isSuccess(decode(policy({ instrument: "forward", valueDays: 90 }))))
  })

  it("refuses a ratio outside 0..1, a band below one order unit, an unknown or inverted pair, mismatched value days", () => {
    assert.isTrue(refused({ targetRatio: d("1.5") }))
    assert.isTrue(refused({ targetRatio: d("-0.1") }))
    assert.isTrue(refused({ band: d("0.001") }))
    assert.isTrue(refused({ pair: "BRL/USD" }))
    assert.isTrue(refused({ pair: "GBP/USD" }))
    assert.isTrue(refused({ instrument: "forward", valueDays: null }))
    assert.isTrue(refused({ instrument: "spot", valueDays: 30 }))
    assert.isTrue(refused({ instrument: "forward", valueDays: 400 }))
  })
})
