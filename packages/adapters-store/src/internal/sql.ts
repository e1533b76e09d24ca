/**
 * What every Pg repository shares: the failures of statements and of rows as `StoreError`s (the
 * cause kept), statement parameters (a worker's claim among them), the claim statement of the
 * job tables, and the check that an id can be one.
 */
import { type Lease, StoreError } from "@ratelock/core"
import { Cause, DateTime, Effect, Option, Predicate, Schema, SchemaAST, type SchemaIssue } from "effect"
import { type SqlClient, SqlError, SqlSchema, type Statement } from "effect/sql"
import { timestamp } from "./rows/columns.ts"

/** The reason of a failed statement, to tell conflicts from other failures. */
export const reasonOf = (error: SqlError.SqlError): SqlError.SqlErrorReason["_tag"] => error.reason._tag

/** The constraint a unique violation broke. */
export const uniqueConstraint = (error: SqlError.SqlError): Option.Option<string> =>
  error.reason._tag === "UniqueViolation" ? Option.some(error.reason.constraint) : Option.none()

/**
 * The constraint a check violation names: a table's CHECK, or a guard function's own name
 * (`ratelock_capacity_unless` raises `corridor_capacity`).
 */
export const checkViolated = (error: SqlError.SqlError): Option.Option<string> => {
  if (error.reason._tag !== "ConstraintError") return Option.none()
  const cause = error.reason.cause
  return Predicate.hasProperty(cause, "constraint") && Predicate.isString(cause.constraint)
    ? Option.some(cause.constraint)
    : Option.none()
}

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

const isStoreFailure = <E>(e: E): e is E & StoreFailure =>
  SqlError.isSqlError(e) || Schema.isSchemaError(e) || Cause.isNoSuchElementError(e)

/**
 * Maps the failures of a statement and of its rows (`SqlError`, `SchemaError`, a `findOne` that
 * found nothing) to `StoreError`s, leaving an effect's other failures as they are.
 */
export const orStoreError =
  (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, E & StoreFailure> | StoreError.StoreError, R> =>
    // the type arguments spelled out: inferred, catchIf's optional fallback leaks into the result type
    Effect.catchIf<A, E, R, E & StoreFailure, never, StoreError.StoreError, never>(self, isStoreFailure, (e) =>
      Effect.fail(toStoreError(operation, e))
    )

/**
 * The parameters of a statement, as the repository passes them: its own typed arguments, bound as
 * given, so nothing is decoded or checked again (a struct schema here cost a few µs a statement).
 */
export const Parameters = <A>() => Schema.declare((_: unknown): _ is A => true)

/** A worker's claim as statement parameters: when it is taken, by whom, how many, and the lease's end. */
export interface Claim {
  readonly now: Date
  readonly owner: string
  readonly limit: number
  readonly leaseUntil: Date
}

export const claimOf = (claim: Lease.Claim): Claim => ({
  now: timestamp(claim.now),
  owner: claim.owner,
  limit: claim.limit,
  leaseUntil: timestamp(DateTime.addDuration(claim.now, claim.leaseFor))
})

/**
 * A worker's claim on a job table (`contracts`, `payouts`, `webhook_events`), as one statement: up
 * to `claim.limit` rows that are `due` (a condition on the table aliased `job`) and that nobody
 * holds or whose lease ended, oldest first by `(created_at, id)`, skipping the rows other claimers
 * are locking right now (`FOR UPDATE SKIP LOCKED`), leased to the owner until the lease's end;
 * answered with `select` over the claimed rows (aliased `c`), oldest first, decoded by `Result`.
 */
export const claimJobs = <Result extends Schema.ConstraintCodec<unknown, unknown, never, unknown>>(options: {
  readonly sql: SqlClient.SqlClient
  readonly table: string
  readonly Result: Result
  readonly due: (claim: Claim) => Statement.Fragment
  readonly select?: Statement.Fragment
}) => {
  const { sql, table, due, select = sql`c.*` } = options
  return SqlSchema.findAll({
    Request: Parameters<Lease.Claim>(),
    Result: options.Result,
    execute: (lease) => {
      const claim = claimOf(lease)
      return sql`WITH due AS MATERIALIZED (
          SELECT job.id FROM ${sql(table)} job
          WHERE ${due(claim)} AND (job.lease_expires_at IS NULL OR job.lease_expires_at <= ${claim.now})
          ORDER BY job.created_at, job.id LIMIT ${claim.limit}
          FOR UPDATE OF job SKIP LOCKED
        ), claimed AS (
          UPDATE ${sql(table)} leased SET lease_owner = ${claim.owner}, lease_expires_at = ${claim.leaseUntil}
          FROM due WHERE leased.id = due.id
          RETURNING leased.*
        )
        SELECT ${select} FROM claimed c ORDER BY c.created_at, c.id`
    }
  })
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids are `uuid` columns: a lookup by anything else finds nothing (and never reaches the server). */
export const isUuid = (value: string): boolean => uuidPattern.test(value)
