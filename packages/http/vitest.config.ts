import { defineProject } from "vitest/config"
import { workers } from "../../vitest.shared.ts"

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "http",
    ...workers,
    include: ["test/**/*.test.ts"],
    // real servers, processes and databases share 2 cores with the rest of the suite
    testTimeout: 30_000,
    // hooks stop servers and remove embedded data directories: slow when the disk is busy too
    hookTimeout: 60_000
  }
})
