import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { defineConfig } from "vitest/config"
import { onConsoleLog } from "./scripts/expectedNoise.ts"
import LongestFirst from "./scripts/longestFirst.ts"
import { workers } from "./vitest.shared.ts"

// Node's compile cache for every process of the run: the test workers, and the services and CLI
// commands the e2e tests start (`node --conditions=source src/main.ts`, hundreds of them), which
// inherit it from the environment. A process that finds its modules compiled there skips parsing
// and compiling them again: about a third of a CLI command's start-up.
const compileCache = join(import.meta.dirname, "node_modules", ".cache", "node-compile-cache")
mkdirSync(compileCache, { recursive: true })
process.env.NODE_COMPILE_CACHE ??= compileCache

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    projects: ["packages/*"],
    reporters: ["default", "./scripts/skippedSummary.ts"],
    onConsoleLog,
    globalSetup: ["./scripts/pgliteTemplate.ts"],
    ...workers,
    sequence: { sequencer: LongestFirst }
  }
})
