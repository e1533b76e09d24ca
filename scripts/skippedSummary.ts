/**
 * A vitest reporter that ends the run with one line naming what was skipped and why, instead of a
 * warning per suite scattered through the output. Every skip in this repository is a suite that
 * needs a PostgreSQL server (`describe.skipIf(DATABASE_URL === undefined)`); anything else skipped
 * is named as it is.
 */
import type { Reporter, TestModule } from "vitest/node"

export default class SkippedSummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const suites = new Map<string, number>()
    for (const module of modules) {
      for (const test of module.children.allTests("skipped")) {
        const suite = test.fullName.split(" > ")[0] ?? test.name
        suites.set(suite, (suites.get(suite) ?? 0) + 1)
      }
    }
    const skipped = [...suites.values()].reduce((a, b) => a + b, 0)
    if (skipped === 0) return
    const which = [...suites].map(([suite, n]) => `${suite} (${n})`).join("; ")
    const why =
      process.env.DATABASE_URL === undefined
        ? "they need PostgreSQL: set DATABASE_URL (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm test) to run them"
        : "skipped by the suites themselves"
    console.log(`\n${skipped} tests skipped, ${why}: ${which}`)
  }
}
