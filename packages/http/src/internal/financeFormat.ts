/**
 * The finance commands' output. Their JSON is core's records encoded by their own schemas, made here for both the
 * routes of the operator API's finance group (`api/OperatorFinance.ts`) and `ratelock finance … --json` on the
 * database, so the CLI prints the same in both modes. The text and the CSV are made from that JSON (the route's
 * answer), never from a figure computed here: every amount is core's decimal string as it is.
 */
import { DailyClose, PeriodPnl, PnlReport } from "@ratelock/core"
import { Schema } from "effect"
import type { Close, Pnl } from "../api/OperatorFinance.ts"
import { table } from "./table.ts"

type PnlJson = typeof Pnl.Type
type CloseJson = typeof Close.Type
type Lines = PnlJson["totals"]

/** `finance pnl --json`, the route's answer. */
export const pnlJson = Schema.encodeSync(PnlReport.PnlReport)

/** `finance close --json`: the close written. */
export const closeJson = Schema.encodeSync(DailyClose.CloseSummary)

/** `finance closes --json`: oldest first. */
export const closesJson = (closes: ReadonlyArray<DailyClose.CloseSummary>) => ({
  items: closes.map((c) => closeJson(c))
})

/** What a close's P&L says in one phrase: its total since the close before it, or that there was none. */
const sinceBefore = (close: CloseJson) =>
  close.pnl === null
    ? "first close of the environment: no P&L before it"
    : `P&L since ${close.pnl.from_close_id}: ${close.pnl.usd.total} USD`

const snapshotOf = (close: CloseJson) =>
  `${close.snapshot_id === null ? "the built-in illustrative snapshot" : `snapshot ${close.snapshot_id}`} of ${close.snapshot_as_of}`

/** `finance close`: the close, where it stands and its P&L since the one before. */
export const close = (c: CloseJson): string =>
  [`Closed ${c.environment} at ${c.closed_at}: ${c.id}`, `  on ${snapshotOf(c)}`, `  ${sinceBefore(c)}`].join("\n")

/** `finance closes`: one line per close, oldest first. */
export const closes = (listed: { readonly items: ReadonlyArray<CloseJson> }): string =>
  listed.items.length === 0
    ? "No close in these days (the workers close every day at RATELOCK_DAILY_CLOSE; ratelock finance close closes now)."
    : table(
        ["ID", "CLOSED_AT", "FOR_CUT", "SNAPSHOT", "OPEN_LOCKS", "PNL_USD"],
        listed.items.map((c) => [
          c.id,
          c.closed_at,
          c.scheduled_for ?? "operator",
          c.snapshot_id ?? "illustrative",
          String(c.pairs.reduce((n, p) => n + p.open_locks, 0)),
          c.pnl === null ? "first close" : c.pnl.usd.total
        ])
      )

/** A column of a view: its name (the CSV's header, upper-cased for the table) and its cell. */
interface Column<R> {
  readonly name: string
  readonly cell: (row: R) => string
}

const line = (name: keyof Lines, prefix = ""): Column<{ readonly lines: Lines }> => ({
  name: `${prefix}${name}`,
  cell: (row) => row.lines[name]
})

/** The day view: total, realised, unrealised, then each explained line and the unexplained, and the cumulative. */
const dayColumns: ReadonlyArray<Column<PnlJson["days"][number]>> = [
  { name: "date", cell: (d) => d.date },
  line("total"),
  line("realised"),
  line("unrealised"),
  ...PeriodPnl.explainedLines.map((name) => line(name)),
  line("unexplained"),
  { name: "cumulative", cell: (d) => d.cumulative_total }
]

/** The pair view: the USD lines per market pair, then the same pair's figures in its quote currency. */
const pairColumns: ReadonlyArray<Column<PnlJson["pairs"][number]>> = [
  { name: "pair", cell: (p) => p.pair },
  { name: "locks_sold", cell: (p) => String(p.locks_sold) },
  { name: "locks_settled", cell: (p) => String(p.locks_settled) },
  ...(["total", "realised", "unrealised", ...PeriodPnl.explainedLines, "unexplained"] as const).map(
    (name): Column<PnlJson["pairs"][number]> => ({ name, cell: (p) => p.usd[name] })
  ),
  { name: "quote", cell: (p) => p.quote },
  ...(["total", "realised", "unrealised"] as const).map(
    (name): Column<PnlJson["pairs"][number]> => ({ name: `quote_${name}`, cell: (p) => p.in_quote[name] })
  )
]

/** The partner view: what each partner's locks brought in, realised. */
const partnerColumns: ReadonlyArray<Column<PnlJson["partners"][number]>> = [
  { name: "partner_id", cell: (p) => p.partner_id },
  { name: "locks_sold", cell: (p) => String(p.locks_sold) },
  { name: "premiums", cell: (p) => p.premiums },
  { name: "forfeits", cell: (p) => p.forfeits },
  { name: "payouts", cell: (p) => p.payouts },
  { name: "realised", cell: (p) => p.realised }
]

/** The header and rows of the report's `by` view. */
const view = (
  report: PnlJson
): { readonly header: ReadonlyArray<string>; readonly rows: ReadonlyArray<ReadonlyArray<string>> } => {
  const of = <R>(columns: ReadonlyArray<Column<R>>, rows: ReadonlyArray<R>) => ({
    header: columns.map((c) => c.name),
    rows: rows.map((row) => columns.map((c) => c.cell(row)))
  })
  switch (report.by) {
    case "day":
      return of(dayColumns, report.days)
    case "pair":
      return of(pairColumns, report.pairs)
    case "partner":
      return of(partnerColumns, report.partners)
  }
}

const rowsOf = { day: "day", pair: "market pair", partner: "partner" } as const

/** `finance pnl`: the rows of the `by` view as a table, then the span's totals line by line. */
export const pnl = (report: PnlJson): string => {
  const heading = `P&L of ${report.environment} from ${report.from} to ${report.to}, ${report.currency}: ${report.periods} period${report.periods === 1 ? "" : "s"} between closes, by ${rowsOf[report.by]}`
  if (report.periods === 0) {
    return `${heading}\nNo period ends in these days: a period runs from one close to the next (the workers close every day at RATELOCK_DAILY_CLOSE; ratelock finance close closes now).`
  }
  const { header, rows } = view(report)
  const totals = table(
    ["LINE", "USD"],
    PeriodPnl.lineNames.map((name) => [name, report.totals[name]])
  )
  return [
    heading,
    rows.length === 0
      ? `No ${rowsOf[report.by]} has a figure.`
      : table(
          header.map((h) => h.toUpperCase()),
          rows
        ),
    "",
    "Totals",
    totals
  ].join("\n")
}

/** A CSV field, quoted when it holds a comma, a quote or a line break. */
const field = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text)

/** `finance pnl --csv`: the rows of the `by` view with a header, every decimal exact as the route wrote it. */
export const pnlCsv = (report: PnlJson): string => {
  const { header, rows } = view(report)
  return [header, ...rows].map((row) => row.map(field).join(",")).join("\n")
}
