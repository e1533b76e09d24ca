/**
 * Output of the store benchmark (`bench/store.ts`): a table per backend and the summary lines the
 * README quotes.
 */
import type { Throughput } from "./support.ts"

export type Run = {
  readonly warmupMs: number
  readonly measureMs: number
  readonly pageSize: number
  readonly readRuns: number
}

export type WriteRow = {
  readonly writers: number
  readonly ours: Throughput
  readonly client: Throughput
  /** pgbench tps on the same server, Postgres only. */
  readonly pgbench: number | undefined
}

export type ReadRow = {
  readonly label: string
  readonly median: number
  readonly p95: number
  readonly rows: number
  readonly plan: string
}

export type Result = {
  readonly name: string
  readonly run: Run
  readonly writes: ReadonlyArray<WriteRow>
  readonly contracts: number
  readonly loadSeconds: number
  readonly loadNote: string
  readonly reads: ReadonlyArray<ReadRow>
}

export const int = (n: number): string => Math.round(n).toLocaleString("en-US")

export const ms = (n: number): string => (n < 10 ? n.toFixed(2) : n.toFixed(1))

export const ratio = (n: number): string => `${n.toFixed(2)}×`

/** Columns aligned by `align` (`l`eft or `r`ight per column), two spaces apart. */
export const table = (align: string, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  return rows
    .map((r) =>
      `  ${r.map((cell, c) => (align[c] === "l" ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ")}`.trimEnd()
    )
    .join("\n")
}

/** Ours against the reference: pgbench when there is one, else the same INSERT through our client. */
const reference = (w: WriteRow): number => w.pgbench ?? w.client.perSecond

export const report = (r: Result): void => {
  const { measureMs, warmupMs, pageSize, readRuns } = r.run
  const pgbench = r.writes.some((w) => w.pgbench !== undefined)
  console.log(
    `\n${r.name} — writes: one transaction = BEGIN, claim key, insert quote, complete key, COMMIT` +
      ` (${measureMs / 1000} s after ${warmupMs / 1000} s warm-up)`
  )
  console.log(
    table("rrrrrrrr", [
      [
        "writers",
        "txn/s",
        "p50 ms",
        "p95 ms",
        "process CPU",
        "INSERT/s (our client)",
        "pgbench tps",
        pgbench ? "ours/pgbench" : "ours/INSERT"
      ],
      ...r.writes.map((w) => [
        `${w.writers}`,
        int(w.ours.perSecond),
        ms(w.ours.p50),
        ms(w.ours.p95),
        `${Math.round(w.ours.cpu * 100)} %`,
        int(w.client.perSecond),
        w.pgbench === undefined ? "—" : int(w.pgbench),
        ratio(w.ours.perSecond / reference(w))
      ])
    ])
  )
  console.log(
    `\n${r.name} — reads: ContractRepo.listByCustomer, page of ${pageSize} (limit ${pageSize + 1}), ` +
      `${int(r.contracts)} contracts of one partner (loaded in ${r.loadSeconds.toFixed(1)} s), ${readRuns} runs each`
  )
  if (r.loadNote !== "") console.log(`  note: ${r.loadNote}`)
  console.log(
    table("lrrrl", [
      ["page", "median ms", "p95 ms", "rows", "plan (EXPLAIN ANALYZE of the same query)"],
      ...r.reads.map((x) => [x.label, ms(x.median), ms(x.p95), `${x.rows}`, x.plan])
    ])
  )
  const deep = r.reads[1]!.median / r.reads[0]!.median
  console.log(`  last page / offset 10,000 (median): ${ratio(deep)}, target ≤ 1.5× ${deep <= 1.5 ? "✓" : "✗"}`)
}

export const summary = (r: Result): ReadonlyArray<string> => {
  const [one, many] = r.writes
  const [shallow, deep] = r.reads
  const pair = (f: (w: WriteRow) => string) => `${f(one!)} / ${f(many!)}`
  const against =
    one!.pgbench === undefined
      ? `a one-INSERT transaction through the same client (${pair((w) => int(w.client.perSecond))}/s)`
      : `pgbench insert-only on the same server (${pair((w) => int(w.pgbench!))} tps)`
  return [
    `${r.name}: ${int(one!.ours.perSecond)} quote + idempotency-key transactions/s at 1 writer, ` +
      `${int(many!.ours.perSecond)} at 16 — ${pair((w) => ratio(w.ours.perSecond / reference(w)))} of ${against}`,
    `${r.name}: a page of 25 locks among ${int(r.contracts)} of one partner in ${ms(shallow!.median)} ms at ` +
      `offset 10,000 and ${ms(deep!.median)} ms on the last page (median of ${r.run.readRuns}; ` +
      `${ratio(deep!.median / shallow!.median)})`
  ]
}
