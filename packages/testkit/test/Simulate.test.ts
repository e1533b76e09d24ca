/**
 * `Simulate`: a partner's quote request simulated on the snapshot the in-memory Ratelock prices from, its premium
 * the service's own; a backtest from a CSV's text; the engine's tagged errors.
 */
import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Effect } from "effect"
import { MarketSnapshot, Money } from "@ratelock/core"
import { LockSimulation, Ratelock, Requests, Scenario, Simulate } from "../src/index.ts"

describe("Simulate", () => {
  it.effect("lock: the in-memory service's premium, the same figures for the same seed", () =>
    Effect.gen(function* () {
      const request = yield* Requests.quote()
      const quoted = yield* Scenario.quote(request)
      const first = yield* Simulate.lock({ request, paths: 2000, seed: 7, exercise: { _tag: "uniform" } })
      assert.isTrue(BigDecimal.equals(first.premium, quoted.premium_amount))
      assert.strictEqual(first.paths, 2000)
      assert.strictEqual(first.marketWarning, null, "the illustrative snapshot observed now is fresh")
      assert.isAbove(first.probabilityOfPayout, 0)
      const again = yield* Simulate.lock({ request, paths: 2000, seed: 7, exercise: { _tag: "uniform" } })
      assert.deepStrictEqual(again, first)
      const refused = yield* Effect.flip(Simulate.lock({ request, paths: 0 }))
      assert.strictEqual(refused._tag, "SimulationRefused")
      const wrongSide = yield* Effect.flip(Simulate.lock({ request: { ...request, notional_currency: "EUR" } }))
      assert.deepStrictEqual(
        [wrongSide._tag, wrongSide.message],
        ["SimulationRefused", "notional_currency: notional_currency must be one of the currencies of USD_TO_BRL"]
      )
    }).pipe(Effect.provide(Ratelock.layer))
  )

  it.effect("backtest: a CSV's text, every lock; a gap is a SeriesError", () =>
    Effect.gen(function* () {
      const csv = ["date,rate", "2026-01-01,5.40", "2026-01-02,5.30", "2026-01-03,5.45", "2026-01-04,5.35"].join("\n")
      const input = {
        snapshot: MarketSnapshot.illustrative,
        template: {
          direction: "USD_TO_BRL",
          notionalCurrency: "USD",
          notionalAmount: Money.unsafe("10000"),
          contractType: "option",
          tenorDays: 2,
          strikeMode: "live_spot",
          settlementCurrency: "USDC"
        },
        everyDays: 1,
        exercise: "end"
      } as const
      const result = yield* Simulate.backtest({ ...input, csv })
      assert.deepStrictEqual(
        result.locks.map((l) => [l.start, l.exercisedOn]),
        [
          ["2026-01-01", "2026-01-03"],
          ["2026-01-02", "2026-01-04"]
        ]
      )
      assert.strictEqual(result.basis, LockSimulation.backtestBasis)
      const gap = yield* Effect.flip(Simulate.backtest({ ...input, csv: "2026-01-01,5.4\n2026-01-09,5.4" }))
      assert.strictEqual(gap._tag, "SeriesError")
    })
  )
})
