import { defineProject } from "vitest/config"
import { workers } from "../../vitest.shared.ts"

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "adapters-chain",
    ...workers,
    include: ["test/**/*.test.ts"],
    // real chains (anvil, litesvm) and embedded Postgres start slowly on a busy 2-core machine
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
