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
import * as Hedge from "./support/hedge/guarantees.ts"
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
      const positions = () => Hedge.positions(db, "production")
      const deadline = Date.now() + 90_000
      for (;;) {
        const open = await Hedge.outstanding(db)
        const held = await positions()
        const within = pairs.every((pair) => {
          const residual = Money.sum(Money.unsafe(final[pair as keyof typeof final]), held.get(pair) ?? Money.zero)
          return !Money.greaterThan(
            Money.max(residual, Money.subtract(Money.zero, residual)),
            Money.unsafe(bands[pair]!)
          )
        })
        if (open === 0 && within) break
        if (Date.now() > deadline) {
          throw new Error(
            `not quiet: ${open} outstanding, positions ${JSON.stringify([...held].map(([p, v]) => [p, Money.format(v)]))}`
          )
        }
        await sleep(250)
      }

      // every order ended, each executed once, decisions in turn, positions the venue's fills, ledger at zero
      const { orders, rejected } = await Hedge.check(db)
      assert.isAbove(orders, 10)
      // BASE held on the hedge account is the position
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
      console.log(
        `hedging crash safety: ${orders} orders (${rejected} rejected), ${moves} delta moves, ${armed} armed, ${kills} SIGKILLs`
      )
      assert.isAtLeast(kills, 8)
    } finally {
      await Promise.all(pool.map(async (h) => (h.child.exitCode === null ? stop(h.child) : undefined)))
      await db.drop()
    }
  })
})
