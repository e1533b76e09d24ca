/**
 * Real PostgreSQL for tests and benchmarks: every run works in a fresh database of its own, created
 * on the server `DATABASE_URL` names and dropped afterwards (`WITH (FORCE)`, so connections left
 * open do not keep it), so concurrent runs never collide. Without `DATABASE_URL` the Postgres
 * suites are skipped (the run's last line says so).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { SqlClient } from "effect/sql"

/** The server the Postgres suites run on; unset, they are skipped. */
export const databaseUrl: string | undefined = process.env.DATABASE_URL

/** The server the benchmarks run on: `DATABASE_URL`, or this machine's. */
export const benchDatabaseUrl: string = databaseUrl ?? "postgres://postgres@127.0.0.1:5432/test"

/** `url` with its database replaced by `database` (same server, same credentials). */
export const withDatabase = (url: string, database: string): string => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

/** `<prefix>_<time>_<random>`: a database name no other run picks. */
const freshName = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`

/** Runs one statement on the server's maintenance connection (`CREATE` / `DROP DATABASE`). */
const admin = (serverUrl: string, statement: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(serverUrl), maxConnections: 1 }))
  )

export interface Database {
  readonly name: string
  readonly url: string
}

export interface Options {
  /** The start of the database's name (default `ratelock_test`). */
  readonly prefix?: string
  /** Print the drop, and print a drop that fails rather than fail with it: for benchmarks. */
  readonly report?: boolean
}

/**
 * A new, empty database on the server of `serverUrl`, dropped when the scope closes. Each run of
 * the effect (each build of a layer made with it) gets a database of its own.
 */
export const fresh = (serverUrl: string, options: Options = {}): Effect.Effect<Database, never, Scope.Scope> =>
  Effect.suspend(() => {
    const name = freshName(options.prefix ?? "ratelock_test")
    const drop = admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    return Effect.acquireRelease(
      Effect.as(Effect.orDie(admin(serverUrl, `CREATE DATABASE ${name}`)), {
        name,
        url: withDatabase(serverUrl, name)
      }),
      () =>
        options.report === true
          ? drop.pipe(
              Effect.tap(() => Effect.sync(() => console.log(`  · dropped database ${name}`))),
              Effect.catch((e) => Effect.sync(() => console.error(`could not drop database ${name}: ${e.message}`)))
            )
          : Effect.orDie(drop)
    )
  })

/** A client of its own on the database at `url` (one per simulated process, say). */
export const client = (url: string, maxConnections = 10) => PgClient.layer({ url: Redacted.make(url), maxConnections })

/** A client (pool of 10) on a fresh database that is dropped when the layer is released. */
export const layerFresh = (serverUrl: string, options: Options = {}) =>
  Layer.unwrap(Effect.map(fresh(serverUrl, options), (db) => client(db.url)))

/**
 * `fresh` for tests without Effect (the multi-process ones): the database now, dropped by
 * `drop` (stop whatever is connected to it first).
 */
export const create = async (
  serverUrl: string,
  options: Pick<Options, "prefix"> = {}
): Promise<Database & { readonly drop: () => Promise<void> }> => {
  const name = freshName(options.prefix ?? "ratelock_test")
  await Effect.runPromise(admin(serverUrl, `CREATE DATABASE ${name}`))
  return {
    name,
    url: withDatabase(serverUrl, name),
    drop: () => Effect.runPromise(Effect.asVoid(admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)))
  }
}
