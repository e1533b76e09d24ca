/** A daily spot series read from CSV, the history a backtest walks. */
import { millisPerDay, isoDay } from "./internal/rules.ts"
import { SeriesError } from "./Simulated.ts"
import { Option, Result } from "effect"
import * as Money from "../kernel/Money.ts"

/** A daily spot series: dates (UTC midnight, epoch ms) strictly increasing, rates exact (QUOTE per BASE). */
export interface SpotSeries {
  readonly dates: ReadonlyArray<number>
  readonly rates: ReadonlyArray<Money.Decimal>
}

/**
 * The longest step between two dates of a daily series before it is a gap: a weekend and a holiday (Friday to a
 * Tuesday) is 4 days.
 */
export const maxStepDays = 4

const datePattern = /^\d{4}-\d{2}-\d{2}$/u

/**
 * Parses a `date,rate` CSV (an optional header, `YYYY-MM-DD` dates, decimal rates; blank lines ignored): refuses
 * non-numeric rates, bad dates, dates out of order or repeated, and gaps of more than `maxStepDays`.
 */
export const parseSeries = (csv: string): Result.Result<SpotSeries, SeriesError> => {
  const dates: Array<number> = []
  const rates: Array<Money.Decimal> = []
  const lines = csv.split(/\r?\n/u)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    const lineNo = i + 1
    if (line === "") continue
    const cells = line.split(",").map((c) => c.trim())
    // a header: the first line, naming its columns (a malformed first date is an error, not a header)
    if (i === 0 && !/^\d/u.test(cells[0] ?? "")) continue
    const fail = (reason: SeriesError["reason"], message: string) =>
      Result.fail(new SeriesError({ reason, line: lineNo, message: `line ${lineNo}: ${message}` }))
    if (cells.length !== 2) return fail("bad_line", `expected "date,rate", got "${line}"`)
    const [day, rateText] = cells as [string, string]
    const date = Date.parse(`${day}T00:00:00Z`)
    if (!datePattern.test(day) || Number.isNaN(date)) return fail("bad_line", `"${day}" is not a YYYY-MM-DD date`)
    const rate = Money.parse(rateText)
    if (Option.isNone(rate) || !Money.isPositive(rate.value)) {
      return fail("non_numeric", `the rate "${rateText}" is not a positive decimal number`)
    }
    const previous = dates.at(-1)
    if (previous !== undefined) {
      if (date <= previous)
        return fail("unsorted", `${day} does not come after ${isoDay(previous)}: dates must increase`)
      const step = (date - previous) / millisPerDay
      if (step > maxStepDays) {
        return fail(
          "gap",
          `${step} days between ${isoDay(previous)} and ${day} (at most ${maxStepDays} in a daily series)`
        )
      }
    }
    dates.push(date)
    rates.push(rate.value)
  }
  if (dates.length < 2) {
    return Result.fail(
      new SeriesError({ reason: "empty", line: null, message: "the series has fewer than two dated rates" })
    )
  }
  return Result.succeed({ dates, rates })
}
