/**
 * Lifecycle benchmark: whole contract lifecycles per second through the running service, on a
 * fresh PostgreSQL database (`DATABASE_URL`, default the local server's `test`; dropped after),
 * with the sandbox's SQL simulated chain confirming at once (`RATELOCK_SANDBOX_CONFIRM_MS=0`).
 *
 * API processes (`src/main.ts`, `RATELOCK_WORKERS=false`) and worker processes (`src/cli.ts
 * worker`) run as a deployment runs them; a partner is created with the CLI, its sandbox webhook
 * pointing at a `node:http` receiver in this process. Each lifecycle: quote → contract (HTTP) →
 * the customer's transfer to the funding address (written to the simulated chain) →
 * `funds_received` at the receiver → exercise (HTTP; every other one below the locked rate, so
 * half pay out on-chain and half settle at zero) → `payout_settled` at the receiver, the
 * lifecycle's last webhook. Measured at each `--concurrency` level (lifecycles in flight).
 *
 * Prints lifecycles/s, the delivery lag from commit (`webhook_events.created_at`) to the receiver
 * (p50/p99), each step's latency, the database's transactions and rows per lifecycle, and the CPU
 * time per process during the measured run ("postgres" counts every server process, so run it on
 * an otherwise idle server).
 *
 * The warm-up (1,000 lifecycles at concurrency 20) brings the processes to the steady state of a
 * running deployment (a few hundred lifecycles in, V8 is still optimizing the hot paths: the first
 * level measured about 10 % slower after a 300-lifecycle warm-up); after it the database is
 * analyzed, as autovacuum does on a running deployment.
 *
 * `--hedging simulated` runs the same with the workers hedging the book on the simulated venue
 * (`RATELOCK_HEDGING=simulated`, a USD/BRL policy with a 10,000 USD band, the book revalued every
 * second); `--risk-interval` sets `RATELOCK_RISK_INTERVAL_SECONDS` for either mode (default 1, so
 * the two runs differ only by the hedging). `--hedging off,simulated` runs both, each on a fresh
 * cluster and database, and prints the ratio of their lifecycles/s: `pnpm bench:hedging` does so
 * at 150 in flight (target: hedging at least 0.9 of off).
 *
 * Run: `pnpm bench:lifecycle [--lifecycles 3000] [--concurrency 20,150,300] [--apis 1] [--workers 1]
 * [--poll-ms 20] [--warmup 1000] [--hedging off|simulated|off,simulated] [--risk-interval 1]`.
 */
import * as Postgres from "@ratelock/test-support/Postgres"
import { parseArgs } from "node:util"
import { Driver } from "../test/support/cluster/drive.ts"
import { withCluster } from "../test/support/cluster/setup.ts"
import { cliJson } from "../test/support/processes.ts"
import * as Cpu from "./cpu.ts"
import { arrivals, percentile, Steps } from "./webhooks.ts"

const { values: flags } = parseArgs({
  options: {
    lifecycles: { type: "string", default: "3000" },
    concurrency: { type: "string", default: "20,150,300" },
    apis: { type: "string", default: "1" },
    workers: { type: "string", default: "1" },
    "poll-ms": { type: "string", default: "20" },
    warmup: { type: "string", default: "1000" },
    hedging: { type: "string", default: "off" },
    "risk-interval": { type: "string", default: "1" }
  }
})
const modes = flags.hedging.split(",").map((mode) => (mode === "simulated" ? "simulated" : "off"))
const count = Number(flags.lifecycles)
const pollMs = Number(flags["poll-ms"])
const targets = { lifecyclesPerSecond: 200, p99LagMs: 1_000, hedgingToOff: 0.9 } as const
const serverUrl = Postgres.benchDatabaseUrl
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : Math.round(ms).toString())
const verdict = (ok: boolean) => (ok ? "met" : "MISSED")

/** Lifecycles/s per concurrency level, per hedging mode, for the comparison at the end. */
const rates = new Map<string, Map<number, number>>()

/** One mode's cluster on a fresh database: the warm-up, then each concurrency level measured. */
const measure = (hedging: "off" | "simulated") => {
  const env = { RATELOCK_HEDGING: hedging, RATELOCK_RISK_INTERVAL_SECONDS: flags["risk-interval"] }
  const measured = new Map<number, number>()
  rates.set(hedging, measured)
  return withCluster(
    serverUrl,
    { prefix: "ratelock_bench_lifecycle", env },
    async ({ db, receiver, cluster, partner }) => {
      if (hedging === "simulated") {
        const policy = ["--environment", "sandbox", "--pair", "USD/BRL", "--band", "10000", "--instrument", "spot"]
        await cliJson(db.url, "hedge", "policy", "set", ...policy)
      }
      const [apis, workers] = await Promise.all([
        Promise.all(Array.from({ length: Number(flags.apis) }, (_, i) => cluster.startApi(`api-${i + 1}`))),
        Promise.all(
          Array.from({ length: Number(flags.workers) }, (_, i) =>
            cluster.startWorker(`worker-${i + 1}`, { pollMs, leaseMs: 30_000 })
          )
        )
      ])
      const processes = new Map<string, number | undefined>([
        ...apis.map((a): [string, number | undefined] => [a.api.name, a.api.child.pid]),
        ...workers.map((w): [string, number | undefined] => [w.name, w.child.pid])
      ])
      const arrival = arrivals(receiver)
      let next = 0

      /** `n` lifecycles, `concurrency` at a time: the contracts, the elapsed seconds, each step's samples. */
      const run = async (n: number, concurrency: number) => {
        const steps = new Steps()
        const funded = new Map<string, number>()
        const driver = new Driver({
          baseUrls: apis.map((a) => a.baseUrl),
          key: { keyId: partner.keyId, secret: partner.secret },
          fund: async (contract) => {
            await db.fund(contract)
            funded.set(contract.id, performance.now())
          },
          waitActive: async (id) => {
            await arrival(id, "funds_received")
            steps.record("transfer → funds_received", performance.now() - funded.get(id)!)
          },
          sockets: concurrency * 2,
          onRequest: (path, ms) => steps.record(`POST ${path}`, ms)
        })
        const contracts: Array<string> = []
        const end = next + n
        const started = performance.now()
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next < end) {
              const paid = next % 2 === 0
              const { contractId } = await driver.run(next++, paid)
              const exercised = performance.now()
              await arrival(contractId, "payout_settled")
              steps.record(`exercise → payout_settled (${paid ? "paid" : "zero"})`, performance.now() - exercised)
              contracts.push(contractId)
            }
          })
        )
        driver.close()
        return { contracts, seconds: (performance.now() - started) / 1000, steps }
      }

      const lagsOf = async (contracts: ReadonlyArray<string>) => {
        const ids = new Set(contracts)
        const events = await db.query<{
          readonly event_id: string
          readonly contract_id: string
          readonly created_at: Date
        }>(
          (sql) => sql`SELECT event_id, contract_id::text, created_at FROM webhook_events WHERE direction = 'outgoing'`
        )
        return events
          .filter((e) => ids.has(e.contract_id))
          .map((e) => receiver.byEvent.get(e.event_id)![0]!.receivedAt - e.created_at.getTime())
          .sort((a, b) => a - b)
      }

      /** The database's own counters (PostgreSQL flushes them within a second of a transaction). */
      const dbStats = async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_500))
        const [row] = await db.query<{ readonly commits: string; readonly updated: string; readonly fetched: string }>(
          (sql) => sql`SELECT xact_commit AS commits, tup_updated AS updated, tup_fetched AS fetched
        FROM pg_stat_database WHERE datname = current_database()`
        )
        return { commits: Number(row!.commits), updated: Number(row!.updated), fetched: Number(row!.fetched) }
      }

      /** Per table: sequential scans and the rows they and the index scans read (where the reads go). */
      const tableStats = async () => {
        const rows = await db.query<{
          readonly name: string
          readonly seq_scan: string
          readonly seq_read: string
          readonly idx_fetch: string
        }>(
          (
            sql
          ) => sql`SELECT relname AS name, seq_scan, seq_tup_read AS seq_read, coalesce(idx_tup_fetch, 0) AS idx_fetch
        FROM pg_stat_user_tables`
        )
        return new Map(
          rows.map((r) => [r.name, [Number(r.seq_scan), Number(r.seq_read), Number(r.idx_fetch)] as const])
        )
      }

      await run(Number(flags.warmup), 20)
      // a fresh database has no planner statistics yet (autovacuum analyzes within a minute or two):
      // without them PostgreSQL plans the workers' queries for empty tables (sequential scans, the
      // outbox claim walking every event), which a running deployment never sees. Measure that one.
      await db.query((sql) => sql`ANALYZE`)
      console.log(
        `${apis.length} API + ${workers.length} worker processes (poll ${pollMs} ms), PostgreSQL, ${count} lifecycles per level, ` +
          `hedging ${hedging}, book revalued every ${flags["risk-interval"]} s`
      )
      for (const concurrency of flags.concurrency.split(",").map(Number)) {
        const statsBefore = await dbStats()
        const tablesBefore = await tableStats()
        const before = Cpu.sample(processes)
        const { contracts, seconds, steps } = await run(count, concurrency)
        const cpu = Cpu.spent(before, Cpu.sample(processes))
        const statsAfter = await dbStats()
        const tablesAfter = await tableStats()
        const lags = await lagsOf(contracts)
        const rate = contracts.length / seconds
        measured.set(concurrency, rate)
        const p99 = percentile(lags, 99)
        console.log(
          `\n▶ concurrency ${concurrency}: ${rate.toFixed(0)} lifecycles/s (${contracts.length} in ${seconds.toFixed(1)} s; ` +
            `target ≥ ${targets.lifecyclesPerSecond}/s ${verdict(rate >= targets.lifecyclesPerSecond)})`
        )
        console.log(
          `  delivery lag commit → receiver (${lags.length} events): p50 ${fmt(percentile(lags, 50))} ms, p99 ${fmt(p99)} ms, ` +
            `max ${fmt(lags.at(-1) ?? Number.NaN)} ms (target p99 < ${targets.p99LagMs} ms ${verdict(p99 < targets.p99LagMs)})`
        )
        for (const [step, list] of steps.samples) {
          const sorted = list.sort((a, b) => a - b)
          console.log(
            `  ${step.padEnd(36)} p50 ${fmt(percentile(sorted, 50)).padStart(5)} ms  p99 ${fmt(percentile(sorted, 99)).padStart(5)} ms`
          )
        }
        const per = (n: number) => (n / contracts.length).toFixed(1)
        console.log(
          `  database, per lifecycle: ${per(statsAfter.commits - statsBefore.commits)} transactions, ` +
            `${per(statsAfter.updated - statsBefore.updated)} rows updated, ${per(statsAfter.fetched - statsBefore.fetched)} rows fetched`
        )
        const reads = [...tablesAfter]
          .map(([name, [scans, seqRead, idxFetch]]) => {
            const [scans0, seqRead0, idxFetch0] = tablesBefore.get(name) ?? [0, 0, 0]
            return { name, scans: scans - scans0, read: seqRead - seqRead0 + idxFetch - idxFetch0 }
          })
          .sort((a, b) => b.read - a.read)
          .slice(0, 4)
        console.log(
          `  rows read per lifecycle, by table: ${reads.map((r) => `${r.name} ${per(r.read)} (${per(r.scans)} seq scans)`).join(", ")}`
        )
        const total = [...cpu.values()].reduce((a, b) => a + b, 0)
        console.log(
          `  CPU: ${((100 * total) / (2 * seconds)).toFixed(0)} % of the 2 cores, ${((1000 * total) / contracts.length).toFixed(1)} ms per lifecycle:`
        )
        for (const [name, s] of cpu) {
          console.log(
            `    ${name.padEnd(26)} ${((100 * s) / total).toFixed(0).padStart(3)} %  (${((1000 * s) / contracts.length).toFixed(2)} ms per lifecycle)`
          )
        }
      }
      console.log(
        `\nDeliveries: ${receiver.deliveries.length}, duplicates ${receiver.deliveries.length - receiver.byEvent.size}`
      )
      const orders = await db.query<{ readonly status: string; readonly n: string }>(
        (sql) => sql`SELECT status, count(*)::text AS n FROM hedge_orders GROUP BY status ORDER BY status`
      )
      console.log(`Hedge orders: ${orders.map((o) => `${o.n} ${o.status}`).join(", ") || "none"}`)
    }
  )
}

for (const mode of modes) await measure(mode)

// both modes run: hedging's cost as the ratio of lifecycles/s at each level
const off = rates.get("off")
const simulated = rates.get("simulated")
if (off !== undefined && simulated !== undefined) {
  console.log("")
  for (const [concurrency, rate] of simulated) {
    const ratio = rate / off.get(concurrency)!
    console.log(
      `hedging simulated / off at ${concurrency} in flight: ${rate.toFixed(0)} / ${off.get(concurrency)!.toFixed(0)} ` +
        `lifecycles/s = ${ratio.toFixed(2)}× (target ≥ ${targets.hedgingToOff}× ${verdict(ratio >= targets.hedgingToOff)})`
    )
  }
}
