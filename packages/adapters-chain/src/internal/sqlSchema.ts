/**
 * The tables of the SQL simulated chain, next to the store's in the same database (all named
 * `sim_…`), created when its layer is built: idempotent statements run under a transaction-scoped
 * advisory lock, so processes starting at once never race on `CREATE TABLE`. Tables added later
 * have their own file of statements (`sqlSweepSchema.ts`), run by the same `ensure`.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Column definitions the tables share. */
export const columns = {
  chain: `chain text NOT NULL CHECK (chain IN ('solana', 'ethereum', 'polygon'))`,
  environment: `environment text NOT NULL CHECK (environment IN ('sandbox', 'production'))`,
  token: `token text NOT NULL CHECK (token IN ('USDC', 'USDT', 'EURC', 'BRLA'))`,
  /** A broadcast's (a payout's or a sweep's) block and outcome: what a lookup reads of either. */
  broadcast: `block_number bigint NOT NULL CHECK (block_number >= 1),
    failure text,
    broadcast_at timestamptz(3) NOT NULL,
    confirmed_at timestamptz(3) NOT NULL`
}
const { chain, environment, token } = columns

/** The first tables: blocks, transfers, payout broadcasts and the reject switches. */
export const statements: ReadonlyArray<string> = [
  // the last block per network; a new block takes this row's lock until its transaction commits,
  // so blocks become visible in order and a reader that sees head N sees every block up to N
  `CREATE TABLE IF NOT EXISTS sim_heads (
    ${chain},
    ${environment},
    head bigint NOT NULL CHECK (head >= 1),
    PRIMARY KEY (chain, environment)
  )`,
  `CREATE TABLE IF NOT EXISTS sim_transfers (
    transaction_hash text PRIMARY KEY,
    ${chain},
    ${environment},
    ${token},
    address text NOT NULL,
    address_key text NOT NULL,
    amount numeric NOT NULL CHECK (amount > 0),
    block_number bigint NOT NULL CHECK (block_number >= 1),
    recorded_at timestamptz(3) NOT NULL,
    confirmed_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS sim_transfers_address
    ON sim_transfers (chain, environment, token, address_key, block_number)`,
  // one transaction per (payout, attempt): its hash is derived from both
  `CREATE TABLE IF NOT EXISTS sim_broadcasts (
    transaction_hash text PRIMARY KEY,
    payout_id text NOT NULL,
    attempt integer NOT NULL CHECK (attempt >= 0),
    ${chain},
    ${environment},
    ${token},
    destination text NOT NULL,
    amount numeric NOT NULL CHECK (amount > 0),
    ${columns.broadcast},
    CONSTRAINT sim_broadcasts_attempt_unique UNIQUE (payout_id, attempt)
  )`,
  // payouts the chain will reject, while present: the next broadcast of anyone's ('next'), of a
  // payout ('payout:<id>'), or of a contract's payout whose id is not known yet ('contract:<id>')
  `CREATE TABLE IF NOT EXISTS sim_rejections (target text PRIMARY KEY)`
]

/** An arbitrary constant: the advisory lock that serialises schema creation. */
const schemaLock = 7_246_311_902

/** Runs every list of statements, in order, under the lock. */
export const ensure = (...lists: ReadonlyArray<ReadonlyArray<string>>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.andThen(
        sql`SELECT pg_advisory_xact_lock(${schemaLock})`,
        Effect.forEach(lists.flat(), (statement) => sql.unsafe(statement), { discard: true })
      )
    )
  )
