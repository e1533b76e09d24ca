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
import { killWorkers } from "./support/cluster/workerKiller.ts"

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
        const killer = killWorkers(cluster, workers, leaseMs)
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
          while (killer.kills() < 12 && !killer.ended()) await sleep(200)
          const failure = await killer.stop()
          if (failure !== undefined) throw failure
          await waitQuiet(db, receiver, done, 60_000)
          const figures = await check(db, receiver, done)
          console.log(
            `crash safety: ${done.length} lifecycles driven in ${driven} ms, ${killer.kills()} worker SIGKILLs, quiet after ` +
              `${Date.now() - started} ms; ${JSON.stringify(figures)}`
          )
          assert.isAtLeast(killer.kills(), 12)
          assert.strictEqual(figures.contracts, lifecycles)
        } finally {
          await killer.stop()
          driver.close()
        }
      }
    )
  )
})
