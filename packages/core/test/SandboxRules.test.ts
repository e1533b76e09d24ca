import { assert, describe, it } from "@effect/vitest"
import { Money, SandboxRules } from "@ratelock/core"
import { Effect } from "effect"
import { option } from "./fixtures/contract.ts"

const d = Money.unsafe

describe("SandboxRules", () => {
  it("still due: the total less the larger of what was sent and what was confirmed, never below zero", () => {
    const contract = option({ fundedAmount: d("40") })
    assert.strictEqual(Money.format(SandboxRules.stillDue(contract, d("0"))), "65.000000")
    assert.strictEqual(Money.format(SandboxRules.stillDue(contract, d("100"))), "5.000000")
    assert.isTrue(Money.isZero(SandboxRules.stillDue(contract, d("200"))))
  })

  it.effect("only a contract awaiting funds can be funded", () =>
    Effect.gen(function* () {
      yield* SandboxRules.requireFundable(option({ status: "funds_in_route" }))
      const refused = yield* Effect.flip(SandboxRules.requireFundable(option({ status: "active" })))
      assert.strictEqual(refused._tag, "InvalidContractState")
      assert.match(refused.message, /is active: only a contract awaiting funds can be funded/)
    })
  )

  it.effect("the amount: the one asked for, else what is due; above zero, whole token units", () =>
    Effect.gen(function* () {
      const contract = option()
      assert.strictEqual(Money.format(yield* SandboxRules.fundingAmount(contract, { asked: d("1.5") })), "1.5")
      assert.strictEqual(Money.format(yield* SandboxRules.fundingAmount(contract, { due: d("105") })), "105")
      const nothingDue = yield* Effect.flip(SandboxRules.fundingAmount(contract, { due: Money.zero }))
      assert.match(nothingDue.message, /^nothing is due: 105\.000000 was already sent/)
      const zero = yield* Effect.flip(SandboxRules.fundingAmount(contract, { asked: d("0") }))
      assert.match(zero.message, /must be above 0/)
      const tooFine = yield* Effect.flip(SandboxRules.fundingAmount(contract, { asked: d("1.0000001") }))
      assert.match(tooFine.message, /has more than 6 decimals/)
    })
  )

  it.effect("a payout can be made to fail only while one may still come", () =>
    Effect.gen(function* () {
      for (const status of ["quote_created", "funds_in_route", "active", "exercised"] as const) {
        yield* SandboxRules.requirePayoutToCome(option({ status }))
      }
      for (const status of ["settled", "expired", "failed", "defaulted", "deposit_forfeited"] as const) {
        const refused = yield* Effect.flip(SandboxRules.requirePayoutToCome(option({ status })))
        assert.match(refused.message, /it has no payout to come/)
      }
    })
  )

  it("an inbound funds_in_route sends its amount rounded down to token units, if above zero", () => {
    assert.strictEqual(Money.format(SandboxRules.inboundTransfer(d("10.1234567"))!), "10.123456")
    assert.isUndefined(SandboxRules.inboundTransfer(d("0.0000004")))
  })
})
