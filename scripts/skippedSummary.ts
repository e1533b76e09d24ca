/**
 * A vitest reporter that ends the run with a line naming what was skipped and why, instead of a
 * warning per suite scattered through the output. Most skips are suites that need a PostgreSQL
 * server (`describe.skipIf(DATABASE_URL === undefined)`); the console's browser suite needs
 * Chromium, and its built-package test `pnpm build` (both run, and fail, under CI when missing).
 */
import type { Reporter, TestModule } from "vitest/node"

/** Suites that skip for something else than PostgreSQL, and what they need. */
const needs: ReadonlyArray<readonly [RegExp, string]> = [
  [/in Chromium$/, "they need Chromium: apt-get install chromium (/usr/bin/chromium) to run them"],
  [/^the console's files$/, "it needs the built package: pnpm build to run it"]
]

export default class SkippedSummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const suites = new Map<string, number>()
    for (const module of modules) {
      for (const test of module.children.allTests("skipped")) {
        const suite = test.fullName.split(" > ")[0] ?? test.name
        suites.set(suite, (suites.get(suite) ?? 0) + 1)
      }
    }
    const byReason = new Map<string, Array<readonly [string, number]>>()
    for (const [suite, n] of suites) {
      const why =
        needs.find(([pattern]) => pattern.test(suite))?.[1] ??
        (process.env.DATABASE_URL === undefined
          ? "they need PostgreSQL: set DATABASE_URL (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm test) to run them"
          : "skipped by the suites themselves")
      byReason.set(why, [...(byReason.get(why) ?? []), [suite, n]])
    }
    for (const [why, list] of byReason) {
      const skipped = list.reduce((total, [, n]) => total + n, 0)
      const which = list.map(([suite, n]) => `${suite} (${n})`).join("; ")
      console.log(`\n${skipped} tests skipped, ${why}: ${which}`)
    }
  }
}
