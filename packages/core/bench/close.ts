/**
 * The daily close's benchmark (issue 29): the synthetic book of `riskBook.ts` (100,000 open locks by default, over
 * every corridor, with its committed locks and payouts due) closed as the workers close it (`closeBook.build`: the
 * revaluation with delta, gamma, vega, theta, vanna and volga, each lock's vol, the payouts due), then closed
 * again a day later on a moved market (every spot +1 %, every vol +1 point), and the P&L explained between the two
 * closes (`PnlExplain.between`: the book revalued on the earlier market rolled a day, and each lock's vol on the
 * earlier smile). One thread, slices and all, as `pnpm start`'s workers run it.
 *
 * Timed: each close, the explain, and the close's JSON (what a store writes: the encoded record). Peak RSS is the
 * process's, read after each step. The unexplained's share of the total is printed for the move measured.
 *
 * Run: `pnpm bench:risk` runs it after the revaluation's benchmark (= `node --max-semi-space-size=8
 * bench/close.ts` in packages/core). Options: `--locks N`, `--spot 0.05` (the relative spot move), `--vol 0.01`.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { BigDecimal, DateTime, Effect, Result, Schema } from "effect"
import * as DailyClose from "../src/finance/DailyClose.ts"
import * as closeBook from "../src/finance/internal/closeBook.ts"
import * as PnlExplain from "../src/finance/PnlExplain.ts"
import * as Money from "../src/kernel/Money.ts"
import * as MarketSnapshot from "../src/market/MarketSnapshot.ts"
import { makeBook } from "./riskBook.ts"

const option = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`)
  return i < 0 ? undefined : process.argv[i + 1]
}
const locks = Number(option("locks") ?? 100_000)
const spotMove = Number(option("spot") ?? 0.01)
const volMove = Number(option("vol") ?? 0.01)
const dayMs = 86_400_000

const examplePath = join(import.meta.dirname, "../../../docs/market/example-snapshot.json")
const nowMs = Date.parse("2026-03-02T20:05:00Z") // the example's as_of + 5 min
const first = Result.getOrThrow(MarketSnapshot.validateJson(readFileSync(examplePath, "utf8"), { now: nowMs }))
const second: MarketSnapshot.MarketSnapshot = {
  ...first,
  as_of: DateTime.makeUnsafe(first.as_of.epochMilliseconds + dayMs),
  spot: Object.fromEntries(
    Object.entries(first.spot).map(([pair, s]) => [
      pair,
      BigDecimal.round(Money.multiply(s, Money.unsafe(String(1 + spotMove))), { scale: 8, mode: "half-even" })
    ])
  ),
  vols: Object.fromEntries(
    Object.entries(first.vols).map(([pair, pillars]) => [
      pair,
      pillars.map((p) => ({ ...p, atm: Money.sum(p.atm, Money.unsafe(String(volMove))) }))
    ])
  )
}
const book = makeBook({ openLocks: locks, snapshot: first, now: nowMs })
const encode = Schema.encodeSync(DailyClose.DailyClose)

const rss = () => (process.resourceUsage().maxRSS / 1024).toFixed(0)
const timed = <A>(label: string, f: () => A): A => {
  const start = performance.now()
  const result = f()
  console.log(
    `${label.padEnd(44)} ${((performance.now() - start) / 1000).toFixed(2).padStart(7)} s   peak RSS ${rss()} MB`
  )
  return result
}

const close = (id: string, snapshot: MarketSnapshot.MarketSnapshot, previous: string | null) => ({
  ...Effect.runSync(
    closeBook.build({
      id,
      environment: "production",
      now: DateTime.makeUnsafe(snapshot.as_of.epochMilliseconds + 5 * 60_000),
      scheduledFor: null,
      snapshotId: id,
      snapshot,
      book,
      hedges: [],
      balances: [],
      previousCloseId: previous
    })
  ),
  pnl: null
})

console.log(
  `${locks.toLocaleString("en")} open locks (production and sandbox); spot ${spotMove * 100} %, vols ${volMove * 100} points`
)
const earlier = timed("close (revaluation with the cross greeks)", () => close("first", first, null))
const json = timed("close's JSON (what the store writes)", () => JSON.stringify(encode(earlier)))
console.log(
  `  ${earlier.locks.length.toLocaleString("en")} production locks, ${(json.length / 1e6).toFixed(1)} MB of JSON`
)
const later = timed("second close, a day later on the moved market", () => close("second", second, "first"))
const pnl = timed("explain between the two", () =>
  Effect.runSync(PnlExplain.between({ earlier, later, flows: [], treasury: [] }))
)
const total = Money.toModel(pnl.usd.total)
const unexplained = Money.toModel(pnl.usd.unexplained)
console.log(
  `  total ${total.toFixed(2)} USD, unexplained ${unexplained.toFixed(2)} USD: ${((100 * Math.abs(unexplained)) / Math.abs(total)).toFixed(2)} % of the total`
)
