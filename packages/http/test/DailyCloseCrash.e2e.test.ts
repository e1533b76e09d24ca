/**
 * A daily close SIGKILLed while it is being taken, as a host dying mid-close would meet it, on PostgreSQL (a
 * `ratelock worker`) and on the embedded store (`pnpm start` on its data directory). A book of 3,000 open locks is
 * seeded straight into the store, so a close takes a visible time (one to three seconds); a first close, at one
 * cut, is the previous close of what follows and tells how long a close takes. Then the process is started for a
 * later cut (due at once) and killed at a random moment within the first half of that time (the first close is the
 * slowest: nothing compiled yet), started again at once, until three kills have fallen before the close was
 * written; the last start is left to finish it. A kill that fell after the commit moves the next rounds to the next
 * minute's cut, and their kills sooner.
 *
 * Afterwards, read with SQL: exactly one close per cut; the last one complete (every open contract a lock of it,
 * its P&L since the one before present); nothing half written (every close has the lock rows its pairs count, no
 * lock row is without its close).
 *
 * On PostgreSQL the close is seen to begin (the worker takes the lease on closing, `daily_close_lease`), the kill
 * falls after that, and the database is read after each kill. The embedded data directory is one process's at a
 * time: there the kill falls after the start is ready, between the instants the first close began (its
 * `closed_at`) and half-way to its being written (listed by the operator API), and the next start's operator API
 * says whether the close was written, by whom its `closed_at` tells.
 */
import { EmbeddedStore } from "@ratelock/adapters-store"
import { OperatorTokens } from "@ratelock/core"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { hostname } from "node:os"
import { afterAll, assert, describe, it } from "vitest"
import * as Services from "../src/Services.ts"
import { freshDatabase } from "./support/cluster/database.ts"
import {
  closeRows,
  cutAt,
  latestCutOf,
  lockIds,
  openContracts,
  seedOpenBook,
  sleep,
  until,
  wholeCloses
} from "./support/closes.ts"
import { openEmbedded } from "./support/crash/embeddedDatabase.ts"
import { Cluster, cliJson } from "./support/processes.ts"
import { baseUrlOf, operatorUrlOf, removeTempDirs, type Service, start, tempDataDir } from "./support/process.ts"

/** Open locks in the book. */
const book = 3_000
/** Kills that fell before the close was written: each costs a start, two seconds on PostgreSQL, three embedded. */
const kills = { postgres: 3, embedded: 3 }
/** Rounds at most, kills after the commit included. */
const rounds = (wanted: number) => 3 * wanted

afterAll(removeTempDirs)

/** Cuts a minute apart from 40 minutes ago, oldest first: each is due at once for a process started with it. */
const cutsFromNow = () => {
  const first = Date.now() - 40 * 60_000
  return (i: number) => cutAt(first + i * 60_000)
}

/** One close per cut `0..last` of sandbox, and no other; the last complete and with its P&L, the first without. */
const checkCloses = async (
  db: Parameters<typeof wholeCloses>[0],
  cut: (i: number) => string,
  last: number,
  open: ReadonlyArray<string>
) => {
  const closes = await wholeCloses(db)
  assert.deepStrictEqual(
    closes.map((c) => [c.environment, c.scheduled_for]),
    Array.from({ length: last + 1 }, (_, i) => ["sandbox", latestCutOf(cut(i))]),
    "one close per cut, and no other"
  )
  const closed = closes.at(-1)!
  assert.deepStrictEqual(await lockIds(db, closed.id), open, "every open lock in the last close")
  assert.deepInclude(closed, { previous_close_id: closes.at(-2)!.id, has_pnl: true, locks: book })
  assert.deepInclude(closes[0], { previous_close_id: null, has_pnl: false, locks: book })
  return closed
}

/**
 * A fresh data directory, migrated, with a viewer token (to read the closes through the operator API) and the book
 * seeded (for a partner the store need not know: a contract names its partner by id alone), as this process has it
 * to itself before any start; the CLI would take ten seconds more.
 */
const prepare = async (dataDir: string) => {
  const runtime = ManagedRuntime.make(Layer.merge(EmbeddedStore.layer({ dataDir }), Services.crypto).pipe(Layer.orDie))
  try {
    const created = await runtime.runPromise(
      OperatorTokens.create({ name: "crash", role: "viewer" }).pipe(Effect.orDie)
    )
    const db = {
      query: <Row extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<Row>, unknown>) =>
        runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))
    }
    await seedOpenBook(db, { partnerId: crypto.randomUUID(), environment: "sandbox", count: book, salt: "embedded" })
    return { token: created.token, open: await openContracts(db, "sandbox") }
  } finally {
    await runtime.dispose()
  }
}

describe("a daily close SIGKILLed mid-close", () => {
  it.skipIf(databaseUrl === undefined)(
    "on PostgreSQL: a `ratelock worker` killed during the close and started again at once",
    { timeout: 180_000 },
    async () => {
      const db = await freshDatabase(databaseUrl!, "ratelock_close_crash")
      const cluster = new Cluster(db.url)
      try {
        const partner = await cliJson(db.url, "partner", "create", "--name", "Crash Close")
        await seedOpenBook(db, { partnerId: partner.partner_id, environment: "sandbox", count: book, salt: "pg" })
        const open = await openContracts(db, "sandbox")
        assert.strictEqual(open.length, book)
        const cut = cutsFromNow()
        const closeOf = async (c: string) =>
          (await closeRows(db)).find((r) => r.environment === "sandbox" && r.scheduled_for === latestCutOf(c))
        const holders = new Set<string>()
        const holder = async () =>
          (
            await db.query<{ readonly owner: string | null }>(
              (sql) => sql`SELECT lease_owner AS owner FROM daily_close_lease`
            )
          )[0]?.owner ?? null
        let started = 0
        /** A worker for `c`, and the instant its close began: it took the lease on closing. */
        const startFor = async (c: string) => {
          const starting = cluster.startWorker(`worker-${started++}`, {
            // a killed worker's lease has ended by the next one's first pass: started at once, it closes at once
            leaseMs: 500,
            env: { RATELOCK_DAILY_CLOSE: c }
          })
          const owner = await until(holder, (o) => o !== null && !holders.has(o), `a worker to begin closing ${c}`, {
            everyMs: 5
          })
          const began = Date.now()
          holders.add(owner!)
          const worker = await starting
          assert.strictEqual(owner, `${hostname()}:${worker.child.pid}`, "the lease is the new worker's")
          return { worker, began }
        }

        // the first close, untouched: how long a close takes here
        const first = await startFor(cut(0))
        await until(
          () => closeOf(cut(0)),
          (c) => c !== undefined,
          `the close of ${cut(0)}`,
          { everyMs: 10 }
        )
        // the first close is the slowest (nothing compiled yet, every process starting at once): the kills fall within
        // the first half of its time, and a kill after a commit shortens the next ones' span
        let duration = Date.now() - first.began
        const firstDuration = duration
        await cluster.kill(first.worker)

        let at = 1
        const landed: Array<string> = []
        for (let before = 0; before < kills.postgres; ) {
          assert.isAtMost(landed.length, rounds(kills.postgres), `kills: ${landed.join(", ")}`)
          const { worker, began } = await startFor(cut(at))
          const afterMs = Math.floor((Math.random() * duration) / 2)
          await sleep(began + afterMs - Date.now())
          await cluster.kill(worker)
          // nothing half written, wherever the kill fell
          await wholeCloses(db)
          if ((await closeOf(cut(at))) === undefined) {
            before++
            landed.push(`${afterMs} ms`)
          } else {
            // after the commit: the next rounds close the next cut, and kill sooner
            at++
            duration = afterMs
            landed.push(`${afterMs} ms (after the commit)`)
          }
        }
        const last = await startFor(cut(at))
        await until(
          () => closeOf(cut(at)),
          (c) => c !== undefined,
          `the close of ${cut(at)}`
        )
        await cluster.kill(last.worker)

        await checkCloses(db, cut, at, open)
        console.log(
          `close crash (PostgreSQL): ${book} locks, the first close in ${firstDuration} ms; kills ${landed.join(", ")} into a close`
        )
      } finally {
        await cluster.stop().catch(() => undefined)
        await db.drop()
      }
    }
  )

  it("on the embedded store: `pnpm start` killed during the close and started again at once", {
    timeout: 180_000
  }, async () => {
    const dataDir = tempDataDir()
    const { token, open } = await prepare(dataDir)
    assert.strictEqual(open.length, book)
    const cut = cutsFromNow()
    let service: Service | undefined
    /** The service started for `c` (logs at Info: its listeners' lines say where they are), once it is ready. */
    const startFor = async (c: string) => {
      service = start(dataDir, { RATELOCK_DEMO_PARTNER: "false", RATELOCK_DAILY_CLOSE: c })
      const operatorUrl = await operatorUrlOf(service)
      await baseUrlOf(service)
      return { operatorUrl, ready: Date.now() }
    }
    const kill = async () => {
      service!.child.kill("SIGKILL")
      await service!.exited
      return Date.now()
    }
    /** The close of cut `c`, as the running service's operator API lists it. */
    const closeOf = async (operatorUrl: string, c: string) => {
      const reply = await fetch(`${operatorUrl}/operator/v1/finance/closes?environment=sandbox`, {
        headers: { authorization: `Bearer ${token}` }
      })
      assert.strictEqual(reply.status, 200)
      const { items } = (await reply.json()) as {
        items: ReadonlyArray<{ readonly closed_at: string; readonly scheduled_for: string | null }>
      }
      return items.find((i) => i.scheduled_for !== null && Date.parse(i.scheduled_for) === latestCutOf(c))
    }
    let at = 1
    let window = { from: 0, to: 0 }
    let firstWindow = window
    const landed: Array<string> = []
    try {
      // the first close, untouched: when, after a start, a close begins and is written
      const first = await startFor(cut(0))
      const written = await until(
        () => closeOf(first.operatorUrl, cut(0)),
        (c) => c !== undefined,
        `the close of ${cut(0)}`,
        { everyMs: 20 }
      )
      firstWindow = { from: Math.max(0, Date.parse(written!.closed_at) - first.ready), to: Date.now() - first.ready }
      // the first is the slowest (nothing compiled yet): the kills fall within the first half of its close
      window = { from: firstWindow.from, to: (firstWindow.from + firstWindow.to) / 2 }
      await kill()

      let running = await startFor(cut(at))
      for (let before = 0; before < kills.embedded; ) {
        assert.isAtMost(landed.length, rounds(kills.embedded), `kills: ${landed.join(", ")}`)
        const afterMs = Math.floor(window.from + Math.random() * (window.to - window.from))
        await sleep(running.ready + afterMs - Date.now())
        const killedAt = await kill()
        running = await startFor(cut(at))
        const found = await closeOf(running.operatorUrl, cut(at))
        const late = found !== undefined && Date.parse(found.closed_at) < killedAt
        if (late) {
          landed.push(`${afterMs} ms (after the commit)`)
          // the first close is the slowest (nothing compiled yet): the next kills fall sooner
          window = { from: Math.min(window.from, afterMs / 2), to: afterMs }
        } else {
          before++
          landed.push(`${afterMs} ms`)
        }
        if (found !== undefined) {
          // the close of this cut is written: the next rounds close the next one
          at++
          await kill()
          running = await startFor(cut(at))
        }
      }
      await until(
        () => closeOf(running.operatorUrl, cut(at)),
        (c) => c !== undefined,
        `the close of ${cut(at)}`
      )
      service!.child.kill("SIGTERM")
      await service!.exited
    } finally {
      if (service !== undefined && service.child.exitCode === null) await kill()
    }

    const db = openEmbedded(dataDir)
    try {
      await checkCloses(db, cut, at, open)
      console.log(
        `close crash (embedded): ${book} locks, the first close from ${firstWindow.from} to ${firstWindow.to} ms after ready; ` +
          `kills ${landed.join(", ")} after ready`
      )
    } finally {
      await db.close()
    }
  })
})
