/**
 * The market-data snapshot of market-data.md: the document an operator imports or a feed serves, as a
 * `Schema`; its validation (every rule of the page, every failure of a document reported together, each with
 * its path, in the API's 422 item shape); and its canonical hash. Pure: the clock is a parameter.
 *
 * On the wire every number is a decimal string, except `tenor_days`, a whole number of calendar days from
 * `as_of` (a count, a JSON integer as the page writes it). Decoded, the numbers are exact decimals: floats
 * appear only where the model reads the snapshot (`DiscountCurve`, `VolSurface`).
 */
import { BigDecimal, Clock, DateTime, Effect, JsonSchema, Option, Result, Schema, SchemaTransformation } from "effect"
import type { SchemaAST } from "effect"
import { Digest } from "effect/crypto"
import { issueType, ValidationError, type ValidationIssue } from "../kernel/ApiError.ts"
import { type Currency, servedCurrencies, servedPairs } from "../kernel/Corridor.ts"
import { BoundedString, Datetime } from "../kernel/Fields.ts"
import { toBytes } from "../kernel/Bytes.ts"
import { canonicalize } from "../kernel/CanonicalJson.ts"
import * as IssueDetail from "../kernel/IssueDetail.ts"
import * as Money from "../kernel/Money.ts"
import type { Instant } from "./RateCurve.ts"

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
const rule = (type: IssueType, expected: string): Schema.Annotations.Filter => ({ expected, ...issueType(type) })

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
// The served corridors: what a snapshot must cover

// what the corridors served are is Corridor's; a snapshot must cover them
export { servedCurrencies, servedPairs } from "../kernel/Corridor.ts"

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
const decimal = (description: string, ...checks: ReadonlyArray<SchemaAST.Check<BigDecimal.BigDecimal>>) =>
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

// ---------------------------------------------------------------------------------------------------------------
// Validation

/** What `validate` needs besides the document. */
export interface ValidateOptions {
  /** The clock's reading; `as_of` may be ahead of it by at most `asOfSkewMillis`. */
  readonly now: Instant
}

const parseOptions = { errors: "all", onExcessProperty: "error" } as const
const decodeDocument = Schema.decodeUnknownResult(MarketSnapshot)

type Loose = Readonly<Record<string, unknown>>
const asObject = (value: unknown): Loose | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Loose) : undefined
const asArray = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** A field decoded on its own, or `undefined`: the rules between fields judge only the fields that decode. */
const field = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => {
  const decode = Schema.decodeUnknownOption(schema)
  return (value: unknown): S["Type"] | undefined => Option.getOrUndefined(decode(value))
}
const tenorOf = field(TenorDays)
const decimalOf = field(decimal(""))
const conventionOf = field(Convention)
const datetimeOf = field(Datetime)

const millis = (instant: Instant): number => (typeof instant === "number" ? instant : DateTime.toEpochMillis(instant))

/** Tenors strictly increasing: each pillar whose tenor is not after the previous readable one. */
const tenorOrder = (pillars: ReadonlyArray<unknown>, loc: ReadonlyArray<string | number>): Array<ValidationIssue> => {
  const issues: Array<ValidationIssue> = []
  let previous: number | undefined
  pillars.forEach((pillar, i) => {
    const tenor = tenorOf(asObject(pillar)?.tenor_days)
    if (tenor === undefined) return
    if (previous !== undefined && tenor <= previous) {
      issues.push({
        loc: [...loc, i, "tenor_days"],
        msg: `tenor_days ${tenor} is not after the previous pillar's ${previous}`,
        type: "tenors_not_increasing"
      })
    }
    previous = previous === undefined ? tenor : Math.max(previous, tenor)
  })
  return issues
}

const one = BigDecimal.fromStringUnsafe("1")

/** `1 + r·d/basis > 0` (simple) or `1 + r > 0` (BUS/252), exactly: a rate must discount to something. */
const discountsPositively = (convention: Convention, rate: BigDecimal.BigDecimal, days: number): boolean => {
  const growth =
    convention === "BUS/252"
      ? BigDecimal.sum(one, rate)
      : BigDecimal.sum(
          one,
          Money.divide(
            BigDecimal.multiply(rate, BigDecimal.fromBigInt(BigInt(days))),
            BigDecimal.fromBigInt(convention === "ACT/360" ? 360n : 365n)
          )
        )
  return BigDecimal.isPositive(growth)
}

const curveRules = (rates: Loose): Array<ValidationIssue> =>
  Object.entries(rates).flatMap(([currency, value]) => {
    const curve = asObject(value)
    const points = asArray(curve?.points)
    const loc = ["rates", currency, "points"]
    const issues = tenorOrder(points, loc)
    const convention = conventionOf(curve?.convention)
    if (convention !== undefined) {
      points.forEach((point, i) => {
        const tenor = tenorOf(asObject(point)?.tenor_days)
        const rate = decimalOf(asObject(point)?.rate)
        if (tenor !== undefined && rate !== undefined && !discountsPositively(convention, rate, tenor)) {
          issues.push({
            loc: [...loc, i, "rate"],
            msg: `rate ${Money.format(rate)} gives no positive discount factor at ${tenor} days (${convention})`,
            type: "discount_factor_not_positive"
          })
        }
      })
    }
    return issues
  })

/** ATM total variance `atm²·t` non-decreasing in tenor, exactly (t in days: a common factor). */
const volRules = (vols: Loose): Array<ValidationIssue> =>
  Object.entries(vols).flatMap(([pair, value]) => {
    const pillars = asArray(value)
    const loc = ["vols", pair]
    const issues = tenorOrder(pillars, loc)
    let previous: { readonly tenor: number; readonly variance: BigDecimal.BigDecimal } | undefined
    pillars.forEach((pillar, i) => {
      const tenor = tenorOf(asObject(pillar)?.tenor_days)
      const atm = decimalOf(asObject(pillar)?.atm)
      if (tenor === undefined || atm === undefined) return
      if (previous !== undefined && tenor <= previous.tenor) return // out of order: reported above
      const variance = BigDecimal.multiply(BigDecimal.multiply(atm, atm), BigDecimal.fromBigInt(BigInt(tenor)))
      if (previous !== undefined && BigDecimal.isLessThan(variance, previous.variance)) {
        const years = (v: BigDecimal.BigDecimal) =>
          Money.format(BigDecimal.round(Money.divide(v, BigDecimal.fromBigInt(365n)), { scale: 8, mode: "half-even" }))
        issues.push({
          loc: [...loc, i, "atm"],
          msg: `ATM total variance falls from ${years(previous.variance)} at ${previous.tenor} days to ${years(variance)} at ${tenor} days (calendar arbitrage)`,
          type: "calendar_arbitrage"
        })
      }
      previous = { tenor, variance }
    })
    return issues
  })

/** Every currency of every corridor served has a curve, every pair a spot and vols. */
const coverageRules = (document: Loose): Array<ValidationIssue> => {
  const issues: Array<ValidationIssue> = []
  const missing = (part: string, keys: ReadonlyArray<string>, type: IssueType, what: string) => {
    const container = asObject(document[part])
    if (container === undefined) return // not an object: the schema says so
    for (const key of keys) {
      if (!Object.hasOwn(container, key)) issues.push({ loc: [part, key], msg: `no ${what} for ${key}`, type })
    }
  }
  missing("rates", servedCurrencies, "missing_curve", "rate curve")
  missing("spot", servedPairs, "missing_spot", "spot")
  missing("vols", servedPairs, "missing_vols", "vol pillars")
  return issues
}

const asOfRule = (document: Loose, now: number): Array<ValidationIssue> => {
  const asOf = datetimeOf(document.as_of)
  if (asOf === undefined) return []
  const ahead = DateTime.toEpochMillis(asOf) - now
  return ahead > asOfSkewMillis
    ? [
        {
          loc: ["as_of"],
          msg: `as_of ${DateTime.formatIso(asOf)} is ${Math.round(ahead / 1000)} s ahead of the clock (at most ${asOfSkewMillis / 1000} s allowed)`,
          type: "as_of_in_future"
        }
      ]
    : []
}

/** The rules between fields, on whatever parts of the document can be read. */
const crossFieldRules = (input: unknown, now: number): Array<ValidationIssue> => {
  const document = asObject(input)
  if (document === undefined) return []
  const rates = asObject(document.rates)
  const vols = asObject(document.vols)
  return [
    ...asOfRule(document, now),
    ...(rates ? curveRules(rates) : []),
    ...(vols ? volRules(vols) : []),
    ...coverageRules(document)
  ]
}

/**
 * Validates a parsed JSON document against every rule of market-data.md: the snapshot, or every failure
 * together, each `{loc, msg, type}` with `loc` the path in the document (`["rates", "USD", "points", 2,
 * "rate"]`). Unknown fields are refused (a misspelt `rr25` must not default to 0).
 */
export const validate = (
  input: unknown,
  options: ValidateOptions
): Result.Result<MarketSnapshot, ReadonlyArray<ValidationIssue>> => {
  const decoded = decodeDocument(input, parseOptions)
  const issues = [
    ...(Result.isFailure(decoded) ? IssueDetail.flatten(decoded.failure.issue, [], input) : []),
    ...crossFieldRules(input, millis(options.now))
  ]
  if (issues.length > 0) return Result.fail(issues)
  // the decode succeeded when it reported nothing
  return Result.succeed((decoded as Result.Success<MarketSnapshot, never>).success)
}

/** `validate` of JSON text; text that is not JSON is one `json_invalid` issue. */
export const validateJson = (
  text: string,
  options: ValidateOptions
): Result.Result<MarketSnapshot, ReadonlyArray<ValidationIssue>> => {
  let input: unknown
  try {
    input = JSON.parse(text)
  } catch (error) {
    return Result.fail([{ loc: [], msg: `not JSON: ${(error as Error).message}`, type: "json_invalid" }])
  }
  return validate(input, options)
}

/** `validate` at the `Clock`'s time, failing with the API's `ValidationError` (its `detail` lists every issue). */
export const decode = Effect.fn("MarketSnapshot.decode")(function* (
  input: unknown
): Effect.fn.Return<MarketSnapshot, ValidationError> {
  const result = validate(input, { now: yield* Clock.currentTimeMillis })
  if (Result.isFailure(result)) return yield* ValidationError.fromIssues(result.failure)
  return result.success
})

// ---------------------------------------------------------------------------------------------------------------
// Canonical form and hash

const encode = Schema.encodeSync(MarketSnapshot)

/**
 * The canonical JSON of a snapshot: its encoded document (decimals without trailing zeros, `rr25`/`bf25` and
 * `holidays` written out, holidays sorted and each once, `as_of` in UTC with milliseconds) with keys sorted by
 * code point and no whitespace. Two documents with the same market data have the same canonical JSON.
 */
export const canonicalJson = (snapshot: MarketSnapshot): string => {
  const result = canonicalize(encode(snapshot))
  // an encoded snapshot is strings, integers, arrays and plain objects: always JSON
  if (Result.isFailure(result)) throw new Error(`snapshot has no JSON form at ${result.failure.path}`)
  return result.success
}

/** Lowercase hex SHA-256 of the canonical JSON: the snapshot's identity (same data, same hash). */
export const hash = Effect.fn("MarketSnapshot.hash")(function* (
  snapshot: MarketSnapshot
): Effect.fn.Return<string, never, Digest.Digest> {
  const digest = yield* Digest.Digest
  return yield* digest.digestHex(Digest.sha256, toBytes(canonicalJson(snapshot)))
})

/**
 * The JSON Schema (draft 2020-12) of the document, derived from `MarketSnapshot`: its shape and formats, unknown
 * fields refused. The rules between fields and the numeric ranges of decimal strings are `validate`'s alone.
 */
export const jsonSchema = (): JsonSchema.JsonSchema => {
  const document = Schema.toJsonSchemaDocument(MarketSnapshot, { onExcessProperty: "error" })
  return { $schema: JsonSchema.META_SCHEMA_URI_DRAFT_2020_12, ...document.schema, $defs: document.definitions }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading a snapshot

export const curve = (snapshot: MarketSnapshot, currency: string): Option.Option<Curve> =>
  Option.fromNullishOr(snapshot.rates[currency])

export const holidays = (snapshot: MarketSnapshot, currency: string): ReadonlyArray<string> =>
  snapshot.holidays[currency] ?? []

export const spot = (snapshot: MarketSnapshot, pair: string): Option.Option<Money.Decimal> =>
  Option.fromNullishOr(snapshot.spot[pair])

export const vols = (snapshot: MarketSnapshot, pair: string): Option.Option<ReadonlyArray<VolPillar>> =>
  Option.fromNullishOr(snapshot.vols[pair])

/**
 * The snapshot's mid rate, `quote` per 1 `base`: its spot for the pair as written, `1 / spot` for the inverse
 * pair, 1 for a currency against itself (for crossing an amount into a settlement fiat).
 */
export const midRate = (snapshot: MarketSnapshot, base: string, quote: string): Option.Option<Money.Decimal> => {
  if (base === quote) return Option.some(Money.one)
  const direct = snapshot.spot[`${base}/${quote}`]
  if (direct !== undefined) return Option.some(direct)
  return Option.map(spot(snapshot, `${quote}/${base}`), (s) => Money.divide(Money.one, s))
}

// ---------------------------------------------------------------------------------------------------------------
// The built-in illustrative snapshot

/**
 * pricing.md's illustrative defaults as a snapshot (the sandbox's fallback when no snapshot was imported): one
 * pillar per curve and per pair, flat vols, no risk reversal or butterfly. With one pillar a curve holds its
 * rate flat in its own convention and a smile is its ATM vol at every strike and tenor, so it prices as the
 * static table `MarketData.defaultTable` does.
 */
export const illustrativeDocument: MarketSnapshotEncoded = {
  as_of: "2026-01-01T00:00:00.000Z",
  source: "illustrative defaults",
  rates: {
    USD: { convention: "ACT/360", points: [{ tenor_days: 365, rate: "0.0375" }] },
    EUR: { convention: "ACT/360", points: [{ tenor_days: 365, rate: "0.02" }] },
    BRL: { convention: "BUS/252", points: [{ tenor_days: 365, rate: "0.1425" }] },
    MXN: { convention: "ACT/360", points: [{ tenor_days: 365, rate: "0.07" }] },
    NGN: { convention: "ACT/365", points: [{ tenor_days: 365, rate: "0.27" }] }
  },
  holidays: {},
  spot: {
    "EUR/USD": "1.17",
    "USD/BRL": "5.4",
    "USD/MXN": "18.5",
    "USD/NGN": "1500",
    "EUR/BRL": "6.32",
    "BRL/MXN": "3.43"
  },
  vols: {
    "EUR/USD": [{ tenor_days: 365, atm: "0.075", rr25: "0", bf25: "0" }],
    "USD/BRL": [{ tenor_days: 365, atm: "0.14", rr25: "0", bf25: "0" }],
    "USD/MXN": [{ tenor_days: 365, atm: "0.12", rr25: "0", bf25: "0" }],
    "USD/NGN": [{ tenor_days: 365, atm: "0.2", rr25: "0", bf25: "0" }],
    "EUR/BRL": [{ tenor_days: 365, atm: "0.15", rr25: "0", bf25: "0" }],
    "BRL/MXN": [{ tenor_days: 365, atm: "0.13", rr25: "0", bf25: "0" }]
  }
}

export const illustrative: MarketSnapshot = Schema.decodeUnknownSync(MarketSnapshot)(illustrativeDocument)

/**
 * The illustrative snapshot observed at `asOf`. Curves are anchored at `as_of`, so anchored at the pricing
 * instant it gives exactly the static table's discount factors (a fixed `as_of` months old discounts over
 * `[now, t]` as the forward from `as_of`, a few parts in 10⁴ away).
 */
export const illustrativeAt = (asOf: DateTime.Utc): MarketSnapshot => ({ ...illustrative, as_of: asOf })
