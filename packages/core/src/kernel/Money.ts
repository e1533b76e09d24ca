/**
 * Exact decimal money and rates on Effect's `BigDecimal`.
 *
 * Nothing here touches binary floating point except `fromModel`, the single place where a
 * float64 model output (an option value, a forward) becomes a decimal.
 */
import { BigDecimal, Option, Schema, type SchemaAST, SchemaTransformation } from "effect"
import { issueType } from "./ApiError.ts"

export type Decimal = BigDecimal.BigDecimal

/** The spec's decimal-string pattern: no exponent, no leading `+`, no bare `.` (`u`: so the OpenAPI document carries it). */
export const decimalPattern = /^-?[0-9]+([.][0-9]+)?$/u

/** Stablecoin amounts carry 6 decimals (USDC, USDT, EURC, BRLA). */
export const tokenScale = 6

export const zero: Decimal = BigDecimal.make(0n, 0)
export const one: Decimal = BigDecimal.make(1n, 0)

/** Parses a decimal string in the spec's pattern, keeping the scale it was written with. */
export const parse = (input: string): Option.Option<Decimal> =>
  decimalPattern.test(input) ? BigDecimal.fromString(input) : Option.none()

/** Parses a decimal string that is known to be valid (constants, tests). Throws otherwise. */
export const unsafe = (input: string): Decimal => {
  const parsed = parse(input)
  if (Option.isNone(parsed)) throw new Error(`not a decimal string: ${input}`)
  return parsed.value
}

/**
 * Formats with exactly the value's scale (at least 0 decimals), never in exponent notation:
 * `make(1n, 6)` → `"0.000001"`, `make(150n, 2)` → `"1.50"`.
 */
export const format = (value: Decimal): string => {
  if (value.scale <= 0) return (value.value * 10n ** BigInt(-value.scale)).toString()
  const negative = value.value < 0n
  const digits = (negative ? -value.value : value.value).toString().padStart(value.scale + 1, "0")
  const point = digits.length - value.scale
  return `${negative ? "-" : ""}${digits.slice(0, point)}.${digits.slice(point)}`
}

/** Formats with a fixed number of decimals, rounding half away from zero if it must shorten. */
export const formatFixed = (value: Decimal, decimals: number): string =>
  format(BigDecimal.round(value, { scale: decimals, mode: "half-from-zero" }))

/** Rounds up (towards +∞) to `scale` decimals: what a partner pays. */
export const roundUp = (value: Decimal, scale: number = tokenScale): Decimal =>
  BigDecimal.scale(BigDecimal.ceil(value, scale), scale)

/** Rounds down (towards −∞) to `scale` decimals: what the service pays. */
export const roundDown = (value: Decimal, scale: number = tokenScale): Decimal =>
  BigDecimal.scale(BigDecimal.floor(value, scale), scale)

/** Integer base units of a token (`1.5` USDC with 6 decimals → `1500000n`). Rounds down. */
export const toBaseUnits = (value: Decimal, decimals: number = tokenScale): bigint =>
  BigDecimal.scale(BigDecimal.floor(value, decimals), decimals).value

export const fromBaseUnits = (units: bigint, decimals: number = tokenScale): Decimal => BigDecimal.make(units, decimals)

/**
 * Exact division. `BigDecimal.divide` keeps 100 significant digits, far past any rounding we
 * apply afterwards; division by zero is a defect the callers rule out beforehand.
 */
export const divide = (dividend: Decimal, divisor: Decimal): Decimal => BigDecimal.divideUnsafe(dividend, divisor)

export const multiply = BigDecimal.multiply
export const sum = BigDecimal.sum
export const subtract = BigDecimal.subtract
export const max = BigDecimal.max
export const min = BigDecimal.min
export const isZero = BigDecimal.isZero
export const isPositive = BigDecimal.isPositive
export const isNegative = BigDecimal.isNegative
export const equals = BigDecimal.equals
export const lessThan = BigDecimal.isLessThan
export const greaterThan = BigDecimal.isGreaterThan

/** The one crossing from a float64 model output into an exact decimal (shortest round-trip digits). */
export const fromModel = (x: number): Decimal => {
  if (!Number.isFinite(x)) throw new Error(`model produced a non-finite value: ${x}`)
  return BigDecimal.fromNumberUnsafe(x)
}

/** Decimals of every reported model figure (the book's greeks and marks, a hedge's P&L). */
export const figureScale = 2

/** A model float as a reported figure: one crossing into a decimal, rounded half away from zero to 2 decimals. */
export const figure = (x: number): Decimal =>
  BigDecimal.round(fromModel(x), { scale: figureScale, mode: "half-from-zero" })

/** A decimal as a float64, for feeding the option model only (never for amounts paid). */
export const toModel = (value: Decimal): number => BigDecimal.toNumberUnsafe(value)

/** Rounds to `significant` significant digits, towards −∞ (a rate rounded against the customer). */
export const roundDownSignificant = (value: Decimal, significant: number): Decimal => {
  if (BigDecimal.isZero(value)) return value
  const digits = (value.value < 0n ? -value.value : value.value).toString().length
  const magnitude = digits - value.scale // digits left of the point
  return roundDown(value, significant - magnitude)
}

const isDecimal = Schema.isPattern(decimalPattern, {
  expected: 'a decimal string such as "5.4424"',
  ...issueType("decimal_parsing")
})

/**
 * A decimal string on the wire (`"5.4424"`), a `BigDecimal` in the program. Encoding keeps the
 * value's scale and never uses exponent notation. `sign`: a further check of the text, judged
 * only once it is a decimal (one issue for a malformed one).
 */
const decimalString = (...sign: ReadonlyArray<SchemaAST.Filter<string>>) =>
  Schema.String.check(sign.length === 0 ? isDecimal : isDecimal.abort(), ...sign).pipe(
    Schema.decodeTo(
      Schema.BigDecimal,
      SchemaTransformation.transform({
        decode: (s: string) => BigDecimal.fromStringUnsafe(s),
        encode: format
      })
    )
  )

export const DecimalString = decimalString()

/**
 * Above 0 and at least 0, written as patterns of the decimal's text (not comparisons of the
 * decoded value) so the OpenAPI document states them: above 0 is no minus sign and a digit other
 * than 0; at least 0 allows a minus sign only before zeros (`"-0"` is 0).
 */
export const positivePattern = /^(?![0.]+$)[0-9]+([.][0-9]+)?$/u
export const nonNegativePattern = /^(-(?=[0.]+$))?[0-9]+([.][0-9]+)?$/u

export const PositiveDecimalString = decimalString(
  Schema.isPattern(positivePattern, { expected: "a decimal string greater than 0", ...issueType("greater_than") })
)
export const NonNegativeDecimalString = decimalString(
  Schema.isPattern(nonNegativePattern, {
    expected: "a decimal string of 0 or more",
    ...issueType("greater_than_equal")
  })
)
