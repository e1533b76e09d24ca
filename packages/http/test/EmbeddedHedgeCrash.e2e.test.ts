/**
 * Crash safety of hedging in `pnpm start` on its embedded database: the service with
 * `RATELOCK_HEDGING=simulated` and the book revalued every second, on a fresh data directory whose
 * sandbox hedge policies (USD/BRL spot, EUR/USD forward, bands below one lock's delta, so every
 * lock moves the hedge) were set with the CLI. A partner that retries every request with its
 * `Idempotency-Key` sells locks in both pairs: every third funded with the sandbox's fund helper
 * and left open, the others funded, exercised and paid out, so the book's delta rises and falls.
 * Meanwhile the server is SIGKILLed (at least 8 times) and started again at once: every other time
 * as it logs a hedge order placed (the first time always), else 0.5 to 5 s after it was ready.
 * Twice, while it is down (the data directory takes one process at a time: that is when an
 * operator can), `ratelock hedge simulate` tells the venue to reject, then to time out, its next
 * order; the second half of the locks waits for that, so that orders take them.
 *
 * Once the book is still and hedged (the operator API's risk report: no order pending or needed)
 * and the server stopped, its database is opened here: every hedge order ended filled or rejected,
 * the venue executed each once and holds no other, each decision saw every earlier fill of its
 * pair, positions are the venue's fills, the hedge ledger sums to zero, each armed action was
 * taken by one order, and each pair is within its band of the stored revaluation's delta; and the
 * lifecycles' guarantees (each contract settled once, each payout paid once, every event
 * delivered, the ledger at zero, one transfer per funding address).
 */
import { Money } from "@ratelock/core"
import { freePort } from "@ratelock/test-support/Processes"
import { afterAll, assert, describe, it } from "vitest"
import { checkLifecycles, openEmbedded } from "./support/crash/embeddedDatabase.ts"
import { embeddedServer } from "./support/crash/embeddedServer.ts"
import { type Lifecycle, PatientPartner } from "./support/crash/patientPartner.ts"
import { held, type Pair, paid, pairOf, pairs, policyCommands, quoteOf } from "./support/hedge/book.ts"
import * as Hedge from "./support/hedge/guarantees.ts"
import { cliJson, removeTempDirs } from "./support/process.ts"

const minimumKills = 8
/** Locks sold; every third is left open, the others exercised (paid and zero payouts in turn). */
const locks = 18
/** Venue actions armed while the server is down: one rejection, then one timeout. */
const arms = ["--reject-next", "--timeout-next"] as const
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits `ms`, or less: until `now` answers true (polled every 20 ms); answers whether it did. */
const waitOr = async (ms: number, now: () => boolean) => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (now()) return true
    await sleep(20)
  }
  return false
}

interface PairReport {
  readonly pair: string
  readonly open_locks: number
  readonly hedge: { readonly pending_order: string | null; readonly order_needed: unknown; readonly position: string }
}

afterAll(removeTempDirs)

describe("hedging crash safety on the embedded database (pnpm start)", () => {
  it("SIGKILL at random moments: no order sent twice, every order ended, positions from fills, within band", {
    timeout: 600_000
  }, async () => {
    const operatorPort = await freePort()
    let token = ""
    const server = await embeddedServer({
      confirmMs: 300,
      env: {
        RATELOCK_HEDGING: "simulated",
        // "hedge order placed" is logged at Info
        RATELOCK_LOG_LEVEL: "Info",
        RATELOCK_RISK_INTERVAL_SECONDS: "1",
        RATELOCK_OPERATOR_PORT: String(operatorPort)
      },
      prepare: async (dataDir) => {
        for (const args of policyCommands("sandbox")) await cliJson(dataDir, ...args)
        token = (await cliJson(dataDir, "operator", "token", "create", "--name", "hedge-crash", "--role", "admin"))
          .token
      }
    })
    const partner = new PatientPartner(server.baseUrl, server.key)
    const started = Date.now()
    let driving = true
    let kills = 0
    let armed = 0
    let killedPlacing = 0
    let next = 0
    try {
      // SIGKILLs the server, until the locks are sold and it was killed at least `minimumKills`
      // times: 0.5 to 5 s after it was ready, or, every other time, as soon as it logs a hedge order
      // placed (while the order is being sent), if it does by then; after the others, until all
      // are armed, arms the venue before the restart. The second half of the locks waits for
      // that, so orders take what was armed.
      let allArmed = () => {}
      const armedAll = new Promise<void>((resolve) => (allArmed = resolve))
      const killer = (async () => {
        while (driving || kills < minimumKills) {
          const onOrder = kills % 2 === 0
          const placing = () => onOrder && server.output().includes("hedge order placed")
          // the first waits as long as it takes: the first locks sold, an order must follow
          const up = kills === 0 ? 120_000 : 500 + Math.random() * 4_500
          if (await waitOr(up, placing)) killedPlacing++
          else if (kills === 0) throw new Error(`no hedge order placed in 120 s: ${server.output().slice(-3_000)}`)
          const arm = !onOrder && armed < arms.length
          await server.restart(
            "SIGKILL",
            arm
              ? async () => {
                  await cliJson(server.dataDir, "hedge", "simulate", arms[armed]!)
                  armed++
                }
              : undefined
          )
          if (armed === arms.length) allArmed()
          kills++
        }
      })()
      const done: Array<Lifecycle> = []
      const open: Array<{ readonly contractId: string; readonly pair: Pair }> = []
      const driven = Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next < locks) {
            const n = next++
            if (n >= locks / 2) await armedAll
            if (held(n)) open.push({ contractId: await partner.openLock(n, quoteOf(n)), pair: pairOf(n) })
            else done.push(await partner.lifecycle(n, paid(n), quoteOf(n)))
          }
        })
      ).finally(() => {
        driving = false
      })
      await Promise.all([driven, killer])
      const soldMs = Date.now() - started
      for (const { contractId } of done) await partner.waitDelivered(contractId)
      for (const { contractId } of open) await partner.waitDelivered(contractId, false)

      // the book still (only the open locks), revalued since, and hedged: nothing pending or needed
      const still = Date.now()
      const operator = `http://127.0.0.1:${operatorPort}/operator/v1/risk?environment=sandbox`
      let last = ""
      for (;;) {
        const response = await fetch(operator, { headers: { authorization: `Bearer ${token}` } })
        last = await response.text()
        const report = response.ok ? JSON.parse(last) : undefined
        const hedged = Object.keys(pairs).every((pair) => {
          const p: PairReport | undefined = report?.pairs.find((x: PairReport) => x.pair === pair)
          return (
            p !== undefined &&
            p.open_locks === open.filter((o) => o.pair === pair).length &&
            p.hedge.pending_order === null &&
            p.hedge.order_needed === null
          )
        })
        if (hedged && Date.parse(report.computed_at) > still) break
        if (Date.now() - still > 120_000) throw new Error(`the book not hedged after 120 s: ${last.slice(0, 3_000)}`)
        await sleep(250)
      }
      const hedgedMs = Date.now() - started
      await server.stop()

      const db = openEmbedded(server.dataDir)
      try {
        const figures = await Hedge.check(db)
        assert.strictEqual(await Hedge.outstanding(db), 0)
        const standings = await Hedge.withinBands(db)
        for (const s of standings) assert.isFalse(Money.isZero(s.position), `${s.pair}: the open locks are hedged`)
        const control = await db.query<{ readonly action: string; readonly remaining: number }>(
          (sql) => sql`SELECT action, remaining FROM sim_hedge_venue_control ORDER BY action`
        )
        assert.deepStrictEqual(
          control.filter((c) => c.remaining !== 0),
          [],
          "every action armed was taken by an order"
        )
        assert.strictEqual(figures.rejected, 1)
        assert.strictEqual(figures.timedOut, 1)
        const lifecycles = await checkLifecycles(db, server.receiver, done)
        console.log(
          `embedded hedging crash safety: ${locks} locks (${open.length} left open), ${kills} SIGKILLs (${killedPlacing} placing an order), ${armed} armed, ` +
            `sold and killed by ${soldMs} ms, delivered by ${still - started} ms, hedged by ${hedgedMs} ms; hedge ${JSON.stringify(figures)}; ` +
            `positions ${JSON.stringify(standings.map((s) => [s.pair, Money.format(s.position), Money.format(s.delta)]))}; ` +
            `retries ${JSON.stringify(Object.fromEntries(partner.retries))}; ${JSON.stringify(lifecycles)}`
        )
        assert.isAtLeast(kills, minimumKills)
        assert.isAtLeast(killedPlacing, 1)
      } finally {
        await db.close()
      }
    } finally {
      driving = false
      await server.stop().catch(() => undefined)
    }
  })
})
