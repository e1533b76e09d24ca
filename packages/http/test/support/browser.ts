/**
 * A real browser for the console's tests: headless Chromium from Debian's `chromium` package
 * (`/usr/bin/chromium`, or `RATELOCK_CHROMIUM`), driven by playwright-core, which downloads no
 * browser of its own. Without it the browser suites skip with a notice, unless `CI` is set: there
 * they run, and fail, since `.ci/run` installs it.
 *
 * Also: reading back what the console shows. Every value it takes from a route is marked with the
 * route (`data-source`), where in its JSON (`data-path`) and how it was written (`data-format`);
 * `figuresOf` reads them and `mismatches` compares each one with the route's JSON, undoing only
 * the writing (digit grouping, the minus sign, per cent).
 */
import { BigDecimal } from "effect"
import { existsSync } from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"

export const chromiumPath = process.env.RATELOCK_CHROMIUM ?? "/usr/bin/chromium"

/** Whether the browser suites run: Chromium is there, or CI demands them. */
export const browserAvailable = existsSync(chromiumPath)
export const runBrowserSuites = browserAvailable || process.env.CI !== undefined

if (!runBrowserSuites) {
  console.warn(`${chromiumPath} is missing: the console's browser tests are skipped (apt-get install chromium)`)
}

export const launch = (): Promise<Browser> => {
  if (!browserAvailable)
    throw new Error(`${chromiumPath} is missing: install Debian's chromium (apt-get install chromium)`)
  return chromium.launch({ executablePath: chromiumPath })
}

/** One value the page shows from a route. */
export interface Figure {
  readonly source: string
  readonly path: string
  readonly format: string
  /** `negated`: written without its minus sign ("would lose 1,234.56 USD"). */
  readonly sign: string | undefined
  readonly text: string
}

export const figuresOf = (page: Page): Promise<ReadonlyArray<Figure>> =>
  page.$$eval("#app [data-source][data-path]", (elements) =>
    elements.map((e) => {
      const d = (e as HTMLElement).dataset
      return {
        source: d.source ?? "",
        path: d.path ?? "",
        format: d.format ?? "",
        sign: d.sign === "negated" ? "negated" : undefined,
        text: e.textContent ?? ""
      }
    })
  )

/** The value at `path` (`pairs.0.mtm`) of a route's JSON. */
// biome-ignore lint/suspicious/noExplicitAny: route answers are walked by path
export const at = (json: any, path: string): unknown => path.split(".").reduce((value, key) => value?.[key], json)

/** A decimal as the page writes it, back to a decimal: digits ungrouped, "−" as "-". */
const ungrouped = (text: string) => text.trim().replaceAll(",", "").replaceAll("\u2212", "-")

const decimal = (text: string): BigDecimal.BigDecimal | undefined => {
  const parsed = BigDecimal.fromString(text)
  return parsed._tag === "Some" ? BigDecimal.normalize(parsed.value) : undefined
}

/** What the page wrote back to the route's value, or a reason it cannot be. */
const read = (figure: Figure): { readonly value: unknown } | { readonly unreadable: string } => {
  switch (figure.format) {
    case "count": {
      const n = Number(ungrouped(figure.text))
      return Number.isInteger(n) ? { value: n } : { unreadable: figure.text }
    }
    case "decimal":
    case "exact": {
      const shown = ungrouped(figure.text)
      const value = decimal(figure.sign === "negated" ? `-${shown}` : shown)
      return value === undefined ? { unreadable: figure.text } : { value }
    }
    case "percent": {
      const shown = decimal(ungrouped(figure.text).replace(/\s*%$/, ""))
      return shown === undefined
        ? { unreadable: figure.text }
        : { value: BigDecimal.normalize(BigDecimal.divideUnsafe(shown, BigDecimal.fromNumberUnsafe(100))) }
    }
    default:
      return { value: figure.text }
  }
}

const same = (shown: unknown, expected: unknown, format: string): boolean => {
  if (format === "count") return shown === expected
  if (format === "decimal" || format === "exact" || format === "percent") {
    const want = typeof expected === "string" ? decimal(expected) : undefined
    return want !== undefined && BigDecimal.isBigDecimal(shown) && BigDecimal.equals(shown, want)
  }
  return shown === (expected ?? "—")
}

/**
 * Every figure of `figures` from a route in `routes` whose value differs from that route's JSON,
 * described; empty when the page says what the routes say.
 */
export const mismatches = (
  figures: ReadonlyArray<Figure>,
  // biome-ignore lint/suspicious/noExplicitAny: route answers are walked by path
  routes: Readonly<Record<string, any>>
): ReadonlyArray<string> =>
  figures.flatMap((figure) => {
    if (!(figure.source in routes)) return []
    const expected = at(routes[figure.source], figure.path)
    const shown = read(figure)
    if ("unreadable" in shown) return [`${figure.source} ${figure.path}: "${figure.text}" is not a ${figure.format}`]
    return same(shown.value, expected, figure.format)
      ? []
      : [`${figure.source} ${figure.path}: the page shows "${figure.text}", the route says ${JSON.stringify(expected)}`]
  })
