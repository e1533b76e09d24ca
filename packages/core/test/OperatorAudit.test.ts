/**
 * The audit log's rules that need no store: what of a value is written (exact decimals, instants,
 * never a secret however deep), the order of roles, and a token's lifetime as an operator writes it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Audit, Money, OperatorRole, OperatorTokens } from "@ratelock/core"
import { DateTime, Duration, Option } from "effect"

describe("Audit.recorded", () => {
  it("writes decimals exactly and instants in ISO", () => {
    assert.deepStrictEqual(
      Audit.recorded({ amount: Money.unsafe("1000.50"), at: DateTime.makeUnsafe("2026-12-02T10:00:00.000Z") }),
      { amount: "1000.50", at: "2026-12-02T10:00:00.000Z" }
    )
  })

  it("drops every secret and token, however deep, and keeps ids", () => {
    const written = Audit.recorded({
      partner_id: "p1",
      environments: {
        sandbox: { api_key_id: "k1", api_key_secret: "rlk_secret", webhook_secret: "whsec_x", webhook_url: "u" }
      },
      token_id: "t1",
      token: "rlop_secret",
      list: [{ secrets: ["a"], password: "p", name: "n" }]
    })
    assert.deepStrictEqual(written, {
      partner_id: "p1",
      environments: { sandbox: { api_key_id: "k1", webhook_url: "u" } },
      token_id: "t1",
      list: [{ name: "n" }]
    })
    assert.notInclude(JSON.stringify(written), "secret")
  })

  it("writes nothing for nothing", () => {
    assert.isNull(Audit.recorded(undefined))
    assert.isNull(Audit.recorded(null))
  })
})

describe("OperatorRole.allows", () => {
  it("each role holds the rights of those before it, and no more", () => {
    const roles = OperatorRole.roles
    for (const [i, held] of roles.entries()) {
      for (const [j, needed] of roles.entries()) {
        assert.strictEqual(OperatorRole.allows(held, needed), i >= j, `${held} for ${needed}`)
      }
    }
  })
})

describe("OperatorTokens.parseExpiresIn", () => {
  it("reads days, hours and minutes", () => {
    assert.deepStrictEqual(OperatorTokens.parseExpiresIn("30d"), Option.some(Duration.days(30)))
    assert.deepStrictEqual(OperatorTokens.parseExpiresIn("12h"), Option.some(Duration.hours(12)))
    assert.deepStrictEqual(OperatorTokens.parseExpiresIn(" 90m "), Option.some(Duration.minutes(90)))
  })

  it("refuses anything else, and more than ten years", () => {
    for (const text of ["", "0d", "30", "d", "1.5d", "-1d", "30 days", "1w", "3661d"]) {
      assert.isTrue(Option.isNone(OperatorTokens.parseExpiresIn(text)), text)
    }
  })
})
