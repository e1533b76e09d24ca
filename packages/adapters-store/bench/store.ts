/**
 * Store benchmark, against Postgres (`DATABASE_URL`, a fresh database dropped afterwards) and the
 * embedded store (PGlite in memory):
 *
 * - writes: quote + Idempotency-Key claim + stored response in one transaction, through the
 *   ports, at 1 and 16 concurrent writers, beside an insert-only reference on the same server in
 *   the same run (real `pgbench` for Postgres; the same INSERT through our client for both);
 * - reads: `ContractRepo.listByCustomer` page of 25 (+1 look-ahead) at offset 10,000 and on the
 *   last page of 1,000,000 contracts of one partner (keyset: both should cost the same).
 *
 * Run: `pnpm bench:store` (= `node --conditions=source bench/store.ts` in packages/adapters-store,
 * Node ≥ 24). `DATABASE_URL` defaults to `postgres://postgres@127.0.0.1:5432/test`.
 */
import { ContractRepo, type Cursor, IdempotencyRepo, type Partner, QuoteRepo } from "@ratelock/core"
import * as Postgres from "@ratelock/test-support/Postgres"
import { Cause, DateTime, Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { cpus } from "node:os"
import * as EmbeddedStore from "../src/EmbeddedStore.ts"
import { selectColumns } from "../src/internal/rows/contracts.ts"
import { before } from "../src/internal/keyset.ts"
import * as PgStore from "../src/PgStore.ts"
import * as R from "./report.ts"
import * as Server from "./server.ts"
import * as S from "./support.ts"

const databaseUrl = Postgres.benchDatabaseUrl
const poolSize = 16
const writerCounts = [1, 16] as const
const warmupMs = 1_000
const measureMs = 5_000
const target = 1_000_000
const fallback = 200_000
const loadBudgetMs = 180_000
const chunk = 50_000
const readWarmup = 20
const readRuns = 200
const pageSize = 25

const scope: Partner.PartnerScope = { partnerId: crypto.randomUUID(), environment: "production" }
const customer = "customer-1"

const run: R.Run = { warmupMs, measureMs, pageSize, readRuns }

/** A write rolled back after the repositories ran must leave nothing: they use the ambient transaction. */
const transactionCheck = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const quotes = yield* QuoteRepo.QuoteRepo
  const keys = yield* IdempotencyRepo.IdempotencyRepo
  const now = DateTime.makeUnsafe(Date.now())
  const quote = S.quoteAt(scope, customer, now)
  const key = `check-${quote.id}`
  const rollback = sql.withTransaction(
    Effect.gen(function* () {
      yield* keys.claim(scope, key, "check", now, DateTime.makeUnsafe(Date.now() + 86_400_000))
      yield* quotes.insert(quote)
      return yield* Effect.fail("rollback" as const)
    })
  )
  yield* Effect.flip(rollback).pipe(Effect.timeout("10 seconds"))
  const left = yield* sql<{ n: number }>`SELECT
    (SELECT count(*)::int FROM quotes WHERE id = ${quote.id}) + (SELECT count(*)::int FROM idempotency_keys WHERE key = ${key}) AS n`
  if (left[0]!.n !== 0)
    return yield* Effect.die("a rolled-back write left rows: the repositories bypass the transaction")
  const committed = yield* Effect.flatten(S.writeQuote(scope, customer))
  if ((yield* quotes.find(scope, committed.id))._tag !== "Some")
    return yield* Effect.die("a committed write is missing")
  yield* S.progress("transaction check: a rolled-back write leaves no quote and no key, a committed one is found ✓")
})

const writes = (pgbench: ((writers: number) => Effect.Effect<number, Error>) | undefined) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE bench_insert (id uuid PRIMARY KEY, created_at timestamptz NOT NULL, payload text NOT NULL)`
    const ours = yield* S.writeQuote(scope, customer)
    const insert = sql.unsafe(Server.insertStatement)
    const rows: Array<R.WriteRow> = []
    for (const writers of writerCounts) {
      const o = yield* S.throughput(ours, writers, warmupMs, measureMs)
      yield* S.progress(
        `${writers} writer(s), quote + key txn: ${R.int(o.perSecond)}/s (${R.int(o.ops)} in ${measureMs / 1000} s, process CPU ${Math.round(o.cpu * 100)} %)`
      )
      const c = yield* S.throughput(insert, writers, warmupMs, measureMs)
      yield* S.progress(`${writers} writer(s), INSERT via @effect/sql-pg: ${R.int(c.perSecond)}/s`)
      const p = pgbench === undefined ? undefined : yield* pgbench(writers)
      if (p !== undefined) yield* S.progress(`${writers} writer(s), pgbench: ${R.int(p)} tps`)
      rows.push({ writers, ours: o, client: c, pgbench: p })
    }
    return rows
  })

/** Loads `target` contracts, or `fallback` when the first `fallback` predict more than the budget. */
const load = Effect.gen(function* () {
  const start = performance.now()
  let n = target
  let note = ""
  for (let loaded = 0; loaded < n; ) {
    const next = Math.min(n, loaded + chunk)
    yield* S.loadContracts(scope, customer, loaded + 1, next)
    loaded = next
    if (loaded % 200_000 === 0 || loaded === n) {
      yield* S.progress(`loaded ${R.int(loaded)} / ${R.int(n)} contracts (${S.elapsedSince(start)})`)
    }
    // later chunks insert into deeper indexes: assume them 25 % slower than the first ones
    const projected = (performance.now() - start) * (target / fallback) * 1.25
    if (loaded === fallback && n === target && projected > loadBudgetMs) {
      n = fallback
      note = `${R.int(target)} projected at ${(projected / 1000).toFixed(0)} s > ${loadBudgetMs / 1000} s budget: measured at ${R.int(fallback)}`
      yield* S.progress(note)
    }
  }
  const loadSeconds = (performance.now() - start) / 1000
  const sql = yield* SqlClient.SqlClient
  const vacuum = performance.now()
  yield* sql`VACUUM ANALYZE quotes, contracts, contract_history`
  yield* S.progress(`VACUUM ANALYZE in ${S.elapsedSince(vacuum)}`)
  return { n, loadSeconds, note }
})

/** The plan of the repository's query for one page and the buffers it touches (EXPLAIN ANALYZE of the same SQL). */
const planOf = (after: Cursor.Position) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const where = [
      sql`partner_id = ${scope.partnerId}`,
      sql`environment = ${scope.environment}`,
      sql`customer_reference_id = ${customer}`,
      before(sql, after)
    ]
    const rows = yield* sql<Record<string, unknown>>`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON)
      SELECT ${selectColumns(sql)} FROM contracts c WHERE ${sql.and(where)}
      ORDER BY created_at DESC, id DESC LIMIT ${pageSize + 1}`
    const raw = Object.values(rows[0]!)[0]
    const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>
    const top = plan[0]!.Plan
    const scan = top.Plans?.[0]
    return `${scan?.["Node Type"]} ${scan?.["Index Name"] ?? ""}, ${(top["Shared Hit Blocks"] ?? 0) + (top["Shared Read Blocks"] ?? 0)} buffers`
  })
type PlanNode = {
  "Node Type": string
  "Index Name"?: string
  "Shared Hit Blocks"?: number
  "Shared Read Blocks"?: number
  Plans?: Array<PlanNode>
}

const reads = (n: number) =>
  Effect.gen(function* () {
    const contracts = yield* ContractRepo.ContractRepo
    const pages = [
      { label: `offset ${R.int(10_000)}`, offset: 10_000, rows: pageSize + 1 },
      { label: `offset ${R.int(n - pageSize)} (last page)`, offset: n - pageSize, rows: pageSize }
    ]
    const setups = yield* Effect.forEach(pages, (page) =>
      Effect.map(S.positionAt(scope, customer, page.offset), (at) => ({ ...page, ...at, times: [] as Array<number> }))
    )
    const read = (after: Cursor.Position) => contracts.listByCustomer(scope, customer, { limit: pageSize + 1, after })
    for (const page of setups) {
      const got = yield* read(page.after)
      if (got.length !== page.rows || got[0]?.id !== page.first.id || got[0].history.length !== 2) {
        return yield* Effect.die(
          `${page.label}: got ${got.length} rows from ${got[0]?.id}, expected ${page.rows} from ${page.first.id}`
        )
      }
      for (let i = 0; i < readWarmup; i++) yield* read(page.after)
    }
    for (let i = 0; i < readRuns; i++) {
      for (const page of setups) {
        const t = performance.now()
        yield* read(page.after)
        page.times.push(performance.now() - t)
      }
    }
    return yield* Effect.forEach(setups, (page) =>
      Effect.map(planOf(page.after), (plan): R.ReadRow => {
        const sorted = page.times.sort((a, b) => a - b)
        return {
          label: page.label,
          median: S.percentile(sorted, 50),
          p95: S.percentile(sorted, 95),
          rows: page.rows,
          plan
        }
      })
    )
  })

const backend = (name: string, pgbench: ((writers: number) => Effect.Effect<number, Error>) | undefined) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const version = (yield* sql<{ v: string }>`SELECT current_setting('server_version') AS v`)[0]!.v.split(" ")[0]
    const title = `${name} ${version}`
    console.log(`\n━━ ${title} ━━`)
    const settings = yield* sql<{ s: string }>`SELECT 'fsync=' || current_setting('fsync')
      || ' synchronous_commit=' || current_setting('synchronous_commit')
      || ' shared_buffers=' || current_setting('shared_buffers') AS s`
    yield* S.progress(`settings: ${settings[0]!.s}`)
    yield* transactionCheck
    const writeRows = yield* writes(pgbench)
    const loaded = yield* load
    const readRows = yield* reads(loaded.n)
    const result: R.Result = {
      name: title,
      run,
      writes: writeRows,
      contracts: loaded.n,
      loadSeconds: loaded.loadSeconds,
      loadNote: loaded.note,
      reads: readRows
    }
    R.report(result)
    return result
  })

const postgres = Effect.gen(function* () {
  const start = performance.now()
  const db = yield* Server.freshDatabase(databaseUrl)
  const pgbench = yield* Server.pgbench(db.url, measureMs / 1000)
  console.log(`\nPostgres: fresh database ${db.name} on ${new URL(databaseUrl).host}, pool ${poolSize}`)
  const client = Postgres.client(db.url, poolSize)
  const result = yield* backend("Postgres", pgbench).pipe(
    Effect.provide(PgStore.layer.pipe(Layer.provideMerge(client)))
  )
  yield* S.progress(`Postgres done in ${S.elapsedSince(start)}`)
  return result
})

const embedded = Effect.gen(function* () {
  const start = performance.now()
  console.log(`\nEmbedded: PGlite in memory, one connection (16 writers queue on it)`)
  const result = yield* backend("PGlite (embedded)", undefined).pipe(Effect.provide(EmbeddedStore.layer({})))
  yield* S.progress(`embedded done in ${S.elapsedSince(start)}`)
  return result
})

const main = Effect.gen(function* () {
  const start = performance.now()
  console.log(`Ratelock store benchmark — node ${process.version}, ${cpus().length} vCPU, ${cpus()[0]?.model ?? ""}`)
  console.log(
    `reference: pgbench -n -c 1 -j 1 / -c 16 -j 2 -T ${measureMs / 1000} -f insert.sql, insert.sql = ${Server.insertStatement};`
  )
  const pg = yield* Effect.scoped(postgres)
  const emb = yield* embedded
  console.log(`\n━━ Summary (total ${S.elapsedSince(start)}) ━━`)
  for (const line of [...R.summary(pg), ...R.summary(emb)]) console.log(line)
})

const controller = new AbortController()
process.once("SIGINT", () => controller.abort())
const exit = await Effect.runPromiseExit(main, { signal: controller.signal })
if (Exit.isFailure(exit)) {
  console.error(Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : Cause.pretty(exit.cause))
  process.exitCode = 1
}
