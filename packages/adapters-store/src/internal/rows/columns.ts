/**
 * What row schemas are built from: a schema per kind of column that checks the value the driver
 * gives (decimals as `numeric` text with the scale as written, instants as `Date`, `int8` as
 * `bigint`, `json` parsed), and the conversions between checked column values and the records'.
 *
 * A row schema checks every column with these, then converts them in its one mapping into the
 * core record, which the record's schema checks. Measured in the store (Node CPU per statement,
 * against the hand mappers this replaced): a contract read costs 10 µs more this way; a
 * `Schema` transformation per column instead cost 20 µs more. Rows are written by each row
 * module's write mapping, typed against the same columns: encoding a commit's rows through their
 * schemas cost 70–90 µs more per commit, the mappings 14 µs.
 */
import { Money } from "@ratelock/core"
import { BigDecimal, DateTime, Schema, SchemaGetter } from "effect"

/** A conversion of a nullable column or field: null stays null (each `…OrNull` below). */
const orNull =
  <A, B>(convert: (value: A) => B) =>
  (value: A | null): B | null =>
    value === null ? null : convert(value)

/** `numeric` as text: a decimal (`NaN` and the infinities, which the type also holds, are not). */
export const Numeric = Schema.String.check(
  Schema.isPattern(Money.decimalPattern, { expected: 'numeric text such as "5.4420"' })
)

/** A checked `numeric` as an exact decimal with the same scale, and back. */
export const decimal = (text: string): Money.Decimal => BigDecimal.fromStringUnsafe(text)
export const decimalOrNull = orNull(decimal)
export const numeric = Money.format
export const numericOrNull = orNull(numeric)

/** `timestamptz` as the driver gives it: a valid `Date` (its `infinity` is an invalid one). */
export const Timestamp = Schema.Date

export const utc = (date: Date): DateTime.Utc => DateTime.fromDateUnsafe(date)
export const utcOrNull = orNull(utc)
export const timestamp = (value: DateTime.Utc): Date => DateTime.toDateUtc(value)
export const timestampOrNull = orNull(timestamp)

/** An instant inside a JSON aggregate: epoch milliseconds. */
export const EpochMillis = Schema.Int

export const fromMillis = (millis: number): DateTime.Utc => DateTime.makeUnsafe(millis)
export const fromMillisOrNull = orNull(fromMillis)

/** `int8` as the driver gives it: a `bigint`, here within a double's exact range. */
export const Int8 = Schema.BigInt.check(
  Schema.isBetweenBigInt({ minimum: BigInt(Number.MIN_SAFE_INTEGER), maximum: BigInt(Number.MAX_SAFE_INTEGER) })
)

export const int = (value: bigint): number => Number(value)
export const intOrNull = orNull(int)
export const int8 = (value: number): bigint => BigInt(value)
export const int8OrNull = orNull(int8)

/** A value for a `json` column, as text (`json`, not `jsonb`, keeps an object's key order; `undefined` is `null`). */
export const json = (value: unknown): string => JSON.stringify(value ?? null)

/**
 * A double inside JSON that a `float8` column reads back to the same bits: its shortest exact text, as a string,
 * since JSON has no `-0`, `NaN` or infinities (`float8` reads all of them from their text).
 */
export const float8Text = (value: number): string => (Object.is(value, -0) ? "-0" : String(value))

/**
 * Rows written from JSON in one statement (`jsonb_to_recordset`), given each column with the SQL type it is read
 * from JSON as: the column list of the insert, and the column definitions of the recordset.
 */
export const recordset = (written: Record<string, string>) => ({
  columns: Object.keys(written).join(", "),
  definitions: Object.entries(written)
    .map(([column, type]) => `${column} ${type}`)
    .join(", ")
})

/** A row schema's encoding, which nothing uses: rows are written by their row module's mapping. */
const writtenByMapping = <T, E>() =>
  SchemaGetter.forbidden<T, E>(() => "a row is written by its row module's mapping, not encoded by its schema")

/**
 * A row schema, named `identifier` in a read's errors: its columns, decoded by one mapping into the
 * record's schema (which checks what the mapping made). It has no encoding: rows are written by
 * their row module's mapping.
 */
export const rowSchema = <Columns extends Schema.Top, Record extends Schema.Top>(
  identifier: string,
  columns: Columns,
  record: Record,
  decode: (row: NoInfer<Columns["Type"]>) => NoInfer<Record["Encoded"]>
) =>
  columns
    .pipe(Schema.decodeTo(record, { decode: SchemaGetter.transform(decode), encode: writtenByMapping() }))
    .annotate({ identifier })
