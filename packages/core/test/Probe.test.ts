import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Probe } from "@ratelock/core"

describe("probe", () => {
  it.effect("works", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* Probe.one, 1)
    })
  )
})
