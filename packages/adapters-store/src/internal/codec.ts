/**
 * Values between records and rows: the column codecs every row schema is built from (decimals
 * travel as `numeric` text, the scale as written; instants as `Date`, bound as `timestamptz`;
 * `int8` as `bigint`; JSON parsed on the way in and as text into `json` columns on the way out),
 * and the failures of statements and of rows as `StoreError`s with the cause kept.
 */
import { type Lease, Money, StoreError } from "@ratelock/core"
import { Cause, DateTime, Effect, Option, Schema, SchemaAST, SchemaGetter, type SchemaIssue } from "effect"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import { SqlError } from "effect/sql"

/**
 * A row schema compiled to JavaScript (Effect's schema JIT) for decoding and for encoding, once,
 * before its first use: the interpreter's per-column work is about a third of a row's decoding
 * (a contract row: 14 µs interpreted, 10 µs compiled; the hand mapper it replaced took 2 µs).
 * Invalid rows still fail with the interpreter's detailed issues.
 */
export const compiled = <S extends Schema.Top>(schema: S): S => {
  SchemaJITCompiler.enable(schema.ast)
  SchemaJITCompiler.enable(SchemaAST.flip(schema.ast))
  return schema
}

/** `numeric` text (e.g. `"5.4420"`) ↔ an exact decimal with the same scale; `NaN` and infinities do not decode. */
export const Numeric = Money.DecimalString
/**
 * `timestamptz` (a `Date` from the driver) ↔ `DateTime.Utc`. The `Date` check turns away the
 * invalid `Date` the driver gives for `infinity`. (Not `Schema.DateTimeUtcFromDate`, whose generic
 * getter costs more per column than this one conversion.)
 */
export const Timestamp = Schema.Date.pipe(
  Schema.decodeTo(Schema.DateTimeUtc, {
    decode: SchemaGetter.transform(DateTime.fromDateUnsafe),
    encode: SchemaGetter.transform(DateTime.toDateUtc)
  })
)

/** Epoch milliseconds (instants inside JSON aggregates) ↔ `DateTime.Utc`. */
export const EpochMillis = Schema.Int.pipe(
  Schema.decodeTo(Schema.DateTimeUtc, {
    decode: SchemaGetter.transform((millis: number) => DateTime.makeUnsafe(millis)),
    encode: SchemaGetter.transform(DateTime.toEpochMillis)
  })
)

/** `int8` (a `bigint` from the driver) ↔ a number: block numbers and indexes fit, a larger one does not decode. */
export const Int8 = Schema.BigInt.pipe(
  Schema.decodeTo(Schema.Int, {
    decode: SchemaGetter.transform((value: bigint) => Number(value)),
    encode: SchemaGetter.transform((value: number) => BigInt(value))
  })
)

/**
 * A `json` column holding `schema`: read as the driver parsed it, written as JSON text (`json`,
 * not `jsonb`, so an object keeps its key order; `undefined` is stored as JSON `null`).
 */
export const Json = <S extends Schema.Top>(schema: S) =>
  Schema.Unknown.pipe(
    Schema.decodeTo(schema, {
      decode: SchemaGetter.passthrough({ strict: false }),
      encode: SchemaGetter.transform((value: S["Encoded"]): unknown => JSON.stringify(value ?? null))
    })
  )

/** The reason of a failed statement, to tell conflicts from other failures. */
export const reasonOf = (error: SqlError.SqlError): SqlError.SqlErrorReason["_tag"] => error.reason._tag

/** The constraint a unique violation broke. */
export const uniqueConstraint = (error: SqlError.SqlError): Option.Option<string> =>
  error.reason._tag === "UniqueViolation" ? Option.some(error.reason.constraint) : Option.none()

/** Lost a race with a concurrent writer: a unique key taken, a deadlock or a serialization failure. */
export const isConflict = (error: SqlError.SqlError): boolean => {
  const tag = reasonOf(error)
  return tag === "UniqueViolation" || tag === "DeadlockError" || tag === "SerializationError"
}

export const storeError = (operation: string, cause: SqlError.SqlError): StoreError.StoreError =>
  new StoreError.StoreError({ message: `${operation} failed (${reasonOf(cause)})`, cause })

/** The first schema on the issue's path that names itself: the row schema a value failed. */
const namedSchema = (issue: SchemaIssue.Issue): string | undefined => {
  const named = "ast" in issue ? SchemaAST.resolveIdentifier(issue.ast) : undefined
  if (named !== undefined) return named
  if ("issue" in issue) return namedSchema(issue.issue)
  if ("issues" in issue) {
    for (const inner of issue.issues) {
      const found = namedSchema(inner)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * A row (or a record on its way to one) outside its schema: a value the domain does not allow,
 * which must fail loudly rather than become a wrong record. The message names the row schema,
 * the column and what was expected.
 */
export const rowError = (operation: string, cause: Schema.SchemaError): StoreError.StoreError =>
  new StoreError.StoreError({
    message: `${operation} failed: ${namedSchema(cause.issue) ?? "a row"} does not fit its schema: ${cause.message.replace(/\s*\n\s*/g, " ")}`,
    cause
  })

/** The failures of a store statement: the statement's, its rows' (or parameters'), and a row that is missing. */
type StoreFailure = SqlError.SqlError | Schema.SchemaError | Cause.NoSuchElementError

const toStoreError = (operation: string, e: StoreFailure): StoreError.StoreError =>
  SqlError.isSqlError(e)
    ? storeError(operation, e)
    : Schema.isSchemaError(e)
      ? rowError(operation, e)
      : new StoreError.StoreError({ message: `${operation} failed: the statement returned no row`, cause: e })

const isStoreFailure = (e: unknown): e is StoreFailure =>
  SqlError.isSqlError(e) || Schema.isSchemaError(e) || Cause.isNoSuchElementError(e)

/**
 * Maps the failures of a statement and of its rows (`SqlError`, `SchemaError`, a `findOne` that
 * found nothing) to `StoreError`s, leaving an effect's other failures as they are.
 */
export const orStoreError =
  (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, StoreFailure> | StoreError.StoreError, R> =>
    Effect.mapError(self, (e) => (isStoreFailure(e) ? toStoreError(operation, e) : e)) as Effect.Effect<
      A,
      Exclude<E, StoreFailure> | StoreError.StoreError,
      R
    >

/** A worker's claim as statement parameters: when it is taken, by whom, how many, and the lease's end. */
export const Claim = Schema.Struct({
  now: Timestamp,
  owner: Schema.String,
  limit: Schema.Int,
  leaseUntil: Timestamp
})

export const claimOf = (claim: Lease.Claim): typeof Claim.Type => ({
  now: claim.now,
  owner: claim.owner,
  limit: claim.limit,
  leaseUntil: DateTime.addDuration(claim.now, claim.leaseFor)
})

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids are `uuid` columns: a lookup by anything else finds nothing (and never reaches the server). */
export const isUuid = (value: string): boolean => uuidPattern.test(value)
