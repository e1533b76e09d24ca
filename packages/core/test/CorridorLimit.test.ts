import { assert, describe, it } from "@effect/vitest"
import { CorridorLimit, CorridorLimits, Money } from "@ratelock/core"
import { Option } from "effect"

const corridor = (patch: Partial<CorridorLimit.CorridorLimit>): CorridorLimit.CorridorLimit => ({
  ...CorridorLimit.unset("production", "USD_TO_BRL"),
  ...patch
})

const shown = (c: CorridorLimit.CorridorLimit) =>
  CorridorLimit.usage(c).map((u) => [u.limit, Option.getOrNull(Option.map(u.ratio, Money.format))])

describe("CorridorLimit.usage", () => {
  it("has nothing to show for a corridor without capacity limits, whatever it holds", () => {
    assert.deepStrictEqual(
      shown(corridor({ openNotional: Money.unsafe("5000"), maxLockNotional: Money.unsafe("10") })),
      []
    )
  })

  it("is what the locks hold over each limit set, open notional first, rounded up to 4 decimals", () => {
    const c = corridor({
      openNotional: Money.unsafe("100000"),
      maxOpenNotional: Money.unsafe("300000"),
      maxNetDelta: Money.unsafe("125000")
    })
    // 1/3 shows as 0.3334, never as less than is held
    assert.deepStrictEqual(shown(c), [
      ["max_open_notional", "0.3334"],
      ["max_net_delta", "0.8000"]
    ])
    assert.deepStrictEqual(CorridorLimits.listing(c).usage, [
      { limit: "max_open_notional", amount: "300000", held: "100000", ratio: "0.3334" },
      { limit: "max_net_delta", amount: "125000", held: "100000", ratio: "0.8000" }
    ])
  })

  it("goes above 1 when a limit was lowered below what is held, and has no ratio for a limit of 0", () => {
    const c = corridor({
      openNotional: Money.unsafe("150"),
      maxOpenNotional: Money.unsafe("100"),
      maxNetDelta: Money.zero
    })
    assert.deepStrictEqual(shown(c), [
      ["max_open_notional", "1.5000"],
      ["max_net_delta", null]
    ])
    assert.strictEqual(CorridorLimits.listing(c).usage[1]!.ratio, null)
  })
})
