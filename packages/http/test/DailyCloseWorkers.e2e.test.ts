/**
 * One daily close per environment and scheduled cut, whatever the number of workers: three `ratelock worker`
 * processes started at once on one PostgreSQL database, `RATELOCK_DAILY_CLOSE` a cut twenty minutes ago, so the
 * close is due in each at its start. A fresh snapshot is imported (production has market data, so both
 * environments close) and a book of open locks seeded in each environment. Their lease on closing is shorter than a
 * close: a worker whose first pass comes a little after another's takes the lease while the first still closes, and
 * the store alone keeps the cut's close one (in trial runs with the closes logged, two workers computed each
 * environment's close and the second insert wrote nothing).
 *
 * Once a close exists for each environment and each worker has run its daily-close pass (its heartbeat says so):
 * exactly one close per environment and cut, each complete (its locks are the environment's open contracts, every
 * lock row its pairs count, none without its close). Skipped without `DATABASE_URL`.
 */
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { freshDatabase } from "./support/cluster/database.ts"
import {
  closeRows,
  cutAt,
  exampleSnapshot,
  latestCutOf,
  lockIds,
  openContracts,
  seedOpenBook,
  until,
  wholeCloses
} from "./support/closes.ts"
import { Cluster, cliJson } from "./support/processes.ts"

const workers = 3
const books = { sandbox: 800, production: 500 } as const

describe.skipIf(databaseUrl === undefined)("the daily close with several workers", () => {
  it("three workers started at once: one close per environment and cut, each complete", {
    timeout: 120_000
  }, async () => {
    const db = await freshDatabase(databaseUrl!, "ratelock_close_workers")
    const cluster = new Cluster(db.url)
    try {
      const snapshotFile = join(tmpdir(), `ratelock-close-workers-${crypto.randomUUID()}.json`)
      writeFileSync(snapshotFile, JSON.stringify(exampleSnapshot(new Date())))
      // the command migrates the database too
      await cliJson(db.url, "market", "import", snapshotFile).finally(() => rmSync(snapshotFile, { force: true }))
      // a contract names its partner by id alone: the store need not know it
      const partnerId = crypto.randomUUID()
      for (const [environment, count] of Object.entries(books)) {
        await seedOpenBook(db, {
          partnerId,
          environment: environment as keyof typeof books,
          count,
          salt: environment
        })
      }
      const cut = cutAt(Date.now() - 20 * 60_000)
      const scheduledFor = latestCutOf(cut)
      const since = new Date().toISOString()

      await Promise.all(
        Array.from({ length: workers }, (_, i) =>
          cluster.startWorker(`worker-${i}`, { leaseMs: 250, env: { RATELOCK_DAILY_CLOSE: cut } })
        )
      )
      await until(
        async () => ({
          closed: (await closeRows(db)).map((c) => c.environment).sort(),
          passed: (
            await db.query<{ readonly n: number }>(
              (sql) => sql`SELECT count(DISTINCT owner)::int AS n FROM worker_heartbeats
                WHERE pass = 'daily-close' AND last_pass_at >= ${since}::timestamptz`
            )
          )[0]!.n
        }),
        (s) => s.closed.includes("production") && s.closed.includes("sandbox") && s.passed === workers,
        "a close of each environment, and a daily-close pass of each worker"
      )

      const closes = await wholeCloses(db)
      assert.deepStrictEqual(
        closes.map((c) => [c.environment, c.scheduled_for]).sort(),
        [
          ["production", scheduledFor],
          ["sandbox", scheduledFor]
        ],
        "one close per environment and cut"
      )
      for (const close of closes) {
        const open = await openContracts(db, close.environment)
        assert.strictEqual(open.length, books[close.environment as keyof typeof books])
        assert.deepStrictEqual(await lockIds(db, close.id), open, `the ${close.environment} close's locks`)
        assert.deepInclude(close, { previous_close_id: null, has_pnl: false, locks: open.length })
      }
    } finally {
      await cluster.stop().catch(() => undefined)
      await db.drop()
    }
  })
})
