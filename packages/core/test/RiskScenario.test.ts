/**
 * Stress scenarios: the document an operator writes (one scenario or an array), its validation, risk.md's
 * defaults, and how a scenario moves the pairs it does not name.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { RiskScenario } from "@ratelock/core"

const issues = (input: unknown) => {
  const result = RiskScenario.validate(input)
  assert.isTrue(Result.isFailure(result), "expected the document to be refused")
  return (
    result as Result.Failure<unknown, ReadonlyArray<{ loc: ReadonlyArray<string | number>; type: string; msg: string }>>
  ).failure
}

const moves = (scenario: RiskScenario.Scenario) => Object.fromEntries(RiskScenario.pairMoves(scenario))

describe("RiskScenario", () => {
  it("the defaults are risk.md's, in its order, and read back as they are written", () => {
    assert.deepStrictEqual(
      RiskScenario.defaults.map((s) => s.name),
      [
        "brl_minus_15",
        "brl_plus_15",
        "ngn_devaluation_30",
        "usd_plus_10",
        "usd_minus_10",
        "eur_minus_10",
        "vol_plus_5",
        "crash_combo"
      ]
    )
    const written = RiskScenario.defaults.map((s) => RiskScenario.encode(s))
    assert.deepStrictEqual(Result.getOrThrow(RiskScenario.validate(written)), RiskScenario.defaults)
  })

  it("takes one scenario or an array; description, shocks and vol shift may be left out", () => {
    const one = Result.getOrThrow(RiskScenario.validate({ name: "brl_minus_30", spot_shocks: { "USD/BRL": "0.30" } }))
    assert.strictEqual(one.length, 1)
    assert.strictEqual(one[0]!.description, "")
    assert.strictEqual(RiskScenario.encode(one[0]!).vol_shift, "0")
    const many = Result.getOrThrow(
      RiskScenario.validateJson(
        JSON.stringify([
          { name: "a", vol_shift: "0.1" },
          { name: "b", description: "calm" }
        ])
      )
    )
    assert.deepStrictEqual(
      many.map((s) => [s.name, s.description]),
      [
        ["a", ""],
        ["b", "calm"]
      ]
    )
  })

  it("refuses a bad document whole, every failure with its place", () => {
    const refused = issues([
      { name: "ok", spot_shocks: { "BRL/USD": "0.1", "USD/BRL": "-1" }, vol_shift: "2" },
      { name: "Not Snake", spot_shocks: { "USD/JPY": "1e-3" }, color: "red" }
    ])
    const byLoc = Object.fromEntries(refused.map((i) => [i.loc.join("."), i.type]))
    assert.deepStrictEqual(byLoc, {
      "0.spot_shocks.USD/BRL": "spot_shock_out_of_range",
      "0.vol_shift": "vol_shift_out_of_range",
      "1.name": "string_pattern_mismatch",
      "1.spot_shocks.USD/JPY": "decimal_parsing",
      "1.color": "extra_forbidden"
    })
    // a pair named the wrong way round is told which way it goes
    const inverse = issues({ name: "x", spot_shocks: { "BRL/USD": "0.1" } })
    assert.deepStrictEqual(inverse, [
      {
        loc: ["spot_shocks", "BRL/USD"],
        msg: "BRL/USD is not in its usual order: shock USD/BRL instead",
        type: "unknown_pair"
      }
    ])
    assert.strictEqual(issues({ name: "x", spot_shocks: { "USD/JPY": "0.1" } })[0]!.type, "unknown_pair")
    assert.deepStrictEqual(
      issues([{ name: "same" }, { name: "same" }]).map((i) => [i.loc, i.type]),
      [[[1, "name"], "duplicate_name"]]
    )
    assert.strictEqual(issues([])[0]!.type, "too_short")
    assert.strictEqual(issues("brl_minus_15")[0]!.type, "dict_type")
    const notJson = RiskScenario.validateJson("{name:")
    assert.isTrue(Result.isFailure(notJson) && notJson.failure[0]!.type === "json_invalid")
  })

  it("an operator scenario named as a default replaces it in place; the others follow the defaults", () => {
    const [mine, other] = Result.getOrThrow(
      RiskScenario.validate([
        { name: "other", vol_shift: "0.2" },
        { name: "brl_minus_15", spot_shocks: { "USD/BRL": "0.25" } }
      ])
    ).toReversed()
    const all = RiskScenario.withDefaults([other!, mine!])
    assert.strictEqual(all.length, RiskScenario.defaults.length + 1)
    assert.strictEqual(all[0], mine)
    assert.strictEqual(all[all.length - 1], other)
  })

  it("named pairs move by their shock; others with the cross two named pairs imply, or not at all", () => {
    const [brlMinus, brlPlus, ngn, usdPlus, , eurMinus, vol] = RiskScenario.defaults
    const m = moves(brlMinus!)
    assert.strictEqual(m["USD/BRL"]!.spotFactor, 1.15)
    assert.strictEqual(m["EUR/BRL"]!.spotFactor, 1.15)
    assert.strictEqual(m["USD/MXN"]!.spotFactor, 1)
    assert.strictEqual(m["BRL/MXN"]!.spotFactor, 1 / 1.15) // risk.md's −13 %: BRL/MXN = USD/MXN ÷ USD/BRL
    assert.strictEqual(m["EUR/USD"]!.spotFactor, 1) // EUR/BRL ÷ USD/BRL
    assert.strictEqual(m["USD/NGN"]!.spotFactor, 1) // NGN is linked to nothing named
    assert.closeTo(moves(brlPlus!)["BRL/MXN"]!.spotFactor, 1 / 0.85, 1e-15)
    assert.deepStrictEqual(
      Object.entries(moves(ngn!)).filter(([, move]) => move.spotFactor !== 1),
      [["USD/NGN", { spotFactor: 1.3, volShift: 0 }]]
    )
    assert.strictEqual(moves(usdPlus!)["EUR/BRL"]!.spotFactor, 1)
    assert.closeTo(moves(usdPlus!)["EUR/USD"]!.spotFactor, 1 / 1.1, 1e-10)
    assert.strictEqual(moves(eurMinus!)["USD/BRL"]!.spotFactor, 1) // (1/0.9) ÷ (1/0.9)
    assert.isTrue(Object.values(moves(vol!)).every((move) => move.spotFactor === 1 && move.volShift === 0.05))
    // through USD: EUR/BRL = EUR/USD × USD/BRL
    const custom = Result.getOrThrow(
      RiskScenario.validate({ name: "c", spot_shocks: { "EUR/USD": "0.1", "USD/BRL": "0.1" } })
    )[0]!
    assert.closeTo(moves(custom)["EUR/BRL"]!.spotFactor, 1.21, 1e-15)
    assert.strictEqual(moves(custom)["BRL/MXN"]!.spotFactor, 1) // MXN is linked to nothing named
  })
})
