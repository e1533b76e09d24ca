/**
 * Global setup of `pnpm test`: the embedded database template (`@ratelock/test-support/PgliteTemplate`) made
 * once, before the test files start, rather than by the first few files at once, each making its own.
 */
import * as PgliteTemplate from "../packages/test-support/src/PgliteTemplate.ts"

export default function setup() {
  PgliteTemplate.dump()
}
