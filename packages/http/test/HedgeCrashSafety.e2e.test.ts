/**
 * Crash safety of the hedger on PostgreSQL, twice. Skipped without `DATABASE_URL`.
 *
 * The hedging pass alone: two hedging worker processes (`support/hedge/hedger.ts`: core's pass on
 * the SQL simulated venue) on a fresh database, policies set with the CLI, while the book's delta
 * of two pairs moves every 250 ms for 20 s, the venue is told now and then to reject or to time
 * out the next order, and a worker is SIGKILLed every 1–2 s and started again. Once the delta
 * stops and the workers go quiet: every order ended filled or rejected, the venue executed each
 * order once and holds nothing we did not send, every decision saw every earlier fill of its pair
 * (no two decisions ever overlapped), positions equal the sum of the venue's fills, the ledger sums
 * to zero per currency, and each pair's residual is within its band.
 *
 * As deployed: an API process and two `ratelock worker` processes with `RATELOCK_HEDGING=simulated`
 * and the book revalued every second; sandbox policies set with the CLI; locks sold over HTTP in
 * two pairs for 20 s (`support/hedge/book.ts`: funded on the simulated chain, a third left open,
 * the others exercised and paid out) while `ratelock hedge simulate` arms a rejection, then a
 * timeout, in turn, and a worker is SIGKILLed every 1–2 s (at least 12 times) and started again. Once
 * settled, delivered and hedged: the same hedging guarantees, each armed action taken by one order,
 * each pair within its band of the stored revaluation's delta, and the lifecycles' guarantees.
 */
import { assert, describe, it } from "vitest"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { eventually, start, stop } from "@ratelock/test-support/Processes"
import { join } from "node:path"
import { Money } from "@ratelock/core"
import { type Database, freshDatabase, waitActive } from "./support/cluster/database.ts"
import { Driver, type Lifecycle } from "./support/cluster/drive.ts"
import { check as checkLifecycles, waitQuiet } from "./support/cluster/guarantees.ts"
import { withCluster } from "./support/cluster/setup.ts"
import { held, paid, policyCommands, quoteOf } from "./support/hedge/book.ts"
import * as Hedge from "./support/hedge/guarantees.ts"
import { killWorkers } from "./support/cluster/workerKiller.ts"
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

  it("locks sold over HTTP, hedged by ratelock worker processes SIGKILLed mid-work", { timeout: 300_000 }, () =>
    withCluster(
      databaseUrl!,
      {
        prefix: "ratelock_hedge_workers",
        env: { RATELOCK_HEDGING: "simulated", RATELOCK_RISK_INTERVAL_SECONDS: "1", RATELOCK_SANDBOX_CONFIRM_MS: "500" }
      },
      async ({ db, receiver, cluster, partner }) => {
        const locks = 60
        const workerLeaseMs = 2_000
        for (const args of policyCommands("sandbox")) await cliJson(db.url, ...args)
        const [{ baseUrl }, ...workers] = await Promise.all([
          cluster.startApi("api"),
          cluster.startWorker("worker-a", { leaseMs: workerLeaseMs }),
          cluster.startWorker("worker-b", { leaseMs: workerLeaseMs })
        ])
        const killer = killWorkers(cluster, workers, workerLeaseMs)
        // the operator arms the venue while the locks sell: a rejection, then a timeout, and so on,
        // 1–2 s after the last (the CLI itself takes seconds on a loaded machine)
        const armed = { reject: 0, timeout: 0 }
        let driving = true
        const arming = (async () => {
          for (let i = 0; driving; i++) {
            const action = i % 2 === 0 ? "reject" : "timeout"
            await cliJson(db.url, "hedge", "simulate", `--${action}-next`)
            armed[action]++
            await sleep(1_000 + Math.random() * 1_000)
          }
        })()
        const driver = new Driver({
          baseUrls: [baseUrl],
          key: { keyId: partner.keyId, secret: partner.secret },
          fund: db.fund,
          waitActive: (id) => waitActive(db, id, 60_000),
          sockets: 12
        })
        const started = Date.now()
        try {
          // `locks` over 20 s, 6 at a time
          const done: Array<Lifecycle> = []
          let next = 0
          await Promise.all(
            Array.from({ length: 6 }, async () => {
              while (next < locks) {
                const n = next++
                const wait = started + (n * 20_000) / locks - Date.now()
                if (wait > 0) await sleep(wait)
                if (held(n)) await driver.lock(n, quoteOf(n))
                else done.push(await driver.run(n, paid(n), quoteOf(n)))
              }
            })
          ).finally(() => {
            driving = false
          })
          await arming
          const driven = Date.now() - started
          while (killer.kills() < 12 && !killer.ended()) await sleep(200)
          const failure = await killer.stop()
          if (failure !== undefined) throw failure
          // what is still armed would wait for an order the still book may never need: disarmed,
          // so each action armed and not disarmed was taken by one order
          const left = await db.query<{ readonly action: "reject" | "timeout"; readonly remaining: number }>(
            (sql) => sql`WITH old AS (SELECT action, remaining FROM sim_hedge_venue_control FOR UPDATE)
              UPDATE sim_hedge_venue_control c SET remaining = 0 FROM old WHERE c.action = old.action
              RETURNING c.action, old.remaining`
          )
          const taken = { ...armed }
          for (const l of left) taken[l.action] -= l.remaining

          await waitQuiet(db, receiver, done, 60_000)
          // hedged: nothing outstanding, a revaluation of the still book, every pair within its band
          const still = new Date()
          const deadline = Date.now() + 90_000
          for (;;) {
            const open = await Hedge.outstanding(db)
            const standing = await Hedge.standings(db)
            if (open === 0 && standing.every((s) => s.within && s.computedAt > still)) break
            if (Date.now() > deadline) {
              throw new Error(
                `not hedged: ${open} outstanding, ${JSON.stringify(standing.map((s) => [s.pair, s.within, Money.format(s.delta), Money.format(s.position)]))}`
              )
            }
            await sleep(250)
          }

          const figures = await Hedge.check(db)
          assert.strictEqual(figures.rejected, taken.reject, "each armed rejection taken by one order")
          assert.strictEqual(figures.timedOut, taken.timeout, "each armed timeout taken by one order")
          const standings = await Hedge.withinBands(db)
          for (const s of standings) assert.isFalse(Money.isZero(s.position), `${s.pair}: the open locks are hedged`)
          const lifecycles = await checkLifecycles(db, receiver, done)
          console.log(
            `hedging crash safety (workers): ${locks} locks driven in ${driven} ms, ${killer.kills()} worker SIGKILLs, ` +
              `armed ${JSON.stringify(armed)} (taken ${JSON.stringify(taken)}), hedged after ${Date.now() - started} ms; ` +
              `hedge ${JSON.stringify(figures)}; positions ${JSON.stringify(standings.map((s) => [s.pair, Money.format(s.position), Money.format(s.delta)]))}; ` +
              JSON.stringify(lifecycles)
          )
          assert.isAtLeast(killer.kills(), 12)
          assert.isAtLeast(taken.reject + taken.timeout, 1)
          assert.strictEqual(standings.length, 2)
        } finally {
          driving = false
          await killer.stop()
          await arming.catch(() => undefined)
          driver.close()
        }
      }
    )
  )
})
