/**
 * The validation of a snapshot document (market-data.md, Validation): the schema's own checks and
 * the rules between fields, every failure of a document reported together, each with its path.
 */
import { BigDecimal, Clock, DateTime, Effect, Option, Result, Schema } from "effect"
import { ValidationError, type ValidationIssue } from "../../kernel/ApiError.ts"
import { servedCurrencies, servedPairs } from "../../kernel/Corridor.ts"
import { Datetime } from "../../kernel/Fields.ts"
import * as IssueDetail from "../../kernel/IssueDetail.ts"
import * as Money from "../../kernel/Money.ts"
import type { Instant } from "../RateCurve.ts"
import { asOfSkewMillis, Convention, decimal, type IssueType, MarketSnapshot, TenorDays } from "./snapshotDocument.ts"

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
