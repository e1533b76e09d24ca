/**
 * `pnpm ratelock simulate …` as a partner's product team runs it: from files alone, a child process per
 * command, its text, JSON, CSV and SVG checked against the engine's rules.
 */

import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Money, Settlement } from "@ratelock/core"
import { BigDecimal } from "effect"
import { afterAll, assert, describe, it } from "vitest"
import { cli, removeTempDirs, tempDataDir } from "./support/process.ts"

afterAll(removeTempDirs)

/**
 * An SVG file's marks (Plot's `aria-label`s), after checking it is one well-formed `svg` element in the SVG
 * namespace: every tag closed in order, its text and attributes escaped.
 */
const svgMarks = (path: string): Array<string> => {
  const text = readFileSync(path, "utf8")
  const body = text.replace(/^<\?xml [^>]*\?>\n/, "").replace(/<style>[^<]*<\/style>/g, "")
  assert.match(body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* viewBox="0 0 \d+ \d+"/)
  const open: Array<string> = []
  for (const [tag, close, name, rest] of body.matchAll(/<(\/?)([a-zA-Z]+)([^>]*)>/g)) {
    assert.notMatch(rest!.replace(/"[^"]*"/g, ""), /[<"&]/, `attributes quoted: ${tag}`)
    if (close === "/") assert.strictEqual(open.pop(), name, `closes in order: ${tag}`)
    else if (!rest!.endsWith("/")) open.push(name!)
  }
  assert.deepStrictEqual(open, [], "every element closed")
  assert.notMatch(body.replace(/<[^>]*>/g, ""), /[<>]|&(?!amp;|lt;|gt;|quot;)/, "text escaped")
  return [...body.matchAll(/aria-label="([^"]+)"/g)].map(([, label]) => label!)
}

// each command is a process of its own: about a second alone, several under the full suite (a hang guard)
describe("ratelock CLI: simulate", { timeout: 300_000 }, () => {
  it("simulate lock and backtest: from files alone (no service, no database), as text, JSON and CSV; bad input refused", async () => {
    const dir = tempDataDir()
    const files = join(dir, "..")
    const snapshot = join(import.meta.dirname, "..", "..", "..", "docs", "market", "example-snapshot.json")
    const terms = [
      "--snapshot",
      snapshot,
      "--direction",
      "USD_TO_BRL",
      "--notional",
      "10000",
      "--notional-currency",
      "USD",
      "--contract-type",
      "option"
    ]
    const lockWith = (seed: string, ...args: ReadonlyArray<string>) =>
      cli(
        dir,
        "simulate",
        "lock",
        ...terms,
        "--tenor-days",
        "30",
        "--paths",
        "2000",
        "--seed",
        seed,
        "--now",
        "2026-12-01T12:00:00Z",
        ...args
      )
    const lock = (...args: ReadonlyArray<string>) => lockWith("7", ...args)

    // JSON: the engine's result, exact decimals, the same for the same seed; the stale example snapshot said so
    const json = await lock("--exercise", "end", "--json")
    assert.strictEqual(json.code, 0, json.stderr)
    const result = JSON.parse(json.stdout)
    assert.strictEqual(result.paths, 2000)
    assert.deepStrictEqual(result.exercise, { _tag: "end" })
    assert.match(result.premium, /^\d+\.\d+$/)
    assert.match(result.meanPayout, /^\d+(\.\d+)?$/)
    assert.isAbove(result.probabilityOfPayout, 0)
    assert.isBelow(result.probabilityOfPayout, 1)
    assert.match(result.marketWarning, /is \d+ s \(\d+ days\) old/)
    assert.include(result.drift, "risk-neutral")
    assert.strictEqual(
      (await lock("--exercise", "end", "--json")).stdout,
      json.stdout,
      "the same seed, the same figures"
    )
    const otherSeed = JSON.parse((await lockWith("8", "--exercise", "end", "--json")).stdout)
    assert.notStrictEqual(otherSeed.meanPayout, result.meanPayout)

    // text: the warning first, best said to be hindsight beside the stopping rule without foresight
    const chart = join(files, "payouts.svg")
    const text = await lock("--exercise", "best", "--svg", chart)
    assert.strictEqual(text.code, 0, text.stderr)
    assert.match(text.stdout, /^WARNING: the latest market data snapshot .* old/)
    assert.include(text.stdout, "hindsight")
    assert.match(text.stdout, /window engine \(optimal stopping, the premium's basis\): 0\.\d+/)
    assert.match(text.stdout, /a stopping rule without foresight \(at most the engine\): 0\.\d+/)
    assert.match(text.stdout, /Probability of payout: \d+\.\d\d %/)
    // --svg: the payout distribution, drawn by Plot: the histogram, the premium and mean as rules, the axes
    assert.include(text.stdout, `Chart written to ${chart}`)
    const marks = svgMarks(chart)
    assert.includeMembers(marks, ["rect", "rule", "text", "x-axis label", "y-axis label"])
    assert.isAbove((readFileSync(chart, "utf8").match(/<rect /g) ?? []).length, 5, "a histogram's bars")
    assert.include(readFileSync(chart, "utf8"), `premium ${result.premium}`)
    // a fresh present (just after the snapshot) has no warning; a forward shows its deposit's forfeiture
    const fresh = await cli(
      dir,
      "simulate",
      "lock",
      ...terms.slice(0, -1),
      "forward",
      "--window-start",
      "2026-03-02T20:00:00Z",
      "--window-end",
      "2026-04-01T20:00:00Z",
      "--now",
      "2026-03-02T20:05:00Z",
      "--exercise",
      "at:2026-03-20T00:00:00Z",
      "--paths",
      "1000"
    )
    assert.strictEqual(fresh.code, 0, fresh.stderr)
    assert.notInclude(fresh.stdout, "WARNING")
    assert.match(fresh.stdout, /Deposit forfeited: +\d+\.\d\d % of paths/)
    assert.match(fresh.stdout, /Payout above premium: +\d+\.\d\d % of paths/)
    // paid in EURC, a token not issued on every chain: the simulation's rail carries it
    const eurc = await lock("--settlement-currency", "EURC", "--exercise", "end")
    assert.strictEqual(eurc.code, 0, eurc.stderr)
    assert.match(eurc.stdout, /Premium: +\d+\.\d+ EURC/)

    // backtest on a hand-made series: every payout is the settlement's at the series' rate on its exercise date
    const series = join(files, "usdbrl.csv")
    const rates = ["5.40", "5.38", "5.35", "5.42", "5.45", "5.39", "5.36", "5.41", "5.44", "5.37", "5.40", "5.43"]
    writeFileSync(
      series,
      ["date,rate", ...rates.map((r, i) => `2026-01-${String(i + 1).padStart(2, "0")},${r}`)].join("\n")
    )
    const backtest = (...args: ReadonlyArray<string>) =>
      cli(dir, "simulate", "backtest", "--series", series, ...terms, "--tenor-days", "5", "--every-days", "3", ...args)
    const bt = await backtest("--exercise", "best", "--json")
    assert.strictEqual(bt.code, 0, bt.stderr)
    const report = JSON.parse(bt.stdout)
    assert.deepStrictEqual(
      report.locks.map((l: { start: string }) => l.start),
      ["2026-01-01", "2026-01-04", "2026-01-07"]
    )
    for (const l of report.locks) {
      const locked = Money.unsafe(l.lockedRate)
      const rate = Money.unsafe(l.exerciseRate)
      const lock = {
        direction: "USD_TO_BRL",
        notionalCurrency: "USD",
        notionalAmount: Money.unsafe("10000"),
        maxTransactionAmount: Money.unsafe("10000"),
        lockedRate: locked
      } as const
      const conversion = Settlement.conversionFor("USD_TO_BRL", "USD", rate)
      assert.notStrictEqual(conversion, "needs_cross_rate")
      if (conversion === "needs_cross_rate") continue
      const expected = Settlement.payout(lock, rate, conversion).amount
      assert.isTrue(BigDecimal.equals(Money.unsafe(l.payout), expected), `${l.start}: ${l.payout} is the settlement's`)
      assert.isTrue(BigDecimal.equals(rate, Money.unsafe(rates[Number(l.exercisedOn.slice(8)) - 1]!)))
    }
    assert.strictEqual(report.totals.locks, 3)
    const csv = (await backtest("--csv")).stdout.trim().split("\n")
    assert.strictEqual(
      csv[0],
      "start,window_end,spot,locked_rate,premium,deposit,exercised_on,exercise_rate,payout,forfeited,net"
    )
    assert.lengthOf(csv, 4)
    const timeline = join(files, "backtest.svg")
    const table = await backtest("--svg", timeline)
    assert.includeMembers(svgMarks(timeline), ["line", "dot", "rule", "x-axis label"])
    assert.strictEqual(
      (readFileSync(timeline, "utf8").match(/<circle /g) ?? []).length,
      6,
      "a premium and a payout per lock"
    )
    assert.match(table.stdout, /Locks: +3 \(\d paid\)/)
    assert.match(
      table.stdout,
      /^Settings: USD_TO_BRL option, 10000 USD, 5 days, cip_fair, a lock every 3 days, exercise end, 2026-01-01 to 2026-01-12$/m
    )
    assert.match(table.stdout, /Loss ratio: +\d+\.\d{4} \(payouts \/ premiums\)/)
    assert.match(table.stdout, /Worst lock for the service: 2026-01-0\d/)

    // bad input: the engine's message, a non-zero exit, nothing on stdout
    const refusals: Array<[string, ReadonlyArray<string>, RegExp]> = [
      ["gap", ["2026-01-01,5.4", "2026-01-09,5.4"], /Bad series: line 3: 8 days between 2026-01-01 and 2026-01-09/],
      ["unsorted", ["2026-01-02,5.4", "2026-01-01,5.4"], /Bad series: line 3: 2026-01-01 does not come after/],
      ["non_numeric", ["2026-01-01,5.4", "2026-01-02,abc"], /Bad series: line 3: the rate "abc" is not a positive/],
      ["tenor_past_end", ["2026-01-01,5.4", "2026-01-02,5.4"], /Bad series: a 5-day lock from the series' first date/],
      [
        "off_snapshot",
        Array.from({ length: 8 }, (_, i) => `2026-01-0${i + 1},0.185`),
        /Bad series: the series' last rate 0\.185 is more than 3 times away from the snapshot's USD_TO_BRL rate 5\.\d+ \(BRL per USD\)/
      ]
    ]
    for (const [name, lines, message] of refusals) {
      writeFileSync(series, ["date,rate", ...lines].join("\n"))
      const refused = await backtest()
      assert.strictEqual(refused.code, 1, name)
      assert.match(refused.stderr, message, name)
      assert.strictEqual(refused.stdout, "", name)
    }
    const badPaths = await cli(dir, "simulate", "lock", ...terms, "--tenor-days", "30", "--paths", "0")
    assert.strictEqual(badPaths.code, 1)
    assert.match(badPaths.stderr, /Refused \(bad_paths\): paths must be a positive integer, got 0/)
    const badExercise = await lock("--exercise", "whenever")
    assert.strictEqual(badExercise.code, 1)
    assert.match(badExercise.stderr, /--exercise is best, end, uniform or at:<ISO instant>, not "whenever"/)
    const wrongSide = await cli(
      dir,
      "simulate",
      "lock",
      ...terms.slice(0, 7),
      "EUR",
      ...terms.slice(8),
      "--tenor-days",
      "30"
    )
    assert.strictEqual(wrongSide.code, 1)
    assert.match(wrongSide.stderr, /notional_currency: notional_currency must be one of the currencies of USD_TO_BRL/)
    const notJson = await cli(dir, "simulate", "lock", ...terms.slice(2), "--snapshot", series, "--tenor-days", "30")
    assert.strictEqual(notJson.code, 1)
    assert.match(notJson.stderr, /The snapshot .* is refused:\n +\(document\): not JSON/)
  })
})
