/**
 * Field types shared by every wire schema: uuids, datetimes and bounded strings.
 *
 * Each check is written so that the JSON Schema Effect derives from it (the OpenAPI document) is
 * exactly the check: lengths count code points, as JSON Schema's `minLength`/`maxLength` do
 * (Effect halves a UTF-16 minimum, which is all it can promise for one); patterns carry the `u`
 * flag, without which Effect cannot export them (JSON Schema patterns are Unicode regexes).
 */
import { Schema } from "effect"
import { issueType } from "./ApiError.ts"

/** A whole number, zero or more: a count, an age in seconds. */
export const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** A UUID; its check writes `pattern` and `format: uuid`. */
export const Uuid = Schema.String.check(Schema.isUUID())

/**
 * RFC 3339 date-time: a zone is required (`Z` or an offset); offsets are normalised to UTC. No
 * leap second, and offsets within ±23:59 (RFC 3339's, so JSON Schema's `date-time` agrees).
 */
const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:[0-5]\d(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/u

/** The calendar fields are real: no February 30th, no hour 24 (the parser would roll them over). */
const isRealDateTime = (s: string): boolean => {
  const [y, mo, d, h, mi] = [0, 5, 8, 11, 14].map((i) => Number(s.slice(i, i + (i === 0 ? 4 : 2))))
  const daysInMonth = new Date(Date.UTC(y!, mo!, 0)).getUTCDate()
  return mo! >= 1 && mo! <= 12 && d! >= 1 && d! <= daysInMonth && h! <= 23 && mi! <= 59
}

/** An ISO-8601 date-time on the wire, a `DateTime.Utc` in the program; encoded as UTC with `Z`. */
export const Datetime = Schema.String.check(
  Schema.isPattern(rfc3339, {
    expected: "an ISO-8601 date-time with a zone, such as 2026-11-21T10:00:00Z",
    ...issueType("datetime_parsing")
  }),
  // only judged once the shape is right, so a malformed string reports one issue, not two;
  // JSON Schema's `date-time` format is this calendar rule
  Schema.makeFilter((s: string) => !rfc3339.test(s) || isRealDateTime(s) || "not a real calendar date and time", {
    toJsonSchema: () => ({ format: "date-time" }),
    ...issueType("datetime_parsing")
  })
).pipe(Schema.decodeTo(Schema.DateTimeUtcFromString))

/** An instant as the service writes it in an answer: RFC 3339, UTC, milliseconds (`DateTime.formatIso`). */
export const Instant = Schema.String.annotate({ format: "date-time" })

/** No NUL character: text stores (PostgreSQL among them) cannot keep one. */
export const noNul = Schema.makeFilter((s: string) => !s.includes("\u0000") || "must not contain a NUL character", {
  toJsonSchema: () => ({ pattern: "^[^\\u0000]*$" })
})

/** `min` to `max` characters (code points: what JSON Schema and PostgreSQL count). */
export const isCharacters = (min: number, max: number) =>
  Schema.isBetweenCodePoints(min, max, {
    expected: `a string of ${min} to ${max} characters`,
    // flat, rather than Effect's `allOf` of the two bounds
    toJsonSchema: () => ({ minLength: min, maxLength: max })
  })

/** A string of 1 to `max` characters. */
export const BoundedString = (max: number) => Schema.String.check(isCharacters(1, max), noNul)

/** A string of at most `max` characters (may be empty). */
export const ShortString = (max: number) =>
  Schema.String.check(Schema.isMaxCodePoints(max, { expected: `a string of at most ${max} characters` }), noNul)

/** `Idempotency-Key`: 8 to 256 characters. */
export const IdempotencyKey = Schema.String.check(isCharacters(8, 256), noNul)

/** Page size of every list: 1 to 100, default 25. */
export const defaultPageLimit = 25
export const PageLimit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))
