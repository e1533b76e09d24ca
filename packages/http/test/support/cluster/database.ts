/**
 * A fresh PostgreSQL database for a multi-process test or benchmark, on `DATABASE_URL`'s server,
 * with a client of the test's own: SQL for the checks, and the SQL simulated chain the processes
 * share (to fund contracts' addresses, as a customer's transfer would).
 */
import { SimulatedChain, SqlSimulatedChain } from "@ratelock/adapters-chain"
import { Money, type Rail } from "@ratelock/core"
import * as Postgres from "@ratelock/test-support/Postgres"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"

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

/** What the checks read: any database with the service's tables (PostgreSQL, or an embedded one once its server stopped). */
export type Readable = Pick<Database, "query">

export const freshDatabase = async (serverUrl: string, prefix = "ratelock_cluster"): Promise<Database> => {
  const db = await Postgres.create(serverUrl, { prefix })
  const runtime = ManagedRuntime.make(
    SqlSimulatedChain.layer.pipe(Layer.provideMerge(Postgres.client(db.url, 4)), Layer.orDie)
  )
  return {
    url: db.url,
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
      await db.drop()
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
