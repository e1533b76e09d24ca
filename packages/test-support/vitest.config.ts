import { defineProject } from "vitest/config"
import { workers } from "../../vitest.shared.ts"

export default defineProject({
  test: {
    name: "test-support",
    ...workers,
    // the files share their workers, each on fresh copies of the workspace's modules
    // (freshModules.ts): node_modules imported once per worker, not per file
    isolate: false,
    setupFiles: ["../../scripts/freshModules.ts"],
    include: ["test/**/*.test.ts"],
    // the whole suite shares 2 cores: a test slowed by its neighbours is not a failing test
    testTimeout: 30_000
  }
})
