/**
 * The snapshot document of market-data.md as a `Schema`: its fields with the page's limits, and the
 * document itself. `MarketSnapshot` is its public face.
 */
import { BigDecimal, Effect, Schema, SchemaTransformation } from "effect"
import type { SchemaAST } from "effect"
import { issueType } from "../../kernel/ApiError.ts"
import { BoundedString, Datetime } from "../../kernel/Fields.ts"
import * as Money from "../../kernel/Money.ts"

/**
 * The `type` of each refusal, besides the structural ones any document can get: `json_invalid`, `missing`,
 * `extra_forbidden` (an unknown field, or a key of `rates`/`holidays` that is not a currency code like `USD`, of
 * `spot`/`vols` not a pair like `USD/BRL`), `string_type`, `number_type`, `dict_type`, `list_type`, `enum`.
 */
export type IssueType =
  /** A number is not a decimal string (`"0.0375"`: no exponent, no `+`). */
  | "decimal_parsing"
  /** `as_of` is not an ISO-8601 date-time with a zone. */
  | "datetime_parsing"
  /** A holiday is not a real `YYYY-MM-DD` date. */
  | "date_parsing"
  /** `tenor_days` is not a whole number. */
  | "int_parsing"
  /** A rate is outside [-0.05, 1.0]. */
  | "rate_out_of_range"
  /** A rate discounts to nothing or less at its own tenor (`1 + r·d/basis ≤ 0`). */
  | "discount_factor_not_positive"
  /** A spot is 0 or less. */
  | "spot_not_positive"
  /** `tenor_days` is 0 or less. */
  | "tenor_not_positive"
  /** `tenor_days` is beyond 100 years. */
  | "tenor_too_long"
  /** A curve's or a smile's tenors are not strictly increasing. */
  | "tenors_not_increasing"
  /** A curve or a pair has no pillar. */
  | "no_pillars"
  /** A smile vol (25Δ put, ATM or 25Δ call) is outside (0.001, 2.0]. */
  | "vol_out_of_range"
  /** ATM total variance `atm²·t` falls from one pillar to the next. */
  | "calendar_arbitrage"
  /** A currency of a corridor served has no curve. */
  | "missing_curve"
  /** A market pair of a corridor served has no spot. */
  | "missing_spot"
  /** A market pair of a corridor served has no vols. */
  | "missing_vols"
  /** `as_of` is ahead of the clock by more than the allowed skew. */
  | "as_of_in_future"

/** A check's annotations: what it expects, and the `type` its failure reports. */
export const rule = (type: IssueType, expected: string): Schema.Annotations.Filter => ({ expected, ...issueType(type) })

// ---------------------------------------------------------------------------------------------------------------
// Limits of the page's Validation section

export const minRate = BigDecimal.fromStringUnsafe("-0.05")
export const maxRate = BigDecimal.fromStringUnsafe("1.0")
/** Smile vols lie in (minVol, maxVol]. */
export const minVol = BigDecimal.fromStringUnsafe("0.001")
export const maxVol = BigDecimal.fromStringUnsafe("2.0")
/** Clock skew allowed for `as_of` ahead of `now`. */
export const asOfSkewMillis = 60_000
/** Longest tenor: 100 years, beyond any curve or smile a lock prices from. */
export const maxTenorDays = 36_500

// ---------------------------------------------------------------------------------------------------------------
// Fields

const decimalText = Schema.String.check(
  Schema.isPattern(Money.decimalPattern, {
    expected: 'a decimal string such as "0.0375"',
    ...issueType("decimal_parsing")
  })
)

/**
 * A decimal string on the wire, an exact decimal in the program. Decoding drops trailing zeros (`"5.40"` is
 * 5.4), so the canonical form, and the hash, depend on the numbers, not on how they were written.
 */
export const decimal = (description: string, ...checks: ReadonlyArray<SchemaAST.Check<BigDecimal.BigDecimal>>) =>
  decimalText.annotate({ description }).pipe(
    Schema.decodeTo(
      checks.length === 0 ? Schema.BigDecimal : Schema.BigDecimal.check(checks[0]!, ...checks.slice(1)),
      SchemaTransformation.transform({
        decode: (s: string) => BigDecimal.normalize(BigDecimal.fromStringUnsafe(s)),
        encode: Money.format
      })
    )
  )

/** The rate rule of the page: every rate in [-0.05, 1.0]. */
export const Rate = decimal(
  "Annual rate in the curve's convention, from -0.05 to 1.0",
  Schema.makeFilter(
    (r: BigDecimal.BigDecimal) =>
      (!BigDecimal.isLessThan(r, minRate) && !BigDecimal.isGreaterThan(r, maxRate)) ||
      `rate ${Money.format(r)} is outside [-0.05, 1.0]`,
    rule("rate_out_of_range", "a rate from -0.05 to 1.0")
  )
)

/** Spot > 0. */
export const Spot = decimal(
  "Mid rate, QUOTE per 1 BASE of the pair as written, above 0",
  Schema.makeFilter(
    (s: BigDecimal.BigDecimal) => BigDecimal.isPositive(s) || `spot ${Money.format(s)} is not above 0`,
    rule("spot_not_positive", "a spot above 0")
  )
)

/** A smile quote; its range is judged on the three smile vols it makes (see `VolPillar`). */
const VolQuote = (description: string) => decimal(description)

/** Whole calendar days from `as_of`, 1 to 36,500. */
export const TenorDays = Schema.Number.check(
  Schema.isInt(rule("int_parsing", "a whole number of days")).abort(),
  Schema.isGreaterThan(0, rule("tenor_not_positive", "more than 0 days")),
  Schema.isLessThanOrEqualTo(maxTenorDays, rule("tenor_too_long", `at most ${maxTenorDays} days (100 years)`))
).annotate({ description: "Calendar days from as_of" })

export const Convention = Schema.Literals(["ACT/360", "ACT/365", "BUS/252"]).annotate({
  description: "Simple ACT/360 or ACT/365, or BUS/252 compounded on the snapshot's business days"
})
export type Convention = typeof Convention.Type

const isoDate = /^\d{4}-\d{2}-\d{2}$/u

/** A `YYYY-MM-DD` that is a real calendar date. */
export const HolidayDate = Schema.String.check(
  Schema.makeFilter(
    (s: string) => {
      if (!isoDate.test(s)) return false
      const [y, m, d] = s.split("-").map(Number) as [number, number, number]
      const date = new Date(Date.UTC(y, m - 1, d))
      return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
    },
    { ...rule("date_parsing", "a date such as 2026-12-25"), toJsonSchema: () => ({ format: "date" }) }
  )
)

/** A currency's holidays as a set: sorted, each once. */
const Holidays = Schema.Array(HolidayDate).pipe(
  Schema.decodeTo(
    Schema.Array(Schema.String),
    SchemaTransformation.transform({
      decode: (dates: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(dates)].sort(),
      encode: (dates: ReadonlyArray<string>) => dates
    })
  )
)

/** Keys of `rates` and `holidays`; any other key is refused as an unknown field. */
export const CurrencyCode = Schema.String.check(
  Schema.isPattern(/^[A-Z]{3}$/u, { expected: "a currency code such as USD" })
)
/** Keys of `spot` and `vols`. */
export const PairCode = Schema.String.check(
  Schema.isPattern(/^[A-Z]{3}\/[A-Z]{3}$/u, { expected: "a market pair such as USD/BRL" })
)

export const CurvePoint = Schema.Struct({ tenor_days: TenorDays, rate: Rate })
export type CurvePoint = typeof CurvePoint.Type

const nonEmpty = (what: string) => Schema.isMinLength(1, rule("no_pillars", `at least one ${what}`))

export const Curve = Schema.Struct({
  convention: Convention,
  points: Schema.Array(CurvePoint).check(nonEmpty("point"))
})
export type Curve = typeof Curve.Type

const zeroQuote = Effect.succeed("0")

/** A smile's three vols from a pillar's quotes: `atm + bf25 ∓ rr25/2` around `atm`. */
const smileVols = (p: {
  readonly atm: BigDecimal.BigDecimal
  readonly rr25: BigDecimal.BigDecimal
  readonly bf25: BigDecimal.BigDecimal
}) => {
  const halfRr = BigDecimal.multiply(p.rr25, BigDecimal.fromStringUnsafe("0.5"))
  const wing = BigDecimal.sum(p.atm, p.bf25)
  return [
    {
      name: "25-delta put vol (atm + bf25 - rr25/2)",
      path: [] as Array<string>,
      vol: BigDecimal.subtract(wing, halfRr)
    },
    { name: "ATM vol", path: ["atm"], vol: p.atm },
    { name: "25-delta call vol (atm + bf25 + rr25/2)", path: [] as Array<string>, vol: BigDecimal.sum(wing, halfRr) }
  ]
}

const volInRange = (v: BigDecimal.BigDecimal) =>
  BigDecimal.isGreaterThan(v, minVol) && !BigDecimal.isGreaterThan(v, maxVol)

export const VolPillar = Schema.Struct({
  tenor_days: TenorDays,
  atm: VolQuote("ATM (forward) vol, annualised"),
  rr25: VolQuote("25-delta risk reversal, call vol less put vol; 0 when absent").pipe(
    Schema.withDecodingDefaultKey(zeroQuote)
  ),
  bf25: VolQuote("25-delta butterfly, mean wing vol less ATM vol; 0 when absent").pipe(
    Schema.withDecodingDefaultKey(zeroQuote)
  )
}).check(
  // every smile vol (all three points) in (0.001, 2.0]; a wing is reported at its pillar, ATM at `atm`
  Schema.makeFilter(
    (pillar) =>
      smileVols(pillar)
        .filter(({ vol }) => !volInRange(vol))
        .map(({ name, path, vol }) => ({ path, issue: `${name} ${Money.format(vol)} is outside (0.001, 2.0]` })),
    rule("vol_out_of_range", "every smile vol in (0.001, 2.0]")
  )
)
export type VolPillar = typeof VolPillar.Type

/**
 * The snapshot document. Decoding checks each field on its own; the rules between fields (tenor order,
 * calendar arbitrage, coverage of the corridors, `as_of` against the clock) are `validate`'s: decode untrusted
 * documents with `validate`, never with this schema alone.
 */
export const MarketSnapshot = Schema.Struct({
  as_of: Datetime.annotate({ description: "When the market was observed" }),
  source: BoundedString(256).annotate({ description: "Where the data came from" }),
  rates: Schema.Record(CurrencyCode, Curve).annotate({ description: "Per currency, its zero-rate curve" }),
  holidays: Schema.Record(CurrencyCode, Holidays)
    .annotate({ description: "Per currency, dates that are not business days (BUS/252); absent: weekdays only" })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed({}))),
  spot: Schema.Record(PairCode, Spot).annotate({ description: "Per market pair in its usual order, the mid rate" }),
  vols: Schema.Record(PairCode, Schema.Array(VolPillar).check(nonEmpty("pillar"))).annotate({
    description: "Per market pair, smile pillars by tenor"
  })
}).annotate({
  identifier: "MarketSnapshot",
  title: "Ratelock market-data snapshot",
  description:
    "Interest-rate curves, holidays, spots and volatility smiles observed at as_of. Every number is a decimal string, tenors are whole calendar days from as_of."
})
export type MarketSnapshot = typeof MarketSnapshot.Type
export type MarketSnapshotEncoded = typeof MarketSnapshot.Encoded
