import { defineProject } from "vitest/config"
import { workers } from "../../vitest.shared.ts"

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "adapters-chain",
    ...workers,
    // the files share their workers, each on fresh copies of the workspace's modules
    // (freshModules.ts): node_modules (viem, solana, litesvm) imported once per worker, not per file
    isolate: false,
    setupFiles: ["../../scripts/freshModules.ts"],
    include: ["test/**/*.test.ts"],
    // real chains (anvil, litesvm) and embedded Postgres start slowly on a busy 2-core machine
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
