import { defineProject } from "vitest/config"
import { workers } from "../../vitest.shared.ts"

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "testkit",
    ...workers,
    include: ["test/**/*.test.ts"],
    // the whole suite shares 2 cores: a test slowed by its neighbours is not a failing test
    testTimeout: 30_000
  }
})
