/**
 * Values between records and rows: decimals travel as `numeric` text (the scale as written),
 * instants as `Date` (bound as `timestamptz`), JSON as text into `json` columns; and `SqlError`s
 * become `StoreError`s with the cause kept.
 */
import { type Lease, Money, StoreError } from "@ratelock/core"
import { DateTime, Effect, Option } from "effect"
import { SqlError } from "effect/sql"

/** `numeric` text (e.g. `"5.4420"`) to an exact decimal with the same scale. */
export const decimal = (text: string): Money.Decimal => Money.unsafe(text)

export const decimalOrNull = (text: string | null): Money.Decimal | null => (text === null ? null : decimal(text))

/** An exact decimal as `numeric` text, never in exponent notation. */
export const numeric = (value: Money.Decimal): string => Money.format(value)

export const numericOrNull = (value: Money.Decimal | null): string | null => (value === null ? null : numeric(value))

export const utc = (date: Date): DateTime.Utc => DateTime.fromDateUnsafe(date)

export const utcOrNull = (date: Date | null): DateTime.Utc | null => (date === null ? null : utc(date))

export const timestamp = (value: DateTime.Utc): Date => DateTime.toDateUtc(value)

export const timestampOrNull = (value: DateTime.Utc | null): Date | null => (value === null ? null : timestamp(value))

/** `int8` columns decode to `bigint`; block numbers and indexes fit a double exactly. */
export const int = (value: number | bigint | string): number => Number(value)

export const intOrNull = (value: number | bigint | string | null): number | null => (value === null ? null : int(value))

/** A JSON value as text for a `json` column (`undefined` is stored as JSON `null`). */
export const json = (value: unknown): string => JSON.stringify(value ?? null)

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

/** Maps the `SqlError`s of an effect to `StoreError`s, leaving its other failures as they are. */
export const orStoreError =
  (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreError.StoreError, R> =>
    Effect.mapError(self, (e) => (SqlError.isSqlError(e) ? storeError(operation, e) : e)) as Effect.Effect<
      A,
      Exclude<E, SqlError.SqlError> | StoreError.StoreError,
      R
    >

/** A lease's end: `now + leaseFor`. */
export const leaseUntil = (claim: Lease.Claim): Date => timestamp(DateTime.addDuration(claim.now, claim.leaseFor))

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids are `uuid` columns: a lookup by anything else finds nothing (and never reaches the server). */
export const isUuid = (value: string): boolean => uuidPattern.test(value)
