/**
 * The book's revaluation benchmark (issue 17): a synthetic book (`riskBook.ts`) of 10,000 to 100,000 open locks
 * over every corridor served, revalued from the example snapshot with delta, gamma, vega, theta and the eight
 * default scenarios (`Risk.report`'s work, every price the book's engine, `Pricing.bookWindowOption`), on 2
 * threads by default (the main one and a worker: one per core).
 *
 * Timed per size: the open locks' terms (`RiskBook.lockTerms`, contract by contract as the generator makes them,
 * as a host paging through its store would; the generator's own time left out), the revaluation (plan and `Risk.sumLocks` on each thread's share, the
 * transfer both ways and the merge included), and the figures (`Risk.reportFrom`, then the JSON of the
 * reports); total is their sum. CPU s is the process's CPU time over the revaluation and the figures, every thread's: on a machine shared with other
 * work, the wall time stretches, the CPU time much less. The worker
 * pool is started once, before the timings, as a host keeps it. Peak RSS is the whole process's (threads
 * included), read after each size; sizes run in increasing order, so each is that size's peak.
 *
 * Run: `pnpm bench:risk` (= `node --max-semi-space-size=8 bench/risk.ts` in packages/core). Options: `--threads N` (1: the main thread
 * only), `--sizes 10000,100000`; `--accuracy N` instead measures the book engine's error on N locks
 * (`riskAccuracy.ts`: about 2 s a lock for the reference).
 */
import { readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { join } from "node:path"
import { Worker } from "node:worker_threads"
import { DateTime, Result, Schema } from "effect"
import * as MarketSnapshot from "../src/market/MarketSnapshot.ts"
import * as Money from "../src/kernel/Money.ts"
import * as Risk from "../src/risk/Risk.ts"
import * as RiskBook from "../src/risk/internal/RiskBook.ts"
import type * as RiskPlan from "../src/risk/internal/RiskPlan.ts"
import * as RiskReport from "../src/risk/RiskReport.ts"
import * as RiskScenario from "../src/risk/RiskScenario.ts"
import type * as RiskSums from "../src/risk/internal/RiskSums.ts"
import * as RiskAccuracy from "./riskAccuracy.ts"
import * as LocksCodec from "./riskLocksCodec.ts"
import { eachContract } from "./riskBook.ts"
import type { Job } from "./riskWorker.ts"

const option = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`)
  return i < 0 ? undefined : process.argv[i + 1]
}
const threads = Number(option("threads") ?? Math.min(2, availableParallelism()))
/**
 * Young generation of each worker, MB: three semi-spaces, so 24 is the main thread's `--max-semi-space-size=8`
 * (package.json). At 2 MB semi-spaces 12–17 % of the revaluation's CPU went to scavenges, at 8 MB 5–6 %, for
 * about 10 MB more RSS a thread.
 */
const youngMb = Number(option("young-mb") ?? 24)
const sizes = (option("sizes") ?? "10000,25000,50000,100000").split(",").map(Number)

const examplePath = join(import.meta.dirname, "../../../docs/market/example-snapshot.json")
const nowMs = Date.parse("2026-03-02T20:05:00Z") // the example's as_of + 5 min
const now = DateTime.makeUnsafe(nowMs)
const snapshot = Result.getOrThrow(MarketSnapshot.validateJson(readFileSync(examplePath, "utf8"), { now: nowMs }))
const snapshotDocument = Schema.encodeSync(MarketSnapshot.MarketSnapshot)(snapshot)
const scenarios = RiskScenario.defaults
const encodeReports = Schema.encodeSync(Schema.Array(RiskReport.BookReport))

/**
 * `threads` threads revalue a share of the locks each and answer its sums: the main thread and `threads − 1`
 * workers (a worker costs its own copy of the modules, about 85 MB; the main thread would only wait).
 */
const startPool = async (size: number) => {
  const workers = Array.from(
    { length: size - 1 },
    // a modest young generation: the revaluation's garbage is short-lived, and each MB of it is RSS per thread
    () =>
      new Worker(new URL("./riskWorker.ts", import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: youngMb } })
  )
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once("online", resolve))))
  const run = (worker: Worker, locks: ReadonlyArray<RiskBook.LockTerms>) =>
    new Promise<RiskSums.BookSums>((resolve, reject) => {
      worker.once("message", resolve)
      worker.once("error", reject)
      const job: Job = {
        snapshot: snapshotDocument,
        now: nowMs,
        scenarios: scenarios.map((s) => RiskScenario.encode(s)),
        locks: LocksCodec.encode(locks)
      }
      worker.postMessage(job, LocksCodec.transferables(job.locks))
    })
  return {
    /** Lock i goes to thread i mod n (window lengths, the cost, spread evenly); the main thread takes share 0. */
    sums: async (
      plan: RiskPlan.RiskPlan,
      locks: ReadonlyArray<RiskBook.LockTerms>
    ): Promise<ReadonlyArray<RiskSums.BookSums>> => {
      const share = (t: number) => locks.filter((_, i) => i % size === t)
      const others = workers.map((worker, w) => run(worker, share(w + 1)))
      const mine = Risk.sumLocks(plan, share(0))
      return [mine, ...(await Promise.all(others))]
    },
    close: () => Promise.all(workers.map((w) => w.terminate()))
  }
}

const accuracy = option("accuracy")
if (accuracy !== undefined) {
  RiskAccuracy.run({ locks: Number(accuracy), snapshot, now: nowMs, scenarios })
  process.exit(0)
}

const poolStart = performance.now()
const pool = threads > 1 ? await startPool(threads) : undefined
const poolMillis = performance.now() - poolStart

console.log(
  `Risk.report work: greeks (±1 % spot, +1 vol point, +1 day) and ${scenarios.length} scenarios; ` +
    (pool
      ? `${threads} threads (the main one and ${threads - 1} started in ${poolMillis.toFixed(0)} ms)`
      : "main thread only")
)
console.log(
  "open locks".padStart(10) +
    "prices".padStart(11) +
    "terms s".padStart(9) +
    "revalue s".padStart(11) +
    "figures s".padStart(11) +
    "total s".padStart(9) +
    "CPU s".padStart(8) +
    "µs/lock".padStart(9) +
    "peak RSS MB".padStart(13)
)

for (const size of sizes) {
  globalThis.gc?.()
  // the book as a host reads it page by page: open locks kept as their terms, the rest as contracts; the
  // generator's own time is left out, the terms' is counted
  const locks: Array<RiskBook.LockTerms> = []
  const others: Array<RiskBook.BookContract> = []
  let termsMillis = 0
  const payouts = eachContract({ openLocks: size, snapshot, now: nowMs }, (contract) => {
    if (RiskBook.standing(contract) !== "open") return void others.push(contract)
    const start = performance.now()
    locks.push(RiskBook.lockTerms(contract))
    termsMillis += performance.now() - start
  })
  const book: RiskBook.Book = { contracts: others, payouts }
  globalThis.gc?.()
  const cpu0 = process.cpuUsage()
  const t1 = performance.now()
  const plan = Risk.plan({ snapshot, now, greeks: true, scenarios })
  const sums = pool ? Risk.mergeSums(plan, await pool.sums(plan, locks)) : Risk.sumLocks(plan, locks)
  const t2 = performance.now()
  const reports = Risk.reportFrom({ book, snapshot, now, plan, sums })
  const json = JSON.stringify(encodeReports(reports))
  const t3 = performance.now()
  const cpu = process.cpuUsage(cpu0)
  const prices = locks.reduce((n, lock) => n + plan.pairs.get(lock.pair)!.moves.length, 0)
  const rss = process.resourceUsage().maxRSS / 1024
  console.log(
    size.toLocaleString("en-US").padStart(10) +
      prices.toLocaleString("en-US").padStart(11) +
      (termsMillis / 1000).toFixed(2).padStart(9) +
      ((t2 - t1) / 1000).toFixed(2).padStart(11) +
      ((t3 - t2) / 1000).toFixed(2).padStart(11) +
      ((termsMillis + t3 - t1) / 1000).toFixed(2).padStart(9) +
      ((cpu.user + cpu.system) / 1e6).toFixed(2).padStart(8) +
      (((termsMillis + t3 - t1) * 1000) / size).toFixed(0).padStart(9) +
      rss.toFixed(0).padStart(13)
  )
  if (size === sizes[sizes.length - 1]) {
    const production = reports.find((r) => r.environment === "production")!
    console.log(
      `production: ${production.open_locks} open locks, mtm ${Money.format(production.mtm_usd)} USD (JSON ${(json.length / 1024).toFixed(0)} KB); ` +
        `worst scenario ${production.stress[0]!.name} ${Money.format(production.stress[0]!.mtm_change_usd)} USD`
    )
  }
}
console.log("targets: 100,000 locks under 10 s (stretch 3 s on both cores), peak RSS under 512 MB")
await pool?.close()
