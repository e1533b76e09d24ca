import { assert, describe, it } from "@effect/vitest"
import { Corridor, Money, Settlement } from "@ratelock/core"
import { BigDecimal } from "effect"
import fc from "fast-check"

const d = Money.unsafe

const lock = (overrides: Partial<Settlement.Lock> = {}): Settlement.Lock => ({
  direction: "USD_TO_BRL",
  notionalCurrency: "USD",
  notionalAmount: d("10000"),
  maxTransactionAmount: d("10000"),
  lockedRate: d("5.4424"),
  ...overrides
})

const assertDecimal = (actual: Money.Decimal, expected: string) =>
  assert.isTrue(Money.equals(actual, d(expected)), `${Money.format(actual)} != ${expected}`)

// ---------------------------------------------------------------------------------------------
// Exact rational arithmetic, independent of Money/BigDecimal division, to check against.
// ---------------------------------------------------------------------------------------------

interface Rational {
  readonly n: bigint
  readonly d: bigint // > 0
}

const ten = (k: number): bigint => 10n ** BigInt(k)
const q = (x: Money.Decimal): Rational =>
  x.scale >= 0 ? { n: x.value, d: ten(x.scale) } : { n: x.value * ten(-x.scale), d: 1n }
const mul = (a: Rational, b: Rational): Rational => ({ n: a.n * b.n, d: a.d * b.d })
const div = (a: Rational, b: Rational): Rational =>
  b.n < 0n ? { n: -a.n * b.d, d: a.d * -b.n } : { n: a.n * b.d, d: a.d * b.n }
const sub = (a: Rational, b: Rational): Rational => ({ n: a.n * b.d - b.n * a.d, d: a.d * b.d })
const cmp = (a: Rational, b: Rational): number => {
  const l = a.n * b.d
  const r = b.n * a.d
  return l < r ? -1 : l > r ? 1 : 0
}
const rmin = (a: Rational, b: Rational) => (cmp(a, b) <= 0 ? a : b)
const rmax = (a: Rational, b: Rational) => (cmp(a, b) >= 0 ? a : b)
const ZERO: Rational = { n: 0n, d: 1n }
/** floor(r × 10^6), in micro-units. */
const floorMicros = (r: Rational): bigint => {
  const num = r.n * ten(6)
  const quotient = num / r.d
  return num % r.d !== 0n && num < 0n ? quotient - 1n : quotient
}

const convertExact = (x: Rational, conversion: Settlement.Conversion): Rational => {
  switch (conversion._tag) {
    case "Identity":
      return x
    case "FromBase":
      return div(x, q(conversion.liveExecutionRate))
    case "Cross":
      return mul(x, q(conversion.fiatPerQuote))
  }
}

/** `N_b`, exactly. */
const notionalBaseExact = (l: Settlement.Lock): Rational => {
  const covered = rmin(q(l.notionalAmount), q(l.maxTransactionAmount))
  return l.notionalCurrency === Corridor.pair(l.direction).base ? covered : div(covered, q(l.lockedRate))
}

/** The payout the spec defines, as an exact rational (before rounding). */
const exactPayout = (l: Settlement.Lock, live: Money.Decimal, conversion: Settlement.Conversion): Rational =>
  convertExact(mul(notionalBaseExact(l), rmax(ZERO, sub(q(l.lockedRate), q(live)))), conversion)

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

const decimal = (min: bigint, max: bigint, maxScale: number) =>
  fc.tuple(fc.bigInt({ min, max }), fc.integer({ min: 0, max: maxScale })).map(([v, s]) => BigDecimal.make(v, s))

/** A positive rate with up to 10 decimals, from 1e-10 to 1e6. */
const rate = decimal(1n, 10n ** 16n, 10).filter((r) => BigDecimal.isLessThanOrEqualTo(r, BigDecimal.make(10n ** 6n, 0)))

/** A positive notional with up to 10 decimals, up to 1e12. */
const notional = decimal(1n, 10n ** 16n, 10).filter((r) =>
  BigDecimal.isLessThanOrEqualTo(r, BigDecimal.make(10n ** 12n, 0))
)

const scenario = fc
  .record({
    direction: fc.constantFrom(...Corridor.directions),
    notionalInBase: fc.boolean(),
    notionalAmount: notional,
    cap: fc.oneof(fc.constant<"same">("same"), notional),
    lockedRate: rate,
    // a live rate either independent of the locked one, or a fraction of it (so it is below)
    live: fc.oneof(
      rate.map((r) => ({ _tag: "Free" as const, rate: r })),
      fc.integer({ min: 1, max: 10_000 }).map((m) => ({ _tag: "Below" as const, m }))
    ),
    conversion: fc.oneof(
      fc.constant<"Identity">("Identity"),
      fc.constant<"FromBase">("FromBase"),
      rate.map((fiatPerQuote) => ({ _tag: "Cross" as const, fiatPerQuote }))
    )
  })
  .map((s) => {
    const { base, quote } = Corridor.pair(s.direction)
    const l: Settlement.Lock = {
      direction: s.direction,
      notionalCurrency: s.notionalInBase ? base : quote,
      notionalAmount: s.notionalAmount,
      maxTransactionAmount: s.cap === "same" ? s.notionalAmount : s.cap,
      lockedRate: s.lockedRate
    }
    const live =
      s.live._tag === "Free" ? s.live.rate : BigDecimal.multiply(s.lockedRate, BigDecimal.make(BigInt(s.live.m), 4))
    const conversion: Settlement.Conversion =
      s.conversion === "Identity"
        ? { _tag: "Identity" }
        : s.conversion === "FromBase"
          ? { _tag: "FromBase", liveExecutionRate: live }
          : s.conversion
    return { lock: l, live, conversion }
  })

/**
 * A case where the exact payout lands on a whole micro-unit: BRL_TO_USD, 1000 USD (QUOTE) at
 * K = 0.1875, live 0.18 → N_b = 5333.33… BRL, delta = 40 USD exactly, payout 40.000000.
 */
const onTheMicro = {
  lock: lock({
    direction: "BRL_TO_USD",
    notionalCurrency: "USD",
    notionalAmount: d("1000"),
    maxTransactionAmount: d("1000"),
    lockedRate: d("0.1875")
  }),
  live: d("0.18"),
  conversion: { _tag: "Identity" } as Settlement.Conversion
}

const runs = { numRuns: 500, examples: [[onTheMicro]] as Array<[typeof onTheMicro]> }

describe("Settlement", () => {
  describe("examples", () => {
    it("pricing.md: 10,000 USD on USD_TO_BRL, 5.4424 → 5.1234 pays 3,190 BRL = 622.633407 USDC", () => {
      const live = d("5.1234")
      const p = Settlement.payout(lock(), live, { _tag: "FromBase", liveExecutionRate: live })
      assertDecimal(p.fxDeltaInQuoteCurrency, "3190")
      assert.strictEqual(Money.format(p.amount), "622.633407")
    })

    it("conversionFor picks FromBase for a USD payout on USD_TO_BRL", () => {
      const live = d("5.1234")
      const conversion = Settlement.conversionFor("USD_TO_BRL", "USD", live)
      assert.deepStrictEqual(conversion, { _tag: "FromBase", liveExecutionRate: live })
      assert.deepStrictEqual(Settlement.conversionFor("USD_TO_BRL", "BRL", live), { _tag: "Identity" })
      assert.strictEqual(Settlement.conversionFor("USD_TO_BRL", "EUR", live), "needs_cross_rate")
      assert.deepStrictEqual(Settlement.conversionFor("BRL_TO_USD", "USD", live), { _tag: "Identity" })
    })

    it("a notional in QUOTE (BRL) is divided by the locked rate", () => {
      const l = lock({ notionalCurrency: "BRL", notionalAmount: d("54424"), maxTransactionAmount: d("54424") })
      assertDecimal(Settlement.notionalBase(l), "10000")
      const live = d("5.1234")
      const p = Settlement.payout(l, live, { _tag: "FromBase", liveExecutionRate: live })
      assertDecimal(p.fxDeltaInQuoteCurrency, "3190")
      assert.strictEqual(Money.format(p.amount), "622.633407")
    })

    it("caps the notional at max_transaction_amount (BASE and QUOTE notionals)", () => {
      const live = d("5.1234")
      const fromBase: Settlement.Conversion = { _tag: "FromBase", liveExecutionRate: live }
      const inBase = lock({ notionalAmount: d("25000"), maxTransactionAmount: d("10000") })
      assertDecimal(Settlement.notionalBase(inBase), "10000")
      assert.strictEqual(Money.format(Settlement.payout(inBase, live, fromBase).amount), "622.633407")
      const inQuote = lock({ notionalCurrency: "BRL", notionalAmount: d("108848"), maxTransactionAmount: d("54424") })
      assertDecimal(Settlement.notionalBase(inQuote), "10000")
      assert.strictEqual(Money.format(Settlement.payout(inQuote, live, fromBase).amount), "622.633407")
      // a cap above the notional changes nothing
      const loose = lock({ maxTransactionAmount: d("50000") })
      assert.strictEqual(Money.format(Settlement.payout(loose, live, fromBase).amount), "622.633407")
    })

    it("pays zero when the live rate is at or above the locked rate", () => {
      for (const live of ["5.4424", "5.44240001", "5.6", "100"]) {
        const p = Settlement.payout(lock(), d(live), { _tag: "FromBase", liveExecutionRate: d(live) })
        assertDecimal(p.fxDeltaInQuoteCurrency, "0")
        assert.strictEqual(Money.format(p.amount), "0.000000")
      }
    })

    it("pays the delta as is when QUOTE is the settlement fiat", () => {
      // BRL_TO_USD, 50,000 BRL at K = 0.1850, live 0.1800 → 50,000 × 0.005 = 250 USD
      const l = lock({
        direction: "BRL_TO_USD",
        notionalCurrency: "BRL",
        notionalAmount: d("50000"),
        maxTransactionAmount: d("50000"),
        lockedRate: d("0.1850")
      })
      const p = Settlement.payout(l, d("0.1800"), { _tag: "Identity" })
      assertDecimal(p.fxDeltaInQuoteCurrency, "250")
      assert.strictEqual(Money.format(p.amount), "250.000000")
    })

    it("converts through a cross rate", () => {
      // BRL_TO_MXN paid in EURC: 100,000 BRL, 3.43 → 3.40 = 3,000 MXN × 0.05 EUR/MXN = 150 EUR
      const l = lock({
        direction: "BRL_TO_MXN",
        notionalCurrency: "BRL",
        notionalAmount: d("100000"),
        maxTransactionAmount: d("100000"),
        lockedRate: d("3.43")
      })
      const p = Settlement.payout(l, d("3.40"), { _tag: "Cross", fiatPerQuote: d("0.05") })
      assertDecimal(p.fxDeltaInQuoteCurrency, "3000")
      assert.strictEqual(Money.format(p.amount), "150.000000")
    })

    it("rounds down to 6 decimals", () => {
      // 1 USD on USD_TO_BRL, 3 → 2: delta 1 BRL × 0.6666669 = 0.6666669
      const l = lock({ notionalAmount: d("1"), maxTransactionAmount: d("1"), lockedRate: d("3") })
      const p = Settlement.payout(l, d("2"), { _tag: "Cross", fiatPerQuote: d("0.6666669") })
      assert.strictEqual(Money.format(p.amount), "0.666666")
      // K = 3.5, live 3: delta 0.5 BRL, / 3 = 0.1666… USD
      const l2 = lock({ notionalAmount: d("1"), maxTransactionAmount: d("1"), lockedRate: d("3.5") })
      const p2 = Settlement.payout(l2, d("3"), { _tag: "FromBase", liveExecutionRate: d("3") })
      assert.strictEqual(Money.format(p2.amount), "0.166666")
    })

    // Guards the delta as one exact fraction (src/Settlement.ts deltaFraction): with a notional in
    // QUOTE, dividing `notional / locked_rate` first would cut it at 100 significant digits before
    // the multiplication, and a delta of exactly 40 would come out as 39.99…975.
    it("keeps the fx delta exact when the notional is in QUOTE (1000 USD / 0.1875 × 0.0075 = 40)", () => {
      const p = Settlement.payout(onTheMicro.lock, onTheMicro.live, onTheMicro.conversion)
      assertDecimal(p.fxDeltaInQuoteCurrency, "40")
    })

    // Guards the same: a delta cut short would be rounded down to 39.999999, one micro-unit under
    // the exact payout.
    it("does not round a whole-micro payout below its exact value (40.000000)", () => {
      const p = Settlement.payout(onTheMicro.lock, onTheMicro.live, onTheMicro.conversion)
      assert.strictEqual(Money.format(p.amount), "40.000000")
    })
  })

  describe("properties", () => {
    it("the payout is never negative and has exactly 6 decimals", () => {
      fc.assert(
        fc.property(scenario, ({ conversion, live, lock: l }) => {
          const p = Settlement.payout(l, live, conversion)
          assert.strictEqual(p.amount.scale, 6)
          assert.isFalse(Money.isNegative(p.amount))
          assert.isFalse(Money.isNegative(p.fxDeltaInQuoteCurrency))
        }),
        runs
      )
    })

    it("the payout is zero whenever the live rate is at or above the locked rate", () => {
      fc.assert(
        fc.property(scenario, ({ conversion, live, lock: l }) => {
          fc.pre(!BigDecimal.isLessThan(live, l.lockedRate))
          const p = Settlement.payout(l, live, conversion)
          assert.isTrue(Money.isZero(p.amount))
          assert.isTrue(Money.isZero(p.fxDeltaInQuoteCurrency))
        }),
        { numRuns: 200 }
      )
    })

    it("the payout never exceeds N_b × K converted the same way, rounded down", () => {
      fc.assert(
        fc.property(scenario, ({ conversion, live, lock: l }) => {
          const p = Settlement.payout(l, live, conversion)
          const bound = floorMicros(convertExact(mul(notionalBaseExact(l), q(l.lockedRate)), conversion))
          assert.isTrue(p.amount.value <= bound, `${Money.format(p.amount)} above the bound ${bound} micro-units`)
        }),
        runs
      )
    })

    // Always runs the `onTheMicro` example too, where a delta divided too early pays one micro-unit short.
    it("the payout is the exact value rounded down: ≤ exact and exact − payout < 0.000001", () => {
      fc.assert(
        fc.property(scenario, ({ conversion, live, lock: l }) => {
          const p = Settlement.payout(l, live, conversion)
          const exact = exactPayout(l, live, conversion)
          const paid = q(p.amount)
          assert.isTrue(cmp(paid, exact) <= 0, `paid ${Money.format(p.amount)} above the exact value`)
          const gap = sub(exact, paid)
          assert.isTrue(
            cmp(gap, { n: 1n, d: ten(6) }) < 0,
            `paid ${Money.format(p.amount)}, ${floorMicros(exact)} micro-units owed`
          )
        }),
        runs
      )
    })
  })
})
