/**
 * Restart after a crash: how long the service is away when its process group is killed (kill -9,
 * as an out-of-memory kill or a lost host does) and a supervisor starts it again at once.
 *
 * `pnpm start`'s command (`node --conditions=source src/main.ts`) runs on a fresh embedded data
 * directory, detached in a process group of its own, with `RATELOCK_LOG_LEVEL=debug`. After the first
 * start the demo partner it prints makes 4 × `--quotes` quotes and a contract; then, `--restarts`
 * times: `--quotes` quotes and a contract (so there is recent WAL to recover), kill -9 of the
 * group, a new process at once, and `GET /ready` polled every 10 ms (once the killed process is
 * gone, so that it cannot answer) until it answers 200. The last quote made before each kill is
 * read back after the restart.
 *
 * Each restart is split by the timestamps the new process logs: from its spawn to `data directory
 * locked` (Node's start and the module load), to `embedded database open` (PGlite: the WebAssembly
 * Postgres started, its crash recovery replaying the WAL), to `schema up to date` (the
 * migrations' check), to `Ratelock ready` (services, workers, the listening socket), to the first
 * `/ready` answered 200 here. Next to them, the CPU time the new process used until then (from
 * `/proc`): on a loaded machine the wall time is that plus the wait for a core.
 *
 * Run: `pnpm bench:restart [--restarts 10] [--quotes 5]` (no PostgreSQL needed).
 */
import { Requests } from "@ratelock/core"
import { freePort } from "@ratelock/test-support/Processes"
import { DateTime } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { cpuOf } from "./cpu.ts"
import { percentile } from "./webhooks.ts"

const { values: flags } = parseArgs({
  options: {
    restarts: { type: "string", default: "10" },
    quotes: { type: "string", default: "5" }
  }
})
const restarts = Number(flags.restarts)
const quotesPerRound = Number(flags.quotes)
const targetMs = 2_000
const packageDir = join(import.meta.dirname, "..")

const parent = mkdtempSync(join(tmpdir(), "ratelock-bench-restart-"))
const dataDir = join(parent, "data")
const port = await freePort()
const baseUrl = `http://127.0.0.1:${port}`

interface Started {
  readonly child: ChildProcess
  /** Wall-clock time of the spawn, in ms. */
  readonly spawnedAt: number
  readonly output: () => string
}

const startService = (): Started => {
  const env: Record<string, string | undefined> = {
    ...process.env,
    RATELOCK_DATA_DIR: dataDir,
    PORT: String(port),
    RATELOCK_OPERATOR_PORT: "0",
    RATELOCK_LOG_LEVEL: "debug",
    // out of the way of `--quotes` in a burst
    RATELOCK_RATE_LIMIT_PER_SECOND: "100000",
    RATELOCK_RATE_LIMIT_BURST: "100000"
  }
  delete env.DATABASE_URL
  const spawnedAt = Date.now()
  const child = spawn(process.execPath, ["--conditions=source", "src/main.ts"], {
    cwd: packageDir,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (chunk) => (output += String(chunk)))
  child.stderr?.on("data", (chunk) => (output += String(chunk)))
  return { child, spawnedAt, output: () => output }
}

const running = (service: Started) => service.child.exitCode === null && service.child.signalCode === null

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `/ready` every 10 ms; the wall-clock time it first answered 200. */
const whenReady = async (service: Started, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ok = await fetch(`${baseUrl}/ready`).then(
      (response) => response.status === 200,
      () => false
    )
    if (ok) return Date.now()
    if (!running(service) || Date.now() > deadline) {
      throw new Error(`the service did not become ready:\n${service.output()}`)
    }
    await sleep(10)
  }
}

/** The wall-clock time of the log line containing `text` (`[HH:MM:SS.mmm]`, local time). */
const loggedAt = (output: string, text: string, near: number): number => {
  const line = output.split("\n").find((l) => l.includes(text))
  const match = line === undefined ? null : /^\[(\d\d):(\d\d):(\d\d)\.(\d{3})\]/.exec(line)
  if (match === null) throw new Error(`no log line "${text}" in:\n${output}`)
  const at = new Date(near)
  at.setHours(Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4]))
  const day = 86_400_000
  // a restart across midnight
  const t = at.getTime()
  return t - near > day / 2 ? t - day : near - t > day / 2 ? t + day : t
}

// ---------------------------------------------------------------------------------------------
// Traffic through the demo partner

let headers: Record<string, string> = {}

const post = async (path: string, body: unknown) => {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify(body)
  })
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as { readonly id: string }
}

let written = 0
/** `quotes` quotes and one contract; the last quote's id. */
const traffic = async (quotes: number) => {
  let last = ""
  for (let i = 0; i < quotes; i++) {
    const body = Requests.quoteAt(DateTime.nowUnsafe(), { customer_reference_id: `bench-${written++ % 7}` })
    last = (await post("/api/v1/fx/quotes", body)).id
  }
  await post("/api/v1/fx/contracts", Requests.contract(last, { partner_transaction_reference: `ptx-${written}` }))
  return last
}

// ---------------------------------------------------------------------------------------------
// Run

/** Each step of a restart, and the log line that ends it (the last one ends at the first 200). */
const steps = [
  ["process start + module load", " locked"],
  ["PGlite open (WAL recovery included)", "embedded database open"],
  ["migrations check", "schema up to date"],
  ["services, workers, listen", "Ratelock ready on"],
  ["first /ready answered", undefined]
] as const

const fmt = (ms: number) => `${Math.round(ms)} ms`

let service = startService()
// Ctrl-C stops the detached service too
process.once("SIGINT", () => {
  if (running(service)) process.kill(-service.child.pid!, "SIGKILL")
  rmSync(parent, { recursive: true, force: true })
  process.exit(130)
})
try {
  const firstReady = await whenReady(service, 120_000)
  console.log(`First start (initdb, migrations, demo partner): ${fmt(firstReady - service.spawnedAt)}`)
  const out = service.output()
  const keyId = /api_key_id\s+(\S+)/.exec(out)?.[1]
  const secret = /api_key_secret\s+(rlk_\S+)/.exec(out)?.[1]
  if (keyId === undefined || secret === undefined) throw new Error(`no demo credentials in:\n${out}`)
  headers = { "X-Partner-Key-Id": keyId, "X-Partner-Key-Secret": secret, "X-Partner-Environment": "sandbox" }
  await traffic(quotesPerRound * 4)

  const totals: Array<number> = []
  const cpu: Array<number> = []
  const parts = steps.map((): Array<number> => [])
  console.log(`\n${restarts} restarts, kill -9 of the process group then a new process at once (ms):`)
  console.log(`kill → /ready 200 | ${steps.map(([name]) => name).join(" | ")} | CPU until ready`)
  for (let round = 1; round <= restarts; round++) {
    const lastQuote = await traffic(quotesPerRound)
    const killedAt = Date.now()
    const killed = service
    const gone = new Promise((resolve) => killed.child.once("exit", resolve))
    process.kill(-killed.child.pid!, "SIGKILL")
    service = startService()
    await gone
    const readyAt = await whenReady(service, 60_000)
    cpu.push(cpuOf(service.child.pid!) * 1000)
    const ends = steps.map(([, line]) => (line === undefined ? readyAt : loggedAt(service.output(), line, killedAt)))
    const measured = ends.map((end, i) => end - (i === 0 ? service.spawnedAt : ends[i - 1]!))
    for (const [i, ms] of measured.entries()) parts[i]!.push(ms)
    totals.push(readyAt - killedAt)
    console.log(
      [readyAt - killedAt, ...measured, cpu.at(-1)!].map((ms) => String(Math.round(ms)).padStart(5)).join(" | ")
    )
    // what was answered before the kill was committed, and survived it
    const kept = await fetch(`${baseUrl}/api/v1/fx/quotes/${lastQuote}`, { headers })
    if (kept.status !== 200) throw new Error(`quote ${lastQuote} after the restart: ${kept.status}`)
  }

  const median = (values: ReadonlyArray<number>) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50
    )
  const worst = (values: ReadonlyArray<number>) => Math.max(...values)
  const summary = (values: ReadonlyArray<number>) => `median ${fmt(median(values))}, worst ${fmt(worst(values))}`
  console.log(`\nkill → /ready 200: ${summary(totals)}`)
  for (const [i, [name]] of steps.entries()) console.log(`  ${name}: ${summary(parts[i]!)}`)
  console.log(`CPU time of the new process until ready: ${summary(cpu)}`)
  console.log(`Target: under ${fmt(targetMs)} at worst — ${worst(totals) < targetMs ? "met" : "MISSED"}`)
} finally {
  if (running(service)) {
    const exited = new Promise((resolve) => service.child.once("exit", resolve))
    process.kill(-service.child.pid!, "SIGTERM")
    await exited
  }
  rmSync(parent, { recursive: true, force: true })
}
