/**
 * Crash safety of the hedger: two hedging worker processes (`support/hedge/hedger.ts`: core's
 * pass on the SQL simulated venue) on a fresh PostgreSQL database, policies set with the CLI,
 * while the book's delta of two pairs moves every 250 ms for 20 s, the venue is told now and then
 * to reject or to time out the next order, and a worker is SIGKILLed every 1–2 s and started
 * again. Once the delta stops and the workers go quiet: every order ended filled or rejected, the
 * venue executed each order once and holds nothing we did not send, every decision saw every
 * earlier fill of its pair (no two decisions ever overlapped), positions equal the sum of the
 * venue's fills, the ledger sums to zero per currency, and each pair's residual is within its
 * band. Skipped without `DATABASE_URL`.
 */
import { assert, describe, it } from "vitest"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { eventually, start, stop } from "@ratelock/test-support/Processes"
import { join } from "node:path"
import { Money } from "@ratelock/core"
import { type Database, freshDatabase } from "./support/cluster/database.ts"
import { cliJson, packageDir } from "./support/processes.ts"

const leaseMs = 3_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const bands: Record<string, string> = { "USD/BRL": "50000", "EUR/USD": "20000" }
const pairs = Object.keys(bands)

/** A delta in BASE units, whole or with cents, either sign, up to a few million. */
const randomDelta = () => {
  const cents = Math.floor((Math.random() * 2 - 1) * 300_000_000)
  return Money.format(Money.fromBaseUnits(BigInt(cents), 2))
}

const startHedger = async (url: string, name: string) => {
  const hedger = start(process.execPath, ["--conditions=source", join("test", "support", "hedge", "hedger.ts")], {
    cwd: packageDir,
    env: {
      ...process.env,
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: "4",
      RATELOCK_LOG_LEVEL: "Warn",
      RATELOCK_WORKER_POLL_MS: "50",
      RATELOCK_WORKER_LEASE_MS: String(leaseMs)
    }
  })
  await eventually(
    () => hedger.stdout().includes("hedger running") || hedger.child.exitCode !== null || undefined,
    60_000,
    () => `${name} to start: ${hedger.output()}`
  )
  if (hedger.child.exitCode !== null) throw new Error(`${name} exited at start: ${hedger.output()}`)
  return hedger
}

type Hedger = Awaited<ReturnType<typeof startHedger>>

const setDeltas = (db: Database, deltas: Record<string, string>) =>
  db.query(
    (sql) => sql`INSERT INTO test_book_delta (environment, pair, delta)
      SELECT 'production', pair, delta FROM unnest(${Object.keys(deltas)}::text[], ${Object.values(deltas)}::numeric[])
        AS d (pair, delta)
      ON CONFLICT (environment, pair) DO UPDATE SET delta = excluded.delta RETURNING pair`
  )

interface OrderRow {
  readonly id: string
  readonly pair: string
  readonly side: "buy" | "sell"
  readonly status: string
  readonly position: string
  readonly fill_rate: string | null
  readonly fill_amount: string | null
  readonly created_at: Date
}

interface VenueRow {
  readonly order_id: string
  readonly pair: string
  readonly side: "buy" | "sell"
  readonly outcome: string
  readonly rate: string | null
  readonly amount: string
  readonly executions: number
}

const signed = (side: "buy" | "sell", amount: string) =>
  side === "buy" ? Money.unsafe(amount) : Money.subtract(Money.zero, Money.unsafe(amount))

describe.skipIf(databaseUrl === undefined)("hedging crash safety (PostgreSQL, SIGKILLed hedgers)", () => {
  it("no order twice, every order ended, positions from fills, residuals within band", {
    timeout: 240_000
  }, async () => {
    const db = await freshDatabase(databaseUrl!, "ratelock_hedge_crash")
    const pool: Array<Hedger> = []
    try {
      // the policies, as an operator sets them (this also migrates the database)
      await cliJson(
        db.url,
        "hedge",
        "policy",
        "set",
        "--environment",
        "production",
        "--pair",
        "USD/BRL",
        "--band",
        bands["USD/BRL"]!,
        "--instrument",
        "spot"
      )
      await cliJson(
        db.url,
        "hedge",
        "policy",
        "set",
        "--environment",
        "production",
        "--pair",
        "EUR/USD",
        "--band",
        bands["EUR/USD"]!,
        "--instrument",
        "forward",
        "--value-days",
        "30"
      )
      await db.query(
        (sql) => sql`CREATE TABLE test_book_delta (environment text, pair text, delta numeric NOT NULL,
          PRIMARY KEY (environment, pair))`
      )
      await setDeltas(db, { "USD/BRL": "0", "EUR/USD": "0" })
      pool.push(...(await Promise.all([startHedger(db.url, "hedger-a"), startHedger(db.url, "hedger-b")])))

      let kills = 0
      let running = true
      const killer = (async () => {
        while (running) {
          await sleep(1_000 + Math.random() * 1_000)
          if (!running) break
          const i = Math.floor(Math.random() * pool.length)
          await stop(pool[i]!.child)
          await pool[i]!.exited
          kills++
          pool[i] = await startHedger(db.url, `hedger-${kills}`)
        }
      })()
      const started = Date.now()
      let moves = 0
      let armed = 0
      while (Date.now() - started < 20_000) {
        await setDeltas(db, Object.fromEntries(pairs.map((pair) => [pair, randomDelta()])))
        moves++
        if (moves % 8 === 0) {
          const action = Math.random() < 0.5 ? "reject" : "timeout"
          await db.query(
            (sql) => sql`INSERT INTO sim_hedge_venue_control (action, remaining) VALUES (${action}, 1)
              ON CONFLICT (action) DO UPDATE SET remaining = sim_hedge_venue_control.remaining + 1 RETURNING action`
          )
          armed++
        }
        await sleep(250)
      }
      const final = { "USD/BRL": "1234567.89", "EUR/USD": "-765432.1" }
      await setDeltas(db, final)
      while (kills < 8) await sleep(200)
      running = false
      await killer
      // what is still armed would wait for an order the final delta may never need
      await db.query((sql) => sql`UPDATE sim_hedge_venue_control SET remaining = 0 RETURNING action`)

      // quiet: nothing outstanding, and every pair within its band of the final delta
      const positions = async () =>
        new Map(
          (
            await db.query<{ readonly pair: string; readonly position: string }>(
              (
                sql
              ) => sql`SELECT pair, coalesce(sum(CASE side WHEN 'buy' THEN fill_amount ELSE -fill_amount END), 0)::text
                AS position FROM hedge_orders WHERE status = 'filled' GROUP BY pair`
            )
          ).map((r) => [r.pair, Money.unsafe(r.position)])
        )
      const deadline = Date.now() + 90_000
      for (;;) {
        const [open] = await db.query<{ readonly n: number }>(
          (sql) => sql`SELECT count(*)::int AS n FROM hedge_orders WHERE status IN ('intended', 'sent')`
        )
        const held = await positions()
        const within = pairs.every((pair) => {
          const residual = Money.sum(Money.unsafe(final[pair as keyof typeof final]), held.get(pair) ?? Money.zero)
          return !Money.greaterThan(
            Money.max(residual, Money.subtract(Money.zero, residual)),
            Money.unsafe(bands[pair]!)
          )
        })
        if (open!.n === 0 && within) break
        if (Date.now() > deadline) {
          throw new Error(
            `not quiet: ${open!.n} outstanding, positions ${JSON.stringify([...held].map(([p, v]) => [p, Money.format(v)]))}`
          )
        }
        await sleep(250)
      }

      const orders = await db.query<OrderRow>(
        (sql) => sql`SELECT id::text, pair, side, status, position::text, fill_rate::text, fill_amount::text, created_at
          FROM hedge_orders ORDER BY created_at, id`
      )
      const venue = await db.query<VenueRow>(
        (sql) =>
          sql`SELECT order_id::text, pair, side, outcome, rate::text, amount::text, executions FROM sim_hedge_fills`
      )
      const received = new Map(venue.map((v) => [v.order_id, v]))
      assert.isAbove(orders.length, 10)
      // every order ended; the venue got each once and nothing else
      assert.isTrue(orders.every((o) => o.status === "filled" || o.status === "rejected"))
      assert.strictEqual(venue.length, orders.length)
      for (const o of orders) {
        const v = received.get(o.id)
        assert.isDefined(v, `order ${o.id} never reached the venue`)
        assert.strictEqual(v!.executions, 1, `order ${o.id} executed ${v!.executions} times`)
        assert.strictEqual(v!.outcome, o.status)
        if (o.status === "filled") {
          assert.isTrue(Money.equals(Money.unsafe(v!.rate!), Money.unsafe(o.fill_rate!)))
          assert.isTrue(Money.equals(Money.unsafe(v!.amount), Money.unsafe(o.fill_amount!)))
        }
      }
      // each decision saw every earlier fill of its pair: no two decisions overlapped
      for (const pair of pairs) {
        let position = Money.zero
        for (const o of orders.filter((x) => x.pair === pair)) {
          assert.isTrue(
            Money.equals(Money.unsafe(o.position), position),
            `${pair} order ${o.id} decided from ${o.position}, not ${Money.format(position)}`
          )
          if (o.status === "filled") position = Money.sum(position, signed(o.side, o.fill_amount!))
        }
        // the position is the venue's fills
        const fills = venue
          .filter((v) => v.pair === pair && v.outcome === "filled")
          .reduce((sum, v) => Money.sum(sum, signed(v.side, v.amount)), Money.zero)
        assert.isTrue(Money.equals((await positions()).get(pair) ?? Money.zero, fills))
        assert.isTrue(Money.equals(position, fills))
      }
      // the ledger sums to zero per currency; BASE held on the hedge account is the position
      const balances = await db.query<{ readonly currency: string; readonly total: string }>(
        (sql) => sql`SELECT currency, sum(amount)::text AS total FROM hedge_ledger_entries GROUP BY currency`
      )
      assert.isAbove(balances.length, 0)
      for (const b of balances) assert.isTrue(Money.isZero(Money.unsafe(b.total)), `${b.currency} ${b.total}`)
      const held = await db.query<{ readonly currency: string; readonly total: string }>(
        (sql) => sql`SELECT currency, sum(amount)::text AS total FROM hedge_ledger_entries
          WHERE account = 'hedge_position' AND currency IN ('USD', 'EUR') AND pair IN ('USD/BRL', 'EUR/USD')
            AND ((pair = 'USD/BRL' AND currency = 'USD') OR (pair = 'EUR/USD' AND currency = 'EUR'))
          GROUP BY currency`
      )
      const byPair = await positions()
      for (const h of held) {
        const pair = h.currency === "USD" ? "USD/BRL" : "EUR/USD"
        assert.isTrue(Money.equals(Money.unsafe(h.total), byPair.get(pair)!))
      }
      const rejected = orders.filter((o) => o.status === "rejected").length
      console.log(
        `hedging crash safety: ${orders.length} orders (${rejected} rejected), ${moves} delta moves, ${armed} armed, ${kills} SIGKILLs`
      )
      assert.isAtLeast(kills, 8)
    } finally {
      await Promise.all(pool.map(async (h) => (h.child.exitCode === null ? stop(h.child) : undefined)))
      await db.drop()
    }
  })
})
