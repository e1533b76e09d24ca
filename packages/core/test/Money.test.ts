import { assert, describe, it } from "@effect/vitest"
import { Money } from "@ratelock/core"
import { BigDecimal, Option, Schema } from "effect"
import fc from "fast-check"

const decimalString = fc.stringMatching(/^-?[0-9]+([.][0-9]+)?$/)

/** The canonical spelling of a decimal string: no superfluous leading zeros, no `-` on a zero. */
const canonical = (s: string): string => {
  const negative = s.startsWith("-")
  const body = negative ? s.slice(1) : s
  const [int = "", frac] = body.split(".")
  const trimmed = int.replace(/^0+(?=[0-9])/, "")
  const isZero = /^0*$/.test(int) && (frac === undefined || /^0*$/.test(frac))
  return `${negative && !isZero ? "-" : ""}${trimmed}${frac === undefined ? "" : `.${frac}`}`
}

/** Any decimal value, including negative and non-positive scales. */
const anyDecimal = fc
  .tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: -40, max: 40 }))
  .map(([v, s]) => BigDecimal.make(v, s))

const parsed = (s: string): Money.Decimal => {
  const p = Money.parse(s)
  if (Option.isNone(p)) return assert.fail(`${JSON.stringify(s)} did not parse`)
  return p.value
}

const pow10 = (k: number): Money.Decimal => BigDecimal.make(1n, -k)

describe("Money", () => {
  describe("parse and format", () => {
    it("formats with the value's scale", () => {
      assert.strictEqual(Money.format(BigDecimal.make(1n, 6)), "0.000001")
      assert.strictEqual(Money.format(BigDecimal.make(150n, 2)), "1.50")
      assert.strictEqual(Money.format(BigDecimal.make(-5n, 3)), "-0.005")
      assert.strictEqual(Money.format(BigDecimal.make(-12345n, 2)), "-123.45")
      assert.strictEqual(Money.format(BigDecimal.make(12n, -2)), "1200")
      assert.strictEqual(Money.format(BigDecimal.make(0n, 6)), "0.000000")
      assert.strictEqual(Money.format(Money.unsafe("5.4424")), "5.4424")
      assert.strictEqual(Money.format(Money.zero), "0")
    })

    it("never uses exponent notation, even for tiny and huge values", () => {
      assert.strictEqual(Money.format(BigDecimal.make(1n, 30)), `0.${"0".repeat(29)}1`)
      assert.strictEqual(Money.format(BigDecimal.make(1n, -30)), `1${"0".repeat(30)}`)
      assert.strictEqual(Money.format(BigDecimal.make(-1n, 30)), `-0.${"0".repeat(29)}1`)
      assert.strictEqual(Money.format(BigDecimal.make(-7n, -25)), `-7${"0".repeat(25)}`)
      fc.assert(
        fc.property(anyDecimal, (x) => {
          const s = Money.format(x)
          assert.notMatch(s, /[eE]/)
          assert.match(s, Money.decimalPattern)
        })
      )
    })

    it("format(parse(s)) gives s back, up to leading zeros (and the sign of zero)", () => {
      assert.strictEqual(Money.format(parsed("007.50")), "7.50")
      assert.strictEqual(Money.format(parsed("-000")), "0")
      assert.strictEqual(Money.format(parsed("-0.000")), "0.000")
      assert.strictEqual(Money.format(parsed("0.0001000")), "0.0001000")
      fc.assert(
        fc.property(decimalString, (s) => {
          assert.strictEqual(Money.format(parsed(s)), canonical(s))
          if (canonical(s) === s) assert.strictEqual(Money.format(parsed(s)), s)
        }),
        { numRuns: 1000 }
      )
    })

    it("parse(format(x)) equals x", () => {
      fc.assert(
        fc.property(decimalString, (s) => {
          const x = parsed(s)
          const back = parsed(Money.format(x))
          assert.isTrue(Money.equals(back, x))
          assert.strictEqual(back.scale, x.scale)
        }),
        { numRuns: 1000 }
      )
      fc.assert(
        fc.property(anyDecimal, (x) => {
          assert.isTrue(Money.equals(parsed(Money.format(x)), x))
        })
      )
    })

    it("parse rejects exponents, a leading +, a bare point and whitespace", () => {
      for (const s of [
        "1e5",
        "1E5",
        "+1",
        ".5",
        "1.",
        "",
        " 1",
        "1 ",
        "-",
        "1.2.3",
        "0x10",
        "1,5",
        "- 1",
        "--1",
        "Infinity",
        "NaN"
      ]) {
        assert.isTrue(Option.isNone(Money.parse(s)), JSON.stringify(s))
        assert.throws(() => Money.unsafe(s))
      }
    })

    it("parse keeps the written scale", () => {
      const x = parsed("1.500")
      assert.strictEqual(x.value, 1500n)
      assert.strictEqual(x.scale, 3)
    })

    it("formatFixed rounds half away from zero", () => {
      assert.strictEqual(Money.formatFixed(Money.unsafe("1.2345"), 2), "1.23")
      assert.strictEqual(Money.formatFixed(Money.unsafe("1.235"), 2), "1.24")
      assert.strictEqual(Money.formatFixed(Money.unsafe("-1.235"), 2), "-1.24")
      assert.strictEqual(Money.formatFixed(Money.unsafe("1.5"), 4), "1.5000")
    })

    it("DecimalString decodes a decimal string and encodes it with the same scale", () => {
      const decode = Schema.decodeUnknownSync(Money.DecimalString)
      const encode = Schema.encodeSync(Money.DecimalString)
      assert.strictEqual(encode(decode("5.4424")), "5.4424")
      assert.strictEqual(encode(decode("100.000000")), "100.000000")
      assert.strictEqual(encode(BigDecimal.make(1n, 30)), `0.${"0".repeat(29)}1`)
      for (const bad of ["1e5", "+1", ".5", "1.", ""]) assert.throws(() => decode(bad))
    })
  })

  describe("rounding", () => {
    const scale = fc.integer({ min: 0, max: 12 })

    it("roundUp is ≥ the value and less than one unit above, at the requested scale", () => {
      fc.assert(
        fc.property(anyDecimal, scale, (x, k) => {
          const up = Money.roundUp(x, k)
          assert.strictEqual(up.scale, k)
          assert.isTrue(BigDecimal.isGreaterThanOrEqualTo(up, x))
          assert.isTrue(BigDecimal.isLessThan(Money.subtract(up, x), pow10(-k)))
        }),
        { numRuns: 1000 }
      )
    })

    it("roundDown is ≤ the value and less than one unit below, at the requested scale", () => {
      fc.assert(
        fc.property(anyDecimal, scale, (x, k) => {
          const down = Money.roundDown(x, k)
          assert.strictEqual(down.scale, k)
          assert.isTrue(BigDecimal.isLessThanOrEqualTo(down, x))
          assert.isTrue(BigDecimal.isLessThan(Money.subtract(x, down), pow10(-k)))
        }),
        { numRuns: 1000 }
      )
    })

    it("rounds to the token's 6 decimals by default, towards +∞ / −∞", () => {
      assert.strictEqual(Money.format(Money.roundUp(Money.unsafe("1.2345671"))), "1.234568")
      assert.strictEqual(Money.format(Money.roundDown(Money.unsafe("1.2345679"))), "1.234567")
      assert.strictEqual(Money.format(Money.roundUp(Money.unsafe("-1.2345679"))), "-1.234567")
      assert.strictEqual(Money.format(Money.roundDown(Money.unsafe("-1.2345671"))), "-1.234568")
      assert.strictEqual(Money.format(Money.roundUp(Money.unsafe("2"))), "2.000000")
      assert.strictEqual(Money.format(Money.roundDown(Money.unsafe("2.5"))), "2.500000")
      assert.strictEqual(Money.format(Money.roundUp(Money.unsafe("0.0000001"))), "0.000001")
      assert.strictEqual(Money.format(Money.roundDown(Money.unsafe("0.0000009"))), "0.000000")
    })

    it("a value already at the scale is unchanged by both", () => {
      fc.assert(
        fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), scale, (v, k) => {
          const x = BigDecimal.make(v, k)
          assert.isTrue(Money.equals(Money.roundUp(x, k), x))
          assert.isTrue(Money.equals(Money.roundDown(x, k), x))
        })
      )
    })
  })

  describe("base units", () => {
    it("toBaseUnits(fromBaseUnits(n)) == n", () => {
      fc.assert(
        fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }), (n, k) => {
          assert.strictEqual(Money.toBaseUnits(Money.fromBaseUnits(n, k), k), n)
          assert.strictEqual(Money.toBaseUnits(Money.fromBaseUnits(n)), n)
        })
      )
    })

    it("converts with 6 decimals by default and rounds down", () => {
      assert.strictEqual(Money.toBaseUnits(Money.unsafe("1.5")), 1_500_000n)
      assert.strictEqual(Money.toBaseUnits(Money.unsafe("1.0000009")), 1_000_000n)
      assert.strictEqual(Money.toBaseUnits(Money.unsafe("-1.0000001")), -1_000_001n)
      assert.strictEqual(Money.toBaseUnits(Money.unsafe("3"), 18), 3n * 10n ** 18n)
      assert.strictEqual(Money.format(Money.fromBaseUnits(622_633_407n)), "622.633407")
    })
  })

  describe("roundDownSignificant", () => {
    it("keeps the requested significant digits, rounding towards −∞", () => {
      const cases: ReadonlyArray<readonly [string, number, string]> = [
        ["5.44247", 4, "5.442"],
        ["5.44247", 10, "5.44247"],
        ["0.18374912", 3, "0.183"],
        ["0.000123456789", 4, "0.0001234"],
        ["123.456", 2, "120"],
        ["123.456", 3, "123"],
        ["98765", 1, "90000"],
        ["1", 10, "1"],
        ["-0.18374", 2, "-0.19"],
        ["-123.456", 2, "-130"]
      ]
      for (const [input, significant, expected] of cases) {
        const got = Money.roundDownSignificant(Money.unsafe(input), significant)
        assert.isTrue(Money.equals(got, Money.unsafe(expected)), `${input}@${significant}: ${Money.format(got)}`)
      }
      assert.isTrue(Money.isZero(Money.roundDownSignificant(Money.zero, 5)))
      assert.isTrue(Money.isZero(Money.roundDownSignificant(BigDecimal.make(0n, 8), 5)))
    })

    it("is ≤ the value, within one unit of its last kept digit, with at most that many digits", () => {
      fc.assert(
        fc.property(
          fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).filter((v) => v !== 0n),
          fc.integer({ min: -15, max: 15 }),
          fc.integer({ min: 1, max: 12 }),
          (v, s, significant) => {
            const x = BigDecimal.make(v, s)
            const got = Money.roundDownSignificant(x, significant)
            assert.isTrue(BigDecimal.isLessThanOrEqualTo(got, x))
            // the leading digit of x is at 10^(digits − scale − 1) of its normalised form
            const n = BigDecimal.normalize(x)
            const digits = (n.value < 0n ? -n.value : n.value).toString().length
            const unitExponent = digits - n.scale - significant // last kept digit at 10^unitExponent
            assert.isTrue(BigDecimal.isLessThan(Money.subtract(x, got), pow10(unitExponent)))
            const g = BigDecimal.normalize(got)
            assert.isAtMost((g.value < 0n ? -g.value : g.value).toString().length, significant)
          }
        ),
        { numRuns: 1000 }
      )
    })
  })
})
