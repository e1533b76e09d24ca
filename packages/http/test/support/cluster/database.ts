/**
 * A fresh PostgreSQL database for a multi-process test or benchmark, on `DATABASE_URL`'s server,
 * with a client of the test's own: SQL for the checks, and the SQL simulated chain the processes
 * share (to fund contracts' addresses, as a customer's transfer would).
 */
import { PgClient } from "@effect/sql-pg"
import { SimulatedChain, SqlSimulatedChain } from "@ratelock/adapters-chain"
import { Money, type Rail } from "@ratelock/core"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const withDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

const admin = (serverUrl: string, statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(serverUrl), maxConnections: 1 }))
    )
  )

export interface Database {
  readonly url: string
  /** Rows of one query on the database. */
  readonly query: <Row extends object>(
    f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<Row>, unknown>
  ) => Promise<ReadonlyArray<Row>>
  /** A customer's transfer of `amount` of the contract's token to its funding address, confirmed at once. */
  readonly fund: (contract: {
    readonly chain: Rail.Chain
    readonly settlement_currency: Rail.FundsCurrency
    readonly funding_wallet_address: string
    readonly total_amount: string
  }) => Promise<void>
  /** Closes the client and drops the database (stop the processes on it first). */
  readonly drop: () => Promise<void>
}

export const freshDatabase = async (serverUrl: string, prefix = "ratelock_cluster"): Promise<Database> => {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  await admin(serverUrl, `CREATE DATABASE ${name}`)
  const url = withDatabase(serverUrl, name)
  const runtime = ManagedRuntime.make(
    SqlSimulatedChain.layer.pipe(
      Layer.provideMerge(PgClient.layer({ url: Redacted.make(url), maxConnections: 4 })),
      Layer.orDie
    )
  )
  return {
    url,
    query: (f) => runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie)),
    fund: (contract) =>
      runtime.runPromise(
        SimulatedChain.SimulatedChain.use((chain) =>
          chain.fund(
            { chain: contract.chain, environment: "sandbox", token: contract.settlement_currency },
            contract.funding_wallet_address,
            Money.unsafe(contract.total_amount)
          )
        ).pipe(Effect.asVoid, Effect.orDie)
      ),
    drop: async () => {
      await runtime.dispose()
      await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    }
  }
}

/** Polls until the contract is `active` (funding confirmed by a worker); fails on any other end. */
export const waitActive = async (db: Database, contractId: string, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const [row] = await db.query<{ readonly status: string }>(
      (sql) => sql`SELECT status FROM contracts WHERE id = ${contractId}`
    )
    if (row?.status === "active") return
    if (row !== undefined && row.status !== "quote_created" && row.status !== "funds_in_route") {
      throw new Error(`contract ${contractId} became ${row.status} instead of active`)
    }
    if (Date.now() > deadline) throw new Error(`contract ${contractId} not active after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
