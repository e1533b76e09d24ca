import { defineConfig } from "vitest/config"
import { onConsoleLog } from "./scripts/expectedNoise.ts"
import LongestFirst from "./scripts/longestFirst.ts"
import { workers } from "./vitest.shared.ts"

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    projects: ["packages/*"],
    reporters: ["default", "./scripts/skippedSummary.ts"],
    onConsoleLog,
    ...workers,
    sequence: { sequencer: LongestFirst }
  }
})
