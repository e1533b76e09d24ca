/**
 * What the daily closes' end-to-end tests share: a book of open locks seeded straight into the store (thousands in
 * a second, so that a close takes a visible time), and the checks of what a database holds of its closes, from SQL
 * alone (a close row with every lock it names, no lock without its close, one close per environment and cut).
 *
 * On any database with the service's tables: PostgreSQL, or an embedded one once its server stopped.
 */
import type { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert } from "vitest"
import type { Readable } from "./cluster/database.ts"

const example = readFileSync(join(import.meta.dirname, "../../../../docs/market/example-snapshot.json"), "utf8")

/** docs/market's example snapshot as of `asOf`: in force for production while it is fresh, for the sandbox always. */
export const exampleSnapshot = (asOf: Date) => ({ ...JSON.parse(example), as_of: asOf.toISOString() })

/** What `query` of a writable database runs: any statement, no rows wanted. */
export type Writable = {
  readonly query: <Row extends object>(
    f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<Row>, unknown>
  ) => Promise<ReadonlyArray<Row>>
}

/**
 * `count` active options of `partnerId` in `environment`, as the store holds a lock funded and open: its quote, the
 * contract (funded, `active`, version 2) and its two history rows. Half USD_TO_BRL on 10,000 to 59,000 USD, half
 * EUR_TO_USD on as many EUR, strikes around the spot, windows opened an hour ago and ending in 1 to 60 days: a book
 * the revaluation prices lock by lock. No ledger entry: what they paid was booked before any close the tests take.
 * Ids are md5-derived from `salt` and the lock's number, so two seeds with different salts never collide.
 */
export const seedOpenBook = async (
  db: Writable,
  options: {
    readonly partnerId: string
    readonly environment: "sandbox" | "production"
    readonly count: number
    readonly salt: string
  }
): Promise<void> => {
  const { partnerId, environment, count, salt } = options
  await db.query(
    (sql) => sql`INSERT INTO quotes (id, partner_id, environment, customer_reference_id, customer_name, contract_type,
        direction, notional_currency, notional_amount, provider_rate, market_rate, market_rate_timestamp, strike_mode,
        target_strike, provider_extra_spread, status, locked_rate, strike_advantage_bps, premium_amount, total_amount,
        max_transaction_amount, window_start, window_end, chain, settlement_currency, expires_at, created_at, accepted_at)
      SELECT md5(${salt} || 'q' || i)::uuid, ${partnerId}::uuid, ${environment}, 'seed-' || i, 'Ana Souza', 'option',
        b.direction, b.notional_currency, b.notional, b.spot, b.spot, t - interval '2 seconds', 'custom',
        b.strike, 0, 'created', b.strike, 0, 12.345678, 12.345678,
        b.notional, t - interval '1 hour', t + (1 + i % 60) * interval '1 day',
        'polygon', 'USDC', t + interval '90 seconds', t - interval '1 second', t
      FROM generate_series(1, ${count}::int) AS g(i),
        LATERAL (SELECT now() - interval '10 minutes' AS t) AS c,
        LATERAL (SELECT
          CASE WHEN i % 2 = 0 THEN 'USD_TO_BRL' ELSE 'EUR_TO_USD' END AS direction,
          CASE WHEN i % 2 = 0 THEN 'USD' ELSE 'EUR' END AS notional_currency,
          (10000 + (i % 50) * 1000)::numeric AS notional,
          CASE WHEN i % 2 = 0 THEN 5.4120 ELSE 1.1650 END AS spot,
          CASE WHEN i % 2 = 0 THEN 5.30 + (i % 23) * 0.01 ELSE 1.14 + (i % 11) * 0.005 END AS strike) AS b
      RETURNING 1`
  )
  await db.query(
    (sql) => sql`INSERT INTO contracts (id, partner_id, environment, quote_id, service_contract_reference,
        customer_reference_id, partner_transaction_reference, contract_type, direction, notional_currency,
        notional_amount, locked_rate, provider_rate_at_lock, market_rate_at_lock, premium_amount, total_amount,
        max_transaction_amount, window_start, window_end, chain, settlement_currency, funding_wallet_address,
        funded_amount, funding_deadline, status, event_sequence, version, created_at, updated_at)
      SELECT md5(${salt} || 'c' || q.customer_reference_id)::uuid, q.partner_id, q.environment, q.id,
        'RL-SEED-' || ${salt} || '-' || q.customer_reference_id, q.customer_reference_id, NULL, q.contract_type,
        q.direction, q.notional_currency, q.notional_amount, q.locked_rate, q.provider_rate, q.market_rate,
        q.premium_amount, q.total_amount, q.max_transaction_amount, q.window_start, q.window_end, q.chain,
        q.settlement_currency, '0x' || md5(${salt} || 'w' || q.customer_reference_id) || '00000000',
        q.total_amount, q.created_at + interval '1 hour', 'active', 0, 2, q.accepted_at, q.accepted_at + interval '1 second'
      FROM quotes q WHERE q.id IN (SELECT md5(${salt} || 'q' || i)::uuid FROM generate_series(1, ${count}::int) AS g(i))
      RETURNING 1`
  )
  await db.query(
    (sql) => sql`INSERT INTO contract_history (contract_id, seq, status, at, cause)
      SELECT c.id, h.seq, h.status, c.created_at + h.later, h.cause
      FROM contracts c, (VALUES (1, 'quote_created', interval '0', 'contract created from quote'),
        (2, 'active', interval '1 second', 'funding confirmed')) AS h(seq, status, later, cause)
      WHERE c.service_contract_reference LIKE ${`RL-SEED-${salt}-%`}
      RETURNING 1`
  )
}

/** The environment's contracts open now (`active`): what a close of it holds, one lock each. */
export const openContracts = async (db: Readable, environment: string): Promise<ReadonlyArray<string>> =>
  (
    await db.query<{ readonly id: string }>(
      (sql) => sql`SELECT id::text FROM contracts WHERE environment = ${environment} AND status = 'active' ORDER BY id`
    )
  ).map((r) => r.id)

export interface CloseRow {
  readonly id: string
  readonly environment: string
  /** Epoch milliseconds. */
  readonly closed_at: number
  readonly scheduled_for: number | null
  readonly previous_close_id: string | null
  /** Σ of the summary's pairs' `open_locks`: the locks the close says it holds. */
  readonly open_locks: number
  /** The lock rows stored with it. */
  readonly locks: number
  readonly has_pnl: boolean
}

/** Every close, oldest first, with what its summary says it holds and the lock rows it has. */
export const closeRows = (db: Readable): Promise<ReadonlyArray<CloseRow>> =>
  db.query<CloseRow>(
    (sql) => sql`SELECT d.id, d.environment, (extract(epoch FROM d.closed_at) * 1000)::float8 AS closed_at,
        (extract(epoch FROM d.scheduled_for) * 1000)::float8 AS scheduled_for, d.summary ->> 'previous_close_id' AS previous_close_id,
        (SELECT coalesce(sum((p ->> 'open_locks')::int), 0) FROM jsonb_array_elements(d.summary -> 'pairs') AS p)::int
          AS open_locks,
        (SELECT count(*) FROM daily_close_locks l WHERE l.close_id = d.id)::int AS locks,
        jsonb_typeof(d.summary -> 'pnl') = 'object' AS has_pnl
      FROM daily_closes d ORDER BY d.closed_at, d.id`
  )

/** The contract ids a close stored locks of, sorted. */
export const lockIds = async (db: Readable, closeId: string): Promise<ReadonlyArray<string>> =>
  (
    await db.query<{ readonly id: string }>(
      (sql) => sql`SELECT contract_id AS id FROM daily_close_locks WHERE close_id = ${closeId} ORDER BY contract_id`
    )
  ).map((r) => r.id)

/**
 * Nothing half written: every close has exactly the lock rows its summary counts, no lock row is without its close,
 * and no environment has two closes for one cut. Answers the closes.
 */
export const wholeCloses = async (db: Readable): Promise<ReadonlyArray<CloseRow>> => {
  const closes = await closeRows(db)
  for (const c of closes) assert.strictEqual(c.locks, c.open_locks, `close ${c.id}: lock rows against its pairs`)
  const [orphans] = await db.query<{ readonly n: number }>(
    (sql) => sql`SELECT count(*)::int AS n FROM daily_close_locks l
      WHERE NOT EXISTS (SELECT 1 FROM daily_closes d WHERE d.id = l.close_id)`
  )
  assert.strictEqual(orphans!.n, 0, "lock rows without their close")
  const cuts = new Map<string, number>()
  for (const c of closes) {
    if (c.scheduled_for === null) continue
    const key = `${c.environment} ${c.scheduled_for}`
    cuts.set(key, (cuts.get(key) ?? 0) + 1)
  }
  for (const [cut, n] of cuts) assert.strictEqual(n, 1, `closes for ${cut}`)
  return closes
}

/** `HH:MM`, UTC, of the instant `at`: a `RATELOCK_DAILY_CLOSE` whose latest cut is that minute. */
export const cutAt = (at: number): string => new Date(at).toISOString().slice(11, 16)

/** The latest cut at `HH:MM` at or before `now` (core's `DailyClose.latestCut`), epoch milliseconds. */
export const latestCutOf = (cut: string, now = Date.now()): number => {
  const today = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T${cut}:00.000Z`)
  return today <= now ? today : today - 86_400_000
}

/** Polls `read` until `done` holds of what it answered; fails naming `what` and the last answer after `timeoutMs`. */
export const until = async <A>(
  read: () => Promise<A>,
  done: (a: A) => boolean,
  what: string,
  options: { readonly timeoutMs?: number; readonly everyMs?: number } = {}
): Promise<A> => {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000)
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`)
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 100))
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
