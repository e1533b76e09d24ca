/**
 * Two API processes and two worker processes on one fresh PostgreSQL database: 200 concurrent
 * lifecycles (quote → contract → funding → exercise, half paid, half zero payouts), each request
 * sent to the next API in turn, so one contract's steps land on both. Once quiet, the guarantees
 * of the crash test hold: every contract settled exactly once, no payout broadcast twice, every
 * event delivered in order per contract, the ledger summing to zero. Skipped without
 * `DATABASE_URL`.
 */
import { assert, describe, it } from "vitest"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { waitActive } from "./support/cluster/database.ts"
import { Driver, runMany } from "./support/cluster/drive.ts"
import { check, waitQuiet } from "./support/cluster/guarantees.ts"
import { withCluster } from "./support/cluster/setup.ts"

const lifecycles = 200

describe.skipIf(databaseUrl === undefined)("several API and worker processes on one PostgreSQL", () => {
  it("run concurrent lifecycles with the lifecycle guarantees", { timeout: 170_000 }, () =>
    withCluster(databaseUrl!, { prefix: "ratelock_multi" }, async ({ db, receiver, cluster, partner }) => {
      const [a, b] = await Promise.all([
        cluster.startApi("api-a"),
        cluster.startApi("api-b"),
        cluster.startWorker("worker-a"),
        cluster.startWorker("worker-b")
      ])
      const driver = new Driver({
        baseUrls: [a.baseUrl, b.baseUrl],
        key: { keyId: partner.keyId, secret: partner.secret },
        fund: db.fund,
        waitActive: (id) => waitActive(db, id, 60_000),
        sockets: 32
      })
      const started = Date.now()
      try {
        const done = await runMany(driver, lifecycles, 16)
        await waitQuiet(db, receiver, done, 60_000)
        const figures = await check(db, receiver, done)
        console.log(`multi-process: quiet after ${Date.now() - started} ms; ${JSON.stringify(figures)}`)
        assert.strictEqual(figures.contracts, lifecycles)
      } finally {
        driver.close()
      }
    })
  )
})
