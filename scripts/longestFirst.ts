/**
 * The order `pnpm test` starts its files in: longest first, across every package, so the files
 * that take minutes (the CLI's, the crash tests', the console's) start at once and the short ones
 * fill the workers around them, instead of the longest starting last and running alone at the
 * end. Vitest's own order runs the packages one after the other (by name: http's e2e files came
 * after all of core's) and knows a file's length only from a previous run on the same checkout.
 *
 * A file's length is its duration in the last run (vitest's results cache), else the estimate
 * below (seconds on the 2-core machine, files running side by side): on a fresh clone, as under
 * CI, it is the estimate that puts the long files first. A file in neither comes after the known
 * ones, larger files first. Failed files still go first, as vitest does.
 */
import { stat } from "node:fs/promises"
import { relative } from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

// measured in a clean clone's run of `pnpm test` on 2026-12-03, files of 8 s or more (CLI commands in the tests' processes)
const estimate: Record<string, number> = {
  "packages/http/test/EmbeddedCrash.e2e.test.ts": 109,
  "packages/http/test/MoneyLoopCrash.e2e.test.ts": 86,
  "packages/http/test/DailyCloseCrash.e2e.test.ts": 85,
  "packages/http/test/HedgeCrashSafety.e2e.test.ts": 63,
  "packages/http/test/Host.test.ts": 59,
  "packages/http/test/EmbeddedHedgeCrash.e2e.test.ts": 50,
  "packages/http/test/CrashSafety.e2e.test.ts": 45,
  "packages/http/test/PayoutsOnChain.e2e.test.ts": 39,
  "packages/http/test/Cli.test.ts": 39,
  "packages/adapters-store/test/PgStore.test.ts": 36,
  "packages/http/test/Console.e2e.test.ts": 35,
  "packages/http/test/PayoutsOnChainEmbeddedCrash.e2e.test.ts": 34,
  "packages/http/test/OperatorFinance.e2e.test.ts": 34,
  "packages/http/test/RateLimit.e2e.test.ts": 27,
  "packages/http/test/CliDesk.test.ts": 27,
  "packages/http/test/OperatorDesk.e2e.test.ts": 23,
  "packages/http/test/PayoutsOnChainCrash.e2e.test.ts": 22,
  "packages/http/test/OperatorPartners.e2e.test.ts": 22,
  "packages/http/test/CliMoney.test.ts": 22,
  "packages/http/test/ReadmeWalkthrough.e2e.test.ts": 19,
  "packages/http/test/OperatorAccess.e2e.test.ts": 16,
  "packages/http/test/CorridorLimits.e2e.test.ts": 15,
  "packages/http/test/ManualHedging.e2e.test.ts": 14,
  "packages/testkit/test/Readme.test.ts": 13,
  "packages/http/test/OperatorMoney.e2e.test.ts": 13,
  "packages/adapters-store/test/EmbeddedStore.test.ts": 13,
  "packages/http/test/Telemetry.e2e.test.ts": 12,
  "packages/http/test/MultiProcess.e2e.test.ts": 12,
  "packages/http/test/Fuzz.e2e.test.ts": 11,
  "packages/http/test/Lifecycle.e2e.test.ts": 10,
  "packages/http/test/Book.e2e.test.ts": 10,
  "packages/adapters-chain/test/evm/EvmGatewayReplacement.test.ts": 10,
  "packages/adapters-chain/test/SqlSimulatedChain.test.ts": 10,
  "packages/http/test/Metrics.e2e.test.ts": 9,
  "packages/http/test/DailyCloseWorkers.e2e.test.ts": 9,
  "packages/http/test/DailyClose.e2e.test.ts": 9,
  "packages/core/test/ReadmeExamples.test.ts": 9,
  "packages/http/test/Production.e2e.test.ts": 8,
  "packages/http/test/OperatorRoles.e2e.test.ts": 8,
  "packages/http/test/MoneyLoopOnChain.e2e.test.ts": 8,
  "packages/adapters-store/test/PgRows.test.ts": 8
}

const size = (path: string) =>
  stat(path).then(
    (s) => s.size,
    () => 0
  )

export default class LongestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const root = this.ctx.config.root
    const known = new Map<TestSpecification, { readonly ms: number; readonly failed: boolean }>()
    const sizes = new Map<TestSpecification, number>()
    await Promise.all(
      files.map(async (spec) => {
        const last = this.ctx.cache.getTestSpecificationResult(spec)
        const estimated = estimate[relative(root, spec.moduleId).replaceAll("\\", "/")]
        if (last !== undefined) known.set(spec, { ms: last.duration, failed: last.failed === true })
        else if (estimated !== undefined) known.set(spec, { ms: estimated * 1000, failed: false })
        else sizes.set(spec, await size(spec.moduleId))
      })
    )
    return [...files].sort((a, b) => {
      const groupOrder = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder
      if (groupOrder !== 0) return groupOrder
      const ka = known.get(a)
      const kb = known.get(b)
      if (ka !== undefined && kb !== undefined) {
        if (ka.failed !== kb.failed) return ka.failed ? -1 : 1
        return kb.ms - ka.ms
      }
      if (ka !== undefined || kb !== undefined) return ka !== undefined ? -1 : 1
      return (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0)
    })
  }
}
