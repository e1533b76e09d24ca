/**
 * Crash safety of the lifecycle engine: one API process and two worker processes on a fresh
 * PostgreSQL database, partner created with the CLI, 200 contracts driven over HTTP (over 20 s)
 * through quote → contract → funding → exercise (half paid, half zero payouts), while a worker
 * process is SIGKILLed every 1–2 s and started again (leases of 2 s, payouts confirming after
 * 0.5 s). Once quiet: every contract settled exactly once, no payout broadcast twice, every event
 * delivered (in order per contract, duplicates only under one `event_id`), and the ledger summing
 * to zero. Skipped without `DATABASE_URL`.
 */
import { assert, describe, it } from "vitest"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { waitActive } from "./support/cluster/database.ts"
import { Driver, runMany } from "./support/cluster/drive.ts"
import { check, waitQuiet } from "./support/cluster/guarantees.ts"
import { withCluster } from "./support/cluster/setup.ts"
import type { Child } from "./support/processes.ts"

const lifecycles = 200
const leaseMs = 2_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(databaseUrl === undefined)("crash safety (PostgreSQL, SIGKILLed workers)", () => {
  it("keeps every guarantee while workers are killed mid-work", { timeout: 170_000 }, () =>
    withCluster(
      databaseUrl!,
      { prefix: "ratelock_crash", env: { RATELOCK_SANDBOX_CONFIRM_MS: "500" } },
      async ({ db, receiver, cluster, partner }) => {
        const [{ baseUrl }, ...workers] = await Promise.all([
          cluster.startApi("api"),
          cluster.startWorker("worker-a", { leaseMs }),
          cluster.startWorker("worker-b", { leaseMs })
        ])
        const pool: Array<Child> = workers
        let kills = 0
        let killing = true
        // kills a worker every 1–2 s and starts another in its place; resolves with its failure, if any
        const killer = (async () => {
          while (killing) {
            await sleep(1_000 + Math.random() * 1_000)
            const i = Math.floor(Math.random() * pool.length)
            await cluster.kill(pool[i]!)
            kills++
            pool[i] = await cluster.startWorker(`worker-${kills}`, { leaseMs })
          }
        })().then(
          () => undefined,
          (error: unknown) => error
        )
        let killerEnded = false
        void killer.then(() => (killerEnded = true))
        const driver = new Driver({
          baseUrls: [baseUrl],
          key: { keyId: partner.keyId, secret: partner.secret },
          fund: db.fund,
          waitActive: (id) => waitActive(db, id, 60_000),
          sockets: 12
        })
        const started = Date.now()
        try {
          const done = await runMany(driver, lifecycles, 8, 20_000)
          const driven = Date.now() - started
          // go on killing through the payouts and deliveries still in flight: at least 12 kills,
          // however long a loaded machine takes to start the workers again
          while (kills < 12 && !killerEnded) await sleep(200)
          killing = false
          const failure = await killer
          if (failure !== undefined) throw failure
          await waitQuiet(db, receiver, done, 60_000)
          const figures = await check(db, receiver, done)
          console.log(
            `crash safety: ${done.length} lifecycles driven in ${driven} ms, ${kills} worker SIGKILLs, quiet after ` +
              `${Date.now() - started} ms; ${JSON.stringify(figures)}`
          )
          assert.isAtLeast(kills, 12)
          assert.strictEqual(figures.contracts, lifecycles)
        } finally {
          killing = false
          await killer
          driver.close()
        }
      }
    )
  )
})
