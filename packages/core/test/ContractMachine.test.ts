import { assert, describe, it } from "@effect/vitest"
import { Contract, ContractMachine, type InboundEvent, Money, OutboundEvent } from "@ratelock/core"
import { type DateTime, Result, Schema } from "effect"
import {
  CONTRACT_ID,
  exercise as defaultExercise,
  exercisedAt,
  forward,
  inStatus,
  option,
  shift,
  t,
  windowEnd,
  windowStart
} from "./fixtures/contract.ts"

type ContractRecord = Contract.ContractRecord
type ContractStatus = Contract.ContractStatus
type Command = ContractMachine.Command
type CommandTag = ContractMachine.CommandTag
type Draft = OutboundEvent.OutboundEventDraft

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

const fundsInRoute = (overrides: Partial<InboundEvent.FundsInRoute> = {}, at = t("2026-01-01T00:05:00Z")): Command => ({
  _tag: "FundsInRouteReported",
  event: { event_type: "funds_in_route", fx_contract_id: CONTRACT_ID, ...overrides },
  at
})

const fundingObserved = (amount: string, at = t("2026-01-01T00:20:00Z")): Command => ({
  _tag: "FundingObserved",
  amount: Money.unsafe(amount),
  transactionHash: "5xFundingTxHash",
  blockNumber: 312_456_789,
  at
})

const fundingDeadlinePassed = (at = t("2026-01-01T01:00:00Z")): Command => ({ _tag: "FundingDeadlinePassed", at })

const exercised = (
  overrides: Partial<InboundEvent.ContractExercised> = {},
  at = t("2026-01-15T12:00:05Z")
): Command => ({
  _tag: "ExerciseReported",
  event: {
    event_type: "contract_exercised",
    fx_contract_id: CONTRACT_ID,
    executed_at: exercisedAt,
    live_execution_rate: Money.unsafe("5.1234"),
    payout_wallet_address: "CustomerPayoutWa11et",
    chain: "solana",
    ...overrides
  },
  at
})

const payoutSettled = (
  overrides: Partial<Extract<Command, { _tag: "PayoutSettled" }>> = {}
): Extract<Command, { _tag: "PayoutSettled" }> => ({
  _tag: "PayoutSettled",
  amount: Money.unsafe("622.633407"),
  fxDeltaInQuoteCurrency: Money.unsafe("3190.0000"),
  transactionHash: "5xPayoutTxHash",
  blockNumber: 312_999_001,
  at: t("2026-01-15T12:03:00Z"),
  ...overrides
})

const payoutFailed = (nextRetryAt: DateTime.Utc | null, at = t("2026-01-15T12:02:00Z")): Command => ({
  _tag: "PayoutFailed",
  amount: Money.unsafe("622.633407"),
  failureCode: "rpc_unavailable",
  failureMessage: "the RPC node did not answer",
  nextRetryAt,
  at
})

const windowEnded = (at = shift(windowEnd, 1_000)): Command => ({ _tag: "WindowEnded", at })

/** One valid-looking command of each tag for `contract` (the full amount due when funding). */
const commandOf = (tag: CommandTag, contract: ContractRecord): Command => {
  switch (tag) {
    case "FundsInRouteReported":
      return fundsInRoute()
    case "FundingObserved":
      return fundingObserved(Money.format(contract.totalAmount))
    case "FundingDeadlinePassed":
      return fundingDeadlinePassed()
    case "ExerciseReported":
      return exercised()
    case "PayoutSettled":
      return payoutSettled()
    case "PayoutFailed":
      return payoutFailed(t("2026-01-15T12:03:00Z"))
    case "WindowEnded":
      return windowEnded()
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const run = (contract: ContractRecord, command: Command): ContractMachine.Transition => {
  const result = ContractMachine.transition(contract, command)
  if (Result.isFailure(result)) {
    assert.fail(`expected ${command._tag} to be accepted in ${contract.status}, got ${result.failure._tag}`)
  }
  return result.success
}

const refusal = (contract: ContractRecord, command: Command) => {
  const result = ContractMachine.transition(contract, command)
  if (Result.isSuccess(result)) {
    assert.fail(`expected ${command._tag} to be refused in ${contract.status}, got ${result.success.contract.status}`)
  }
  return result.failure
}

const assertRefused = (contract: ContractRecord, command: Command, tag: string) =>
  assert.strictEqual(refusal(contract, command)._tag, tag)

/** Narrows an emitted draft to one event type. */
const eventOf = <T extends Draft["event_type"]>(
  transition: ContractMachine.Transition,
  type: T
): Extract<Draft, { event_type: T }> => {
  const event = transition.event
  if (event === null || event.event_type !== type) {
    assert.fail(`expected a ${type} event, got ${event === null ? "none" : event.event_type}`)
  }
  return event as Extract<Draft, { event_type: T }>
}

const assertDecimal = (actual: Money.Decimal, expected: string) =>
  assert.isTrue(Money.equals(actual, Money.unsafe(expected)), `${Money.format(actual)} != ${expected}`)

const assertSameInstant = (actual: DateTime.Utc | null, expected: DateTime.Utc) => {
  assert.isNotNull(actual)
  if (actual !== null) assert.strictEqual(actual.epochMilliseconds, expected.epochMilliseconds)
}

/** Completes a draft the way the outbox does and encodes it with the wire schema. */
const encodeDraft = (transition: ContractMachine.Transition) => {
  const draft = transition.event
  assert.isNotNull(draft)
  if (draft === null) throw new Error("no event")
  const event: OutboundEvent.OutboundEvent = {
    ...draft,
    event_id: "evt_0001",
    sequence: transition.contract.eventSequence,
    delivered_at: t("2026-02-01T00:00:00Z")
  }
  const encoded = Schema.encodeSync(OutboundEvent.OutboundEvent)(event)
  // and it reads back as the same event type
  const decoded = Schema.decodeUnknownSync(OutboundEvent.OutboundEvent)(JSON.parse(JSON.stringify(encoded)))
  assert.strictEqual(decoded.event_type, draft.event_type)
  return encoded as Record<string, unknown> & { readonly [K: string]: unknown }
}

// ---------------------------------------------------------------------------------------------
// 1. The state × command matrix (api-decisions.md "Contracts and lifecycle" + project decisions)
// ---------------------------------------------------------------------------------------------

interface Allowed {
  readonly status: ContractStatus
  readonly event: OutboundEvent.OutboundEventType | null
}
type Cell = "refused" | Allowed | { readonly option: Allowed; readonly forward: Allowed }

const refused = "refused" as const
const to = (status: ContractStatus, event: OutboundEvent.OutboundEventType | null = null): Allowed => ({
  status,
  event
})

const allStatuses: ReadonlyArray<ContractStatus> = [
  "quote_created",
  "funds_in_route",
  "active",
  "exercised",
  "settled",
  "expired",
  "failed",
  "defaulted",
  "deposit_forfeited"
]

const allTags: ReadonlyArray<CommandTag> = [
  "FundsInRouteReported",
  "FundingObserved",
  "FundingDeadlinePassed",
  "ExerciseReported",
  "PayoutSettled",
  "PayoutFailed",
  "WindowEnded"
]

const allRefused: Record<CommandTag, Cell> = {
  FundsInRouteReported: refused,
  FundingObserved: refused,
  FundingDeadlinePassed: refused,
  ExerciseReported: refused,
  PayoutSettled: refused,
  PayoutFailed: refused,
  WindowEnded: refused
}

/**
 * The expected lifecycle table. FundingObserved carries the full amount due; FundingDeadlinePassed
 * hits a contract with nothing funded (the partial cases are tested below).
 */
const table: Record<ContractStatus, Record<CommandTag, Cell>> = {
  quote_created: {
    FundsInRouteReported: to("funds_in_route"),
    FundingObserved: to("active", "funds_received"),
    FundingDeadlinePassed: to("failed"),
    ExerciseReported: refused,
    PayoutSettled: refused,
    PayoutFailed: refused,
    WindowEnded: refused
  },
  funds_in_route: {
    FundsInRouteReported: to("funds_in_route"),
    FundingObserved: to("active", "funds_received"),
    FundingDeadlinePassed: to("failed"),
    ExerciseReported: refused,
    PayoutSettled: refused,
    PayoutFailed: refused,
    WindowEnded: refused
  },
  active: {
    FundsInRouteReported: refused,
    FundingObserved: refused,
    FundingDeadlinePassed: refused,
    ExerciseReported: to("exercised"),
    PayoutSettled: refused,
    PayoutFailed: refused,
    WindowEnded: {
      option: to("expired", "contract_expired"),
      forward: to("deposit_forfeited", "contract_expired")
    }
  },
  exercised: {
    FundsInRouteReported: refused,
    FundingObserved: refused,
    FundingDeadlinePassed: refused,
    ExerciseReported: refused,
    PayoutSettled: to("settled", "payout_settled"),
    PayoutFailed: to("exercised", "payout_failed"),
    WindowEnded: refused
  },
  settled: allRefused,
  expired: allRefused,
  failed: allRefused,
  defaulted: allRefused,
  deposit_forfeited: allRefused
}

const expectedCell = (cell: Cell, type: "option" | "forward"): "refused" | Allowed =>
  cell === "refused" ? cell : "status" in cell ? cell : cell[type]

describe("ContractMachine", () => {
  describe("state × command matrix", () => {
    it("covers every status and every command", () => {
      assert.deepStrictEqual([...allStatuses].sort(), [...Contract.ContractStatus.literals].sort())
      assert.deepStrictEqual(Object.keys(table).sort(), [...allStatuses].sort())
      for (const status of allStatuses) assert.deepStrictEqual(Object.keys(table[status]).sort(), [...allTags].sort())
    })

    for (const type of ["option", "forward"] as const) {
      for (const status of allStatuses) {
        for (const tag of allTags) {
          const expected = expectedCell(table[status][tag], type)
          const title =
            expected === "refused"
              ? `${type} ${status} × ${tag} → InvalidContractState`
              : `${type} ${status} × ${tag} → ${expected.status} (${expected.event ?? "no event"})`
          it(title, () => {
            const contract = inStatus(status, type === "option" ? option() : forward())
            const before = { ...contract }
            const historyBefore = [...contract.history]
            const command = commandOf(tag, contract)
            const result = ContractMachine.transition(contract, command)
            if (expected === "refused") {
              if (Result.isSuccess(result)) assert.fail(`accepted, moved to ${result.success.contract.status}`)
              assert.strictEqual(result.failure._tag, "InvalidContractState")
              assert.strictEqual(result.failure.code, "invalid_contract_state")
              // the message reaches partners: it never names an internal command
              for (const internal of allTags) assert.notInclude(result.failure.message, internal)
            } else {
              if (Result.isFailure(result)) assert.fail(`refused with ${result.failure._tag}`)
              const { contract: next, entry, event } = result.success
              assert.strictEqual(next.status, expected.status)
              assert.strictEqual(event === null ? null : event.event_type, expected.event)
              if (event !== null) assert.strictEqual(event.fx_contract_id, contract.id)
              // one history entry appended, with the new status and the command's time
              assert.strictEqual(next.history.length, contract.history.length + 1)
              assert.deepStrictEqual(next.history.slice(0, -1), contract.history)
              assert.deepStrictEqual(next.history[next.history.length - 1], entry)
              assert.strictEqual(entry.status, expected.status)
              assert.strictEqual(entry.at.epochMilliseconds, command.at.epochMilliseconds)
              assert.isString(entry.cause)
              // the sequence advances with (and only with) an emitted event
              assert.strictEqual(next.eventSequence, contract.eventSequence + (expected.event === null ? 0 : 1))
            }
            // the input is never mutated
            for (const key of Object.keys(before) as Array<keyof ContractRecord>) {
              assert.strictEqual(contract[key], before[key], key)
            }
            assert.deepStrictEqual(contract.history, historyBefore)
          })
        }
      }
    }

    it("lists the terminal statuses", () => {
      assert.deepStrictEqual(
        [...ContractMachine.terminal].sort(),
        ["defaulted", "deposit_forfeited", "expired", "failed", "settled"].sort()
      )
    })
  })

  // -------------------------------------------------------------------------------------------
  // funds_in_route
  // -------------------------------------------------------------------------------------------

  describe("funds_in_route", () => {
    for (const status of ["quote_created", "funds_in_route"] as const) {
      it(`accepts matching chain and currency in ${status}`, () => {
        const next = run(
          inStatus(status),
          fundsInRoute({ chain: "solana", currency: "USDC", amount: Money.unsafe("105") })
        )
        assert.strictEqual(next.contract.status, "funds_in_route")
        assert.isNull(next.event)
      })

      it(`refuses another chain with ContractMismatch in ${status}`, () => {
        assertRefused(inStatus(status), fundsInRoute({ chain: "polygon" }), "ContractMismatch")
      })

      it(`refuses another currency with ContractMismatch in ${status}`, () => {
        assertRefused(inStatus(status), fundsInRoute({ currency: "USDT" }), "ContractMismatch")
        assertRefused(inStatus(status), fundsInRoute({ currency: "BRLA" }), "ContractMismatch")
      })
    }

    it("accepts null chain, currency, amount and payment_type", () => {
      const next = run(option(), fundsInRoute({ chain: null, currency: null, amount: null, payment_type: null }))
      assert.strictEqual(next.contract.status, "funds_in_route")
    })

    it("refuses a zero amount", () => {
      assertRefused(option(), fundsInRoute({ amount: Money.unsafe("0") }), "FundingAmountInvalid")
      assertRefused(option(), fundsInRoute({ amount: Money.unsafe("0.000000") }), "FundingAmountInvalid")
    })

    it("refuses a negative amount", () => {
      assertRefused(option(), fundsInRoute({ amount: Money.unsafe("-1") }), "FundingAmountInvalid")
      assertRefused(option(), fundsInRoute({ amount: Money.unsafe("-0.000001") }), "FundingAmountInvalid")
    })

    it("refuses an amount above the total due, accepts exactly the total", () => {
      assertRefused(option(), fundsInRoute({ amount: Money.unsafe("105.000001") }), "FundingAmountInvalid")
      assertRefused(forward(), fundsInRoute({ amount: Money.unsafe("552.500001") }), "FundingAmountInvalid")
      assert.strictEqual(run(option(), fundsInRoute({ amount: Money.unsafe("105") })).contract.status, "funds_in_route")
      assert.strictEqual(
        run(forward(), fundsInRoute({ amount: Money.unsafe("552.500000") })).contract.status,
        "funds_in_route"
      )
    })

    it("measures what is due after partial funding", () => {
      const partlyFunded = option({ status: "funds_in_route", fundedAmount: Money.unsafe("30") })
      assertRefused(partlyFunded, fundsInRoute({ amount: Money.unsafe("75.000001") }), "FundingAmountInvalid")
      assert.strictEqual(
        run(partlyFunded, fundsInRoute({ amount: Money.unsafe("75") })).contract.status,
        "funds_in_route"
      )
    })

    it("bounds a premium payment by the premium and a deposit payment by the deposit (forward)", () => {
      const c = forward()
      assertRefused(
        c,
        fundsInRoute({ payment_type: "premium", amount: Money.unsafe("52.500001") }),
        "FundingAmountInvalid"
      )
      assertRefused(
        c,
        fundsInRoute({ payment_type: "deposit", amount: Money.unsafe("500.000001") }),
        "FundingAmountInvalid"
      )
      const premium = run(c, fundsInRoute({ payment_type: "premium", amount: Money.unsafe("52.5") }))
      assert.strictEqual(premium.contract.status, "funds_in_route")
      // premium and deposit notified separately: a second funds_in_route is accepted
      const deposit = run(premium.contract, fundsInRoute({ payment_type: "deposit", amount: Money.unsafe("500") }))
      assert.strictEqual(deposit.contract.status, "funds_in_route")
      assert.strictEqual(deposit.contract.history.length, c.history.length + 2)
    })

    it("refuses payment_type deposit on an option", () => {
      assertRefused(option(), fundsInRoute({ payment_type: "deposit" }), "FundingAmountInvalid")
      assertRefused(
        option(),
        fundsInRoute({ payment_type: "deposit", amount: Money.unsafe("1") }),
        "FundingAmountInvalid"
      )
    })
  })

  // -------------------------------------------------------------------------------------------
  // Funding observed on-chain and the funding deadline
  // -------------------------------------------------------------------------------------------

  describe("funding", () => {
    for (const status of ["quote_created", "funds_in_route"] as const) {
      it(`a partial payment in ${status} keeps the status, emits nothing and adds up`, () => {
        const contract = inStatus(status)
        const first = run(contract, fundingObserved("40"))
        assert.strictEqual(first.contract.status, status)
        assert.isNull(first.event)
        assertDecimal(first.contract.fundedAmount, "40")
        assert.strictEqual(first.contract.eventSequence, contract.eventSequence)
        assert.strictEqual(first.contract.history.length, contract.history.length + 1)
        assert.strictEqual(first.entry.status, status)

        const second = run(first.contract, fundingObserved("64.999999"))
        assert.strictEqual(second.contract.status, status)
        assertDecimal(second.contract.fundedAmount, "104.999999")

        const third = run(second.contract, fundingObserved("0.000001", t("2026-01-01T00:40:00Z")))
        assert.strictEqual(third.contract.status, "active")
        assertDecimal(third.contract.fundedAmount, "105")
        assert.strictEqual(third.contract.eventSequence, contract.eventSequence + 1)
        const funds = eventOf(third, "funds_received").funds
        // the confirmed amount is everything funded, not just the last transfer
        assertDecimal(funds.amount, "105")
      })

      it(`the funding deadline in ${status} fails an unfunded contract`, () => {
        const next = run(inStatus(status), fundingDeadlinePassed())
        assert.strictEqual(next.contract.status, "failed")
        assert.isNull(next.event)
      })

      it(`the funding deadline in ${status} defaults a partly funded contract`, () => {
        const partly = run(inStatus(status), fundingObserved("10"))
        const next = run(partly.contract, fundingDeadlinePassed())
        assert.strictEqual(next.contract.status, "defaulted")
        assert.strictEqual(next.entry.status, "defaulted")
        assert.isNull(next.event)
        assertDecimal(next.contract.fundedAmount, "10")
        assert.strictEqual(next.contract.eventSequence, partly.contract.eventSequence)
      })
    }

    it("an overpayment activates too", () => {
      const next = run(option(), fundingObserved("200"))
      assert.strictEqual(next.contract.status, "active")
      assertDecimal(next.contract.fundedAmount, "200")
    })

    it("funds_received carries the confirmed amount, tx hash, block number and the contract's rail", () => {
      const at = t("2026-01-01T00:21:00Z")
      const next = run(forward(), fundingObserved("552.5", at))
      const event = eventOf(next, "funds_received")
      assert.strictEqual(event.fx_contract_id, CONTRACT_ID)
      assert.strictEqual(event.service_contract_reference, "RL-2026-000001")
      assert.strictEqual(event.contract_status, "active")
      assertDecimal(event.funds.amount, "552.5")
      assert.strictEqual(event.funds.transaction_hash, "5xFundingTxHash")
      assert.strictEqual(event.funds.block_number, 312_456_789)
      assert.strictEqual(event.funds.currency, "USDC")
      assert.strictEqual(event.funds.chain, "solana")
      assert.strictEqual(event.funds.funding_wallet_address, "FundingWa11et111111111111111111111111111111")
      assertSameInstant(event.funds.confirmed_at, at)

      const encoded = encodeDraft(next) as { funds: { amount: string; confirmed_at: string }; sequence: number }
      assert.strictEqual(encoded.funds.amount, "552.500000")
      assert.strictEqual(encoded.funds.confirmed_at, "2026-01-01T00:21:00.000Z")
      assert.strictEqual(encoded.sequence, 1)
    })
  })

  // -------------------------------------------------------------------------------------------
  // Exercise
  // -------------------------------------------------------------------------------------------

  describe("contract_exercised", () => {
    const active = (overrides: Partial<ContractRecord> = {}) => inStatus("active", option(overrides))

    it("records the exercise and emits nothing", () => {
      const next = run(active(), exercised())
      assert.strictEqual(next.contract.status, "exercised")
      assert.isNull(next.event)
      const ex = next.contract.exercise
      assert.isNotNull(ex)
      if (ex === null) return
      assertSameInstant(ex.executedAt, exercisedAt)
      assertDecimal(ex.liveExecutionRate, "5.1234")
      assert.strictEqual(ex.payoutWalletAddress, "CustomerPayoutWa11et")
      assert.strictEqual(ex.payoutCurrency, "USDC")
    })

    it("refuses another chain with ContractMismatch", () => {
      assertRefused(active(), exercised({ chain: "polygon" }), "ContractMismatch")
      assertRefused(active(), exercised({ chain: "ethereum" }), "ContractMismatch")
    })

    it("refuses payout_currency BRLA on a corridor without BRL", () => {
      assertRefused(active({ direction: "EUR_TO_USD" }), exercised({ payout_currency: "BRLA" }), "ContractMismatch")
      assertRefused(active({ direction: "USD_TO_MXN" }), exercised({ payout_currency: "BRLA" }), "ContractMismatch")
    })

    it("accepts payout_currency BRLA on USD_TO_BRL (and BRL_TO_USD)", () => {
      const next = run(active(), exercised({ payout_currency: "BRLA" }))
      assert.strictEqual(next.contract.status, "exercised")
      assert.strictEqual(next.contract.exercise?.payoutCurrency, "BRLA")
      const inverse = run(
        active({ direction: "BRL_TO_USD", lockedRate: Money.unsafe("0.1837") }),
        exercised({
          payout_currency: "BRLA",
          live_execution_rate: Money.unsafe("0.18")
        })
      )
      assert.strictEqual(inverse.contract.status, "exercised")
    })

    it("refuses payout_currency USDC on a USDT contract", () => {
      assertRefused(active({ settlementCurrency: "USDT" }), exercised({ payout_currency: "USDC" }), "ContractMismatch")
    })

    it("accepts an omitted payout_currency on a USDT contract (the settlement currency)", () => {
      const next = run(active({ settlementCurrency: "USDT" }), exercised())
      assert.strictEqual(next.contract.status, "exercised")
      assert.isNotNull(next.contract.exercise)
    })

    it("accepts payout_currency USDC on a USDC contract", () => {
      assert.strictEqual(run(active(), exercised({ payout_currency: "USDC" })).contract.status, "exercised")
    })

    it("refuses executed_at one millisecond outside the window with OutsideWindow", () => {
      assertRefused(active(), exercised({ executed_at: shift(windowStart, -1) }), "OutsideWindow")
      assertRefused(active(), exercised({ executed_at: shift(windowEnd, 1) }), "OutsideWindow")
    })

    it("accepts executed_at exactly at window_start and at window_end", () => {
      const atStart = run(active(), exercised({ executed_at: windowStart }))
      assert.strictEqual(atStart.contract.status, "exercised")
      assertSameInstant(atStart.contract.exercise?.executedAt ?? null, windowStart)
      const atEnd = run(active(), exercised({ executed_at: windowEnd }))
      assert.strictEqual(atEnd.contract.status, "exercised")
      assertSameInstant(atEnd.contract.exercise?.executedAt ?? null, windowEnd)
    })

    it("checks the state before the event's fields", () => {
      // an exercise after exercise is an invalid state even with a wrong chain
      assertRefused(inStatus("exercised"), exercised({ chain: "polygon" }), "InvalidContractState")
      assertRefused(inStatus("quote_created"), exercised({ executed_at: shift(windowEnd, 1) }), "InvalidContractState")
    })
  })

  // -------------------------------------------------------------------------------------------
  // Payout
  // -------------------------------------------------------------------------------------------

  describe("payout", () => {
    it("payout_settled carries the payout and the fx delta snapshot", () => {
      const contract = inStatus("exercised")
      const command = payoutSettled()
      const next = run(contract, command)
      assert.strictEqual(next.contract.status, "settled")
      const event = eventOf(next, "payout_settled")
      assert.strictEqual(event.fx_contract_id, CONTRACT_ID)
      assert.strictEqual(event.service_contract_reference, "RL-2026-000001")
      assert.strictEqual(event.partner_transaction_reference, "partner-tx-7")
      assert.strictEqual(event.payout.status, "settled")
      assertDecimal(event.payout.amount, "622.633407")
      assert.strictEqual(event.payout.currency, "USDC")
      assert.strictEqual(event.payout.chain, "solana")
      assert.strictEqual(event.payout.destination_wallet_address, defaultExercise.payoutWalletAddress)
      assert.strictEqual(event.payout.transaction_hash, "5xPayoutTxHash")
      assert.strictEqual(event.payout.block_number, 312_999_001)
      assertSameInstant(event.payout.settled_at, command.at)
      const snapshot = event.contract
      assert.isDefined(snapshot)
      if (snapshot === undefined) return
      assertDecimal(snapshot.locked_rate, "5.4424")
      assertDecimal(snapshot.live_execution_rate, "5.1234")
      assertDecimal(snapshot.notional_amount, "10000")
      assertDecimal(snapshot.fx_delta_in_quote_currency, "3190")

      const encoded = encodeDraft(next) as {
        payout: { amount: string }
        contract: { fx_delta_in_quote_currency: string; locked_rate: string }
        sequence: number
      }
      assert.strictEqual(encoded.payout.amount, "622.633407")
      assert.strictEqual(encoded.contract.fx_delta_in_quote_currency, "3190.0000")
      assert.strictEqual(encoded.contract.locked_rate, "5.4424")
      assert.strictEqual(encoded.sequence, 2)
    })

    it("a zero payout settles with a null hash and block", () => {
      const next = run(
        inStatus("exercised"),
        payoutSettled({
          amount: Money.unsafe("0.000000"),
          fxDeltaInQuoteCurrency: Money.zero,
          transactionHash: null,
          blockNumber: null
        })
      )
      assert.strictEqual(next.contract.status, "settled")
      const event = eventOf(next, "payout_settled")
      assert.strictEqual(Money.format(event.payout.amount), "0.000000")
      assert.isNull(event.payout.transaction_hash)
      assert.isNull(event.payout.block_number)
      assertDecimal(event.contract?.fx_delta_in_quote_currency ?? Money.one, "0")
      const encoded = encodeDraft(next) as {
        payout: { amount: string; transaction_hash: unknown; block_number: unknown }
      }
      assert.strictEqual(encoded.payout.amount, "0.000000")
      assert.isNull(encoded.payout.transaction_hash)
      assert.isNull(encoded.payout.block_number)
    })

    it("payout_failed keeps the contract exercised and will retry when a retry is scheduled", () => {
      const contract = inStatus("exercised")
      const retryAt = t("2026-01-15T12:07:00Z")
      const next = run(contract, payoutFailed(retryAt))
      assert.strictEqual(next.contract.status, "exercised")
      assert.strictEqual(next.entry.status, "exercised")
      assert.strictEqual(next.contract.eventSequence, contract.eventSequence + 1)
      assert.deepStrictEqual(next.contract.exercise, contract.exercise)
      const event = eventOf(next, "payout_failed")
      assert.strictEqual(event.fx_contract_id, CONTRACT_ID)
      assert.strictEqual(event.payout.status, "failed")
      assert.strictEqual(event.payout.failure_code, "rpc_unavailable")
      assert.strictEqual(event.payout.failure_message, "the RPC node did not answer")
      assert.isTrue(event.payout.will_retry)
      assertSameInstant(event.payout.next_retry_at, retryAt)
      assert.strictEqual(event.payout.destination_wallet_address, defaultExercise.payoutWalletAddress)
      assertDecimal(event.payout.amount, "622.633407")
      assert.strictEqual(event.payout.currency, "USDC")
      assert.strictEqual(event.payout.chain, "solana")
      encodeDraft(next)
    })

    it("payout_failed without a next retry will not retry", () => {
      const next = run(inStatus("exercised"), payoutFailed(null))
      const event = eventOf(next, "payout_failed")
      assert.isFalse(event.payout.will_retry)
      assert.isNull(event.payout.next_retry_at)
      const encoded = encodeDraft(next) as { payout: { will_retry: boolean; next_retry_at: unknown } }
      assert.isFalse(encoded.payout.will_retry)
      assert.isNull(encoded.payout.next_retry_at)
    })

    it("failures then a success: each event takes the next sequence", () => {
      const start = inStatus("exercised")
      const f1 = run(start, payoutFailed(t("2026-01-15T12:03:00Z"), t("2026-01-15T12:02:00Z")))
      const f2 = run(f1.contract, payoutFailed(t("2026-01-15T12:08:00Z"), t("2026-01-15T12:03:00Z")))
      const ok = run(f2.contract, payoutSettled({ at: t("2026-01-15T12:08:30Z") }))
      assert.deepStrictEqual(
        [f1, f2, ok].map((x) => x.contract.eventSequence),
        [start.eventSequence + 1, start.eventSequence + 2, start.eventSequence + 3]
      )
      assert.deepStrictEqual(
        ok.contract.history.slice(start.history.length).map((h) => h.status),
        ["exercised", "exercised", "settled"]
      )
    })
  })

  // -------------------------------------------------------------------------------------------
  // Window end
  // -------------------------------------------------------------------------------------------

  describe("window end", () => {
    it("an option expires with deposit_outcome null", () => {
      const at = shift(windowEnd, 1_000)
      const next = run(inStatus("active", option()), windowEnded(at))
      assert.strictEqual(next.contract.status, "expired")
      const event = eventOf(next, "contract_expired")
      assert.strictEqual(event.fx_contract_id, CONTRACT_ID)
      assert.strictEqual(event.service_contract_reference, "RL-2026-000001")
      assert.strictEqual(event.partner_transaction_reference, "partner-tx-7")
      assert.strictEqual(event.contract.contract_type, "option")
      assertSameInstant(event.contract.expired_at, windowEnd)
      assert.isNull(event.deposit_outcome)
      const encoded = encodeDraft(next) as { deposit_outcome: unknown; contract: { expired_at: string } }
      assert.isNull(encoded.deposit_outcome)
      assert.strictEqual(encoded.contract.expired_at, "2026-01-20T00:00:00.000Z")
    })

    it("a forward forfeits its deposit", () => {
      const at = shift(windowEnd, 1_000)
      const next = run(inStatus("active", forward()), windowEnded(at))
      assert.strictEqual(next.contract.status, "deposit_forfeited")
      const event = eventOf(next, "contract_expired")
      assert.strictEqual(event.contract.contract_type, "forward")
      const outcome = event.deposit_outcome
      assert.isNotNull(outcome)
      if (outcome === null) return
      assert.strictEqual(outcome.status, "forfeited")
      assertDecimal(outcome.amount, "500")
      assert.strictEqual(outcome.currency, "USDC")
      assert.strictEqual(outcome.chain, "solana")
      assertSameInstant(outcome.forfeited_at, at)
      const encoded = encodeDraft(next) as { deposit_outcome: { amount: string; status: string } }
      assert.strictEqual(encoded.deposit_outcome.amount, "500.000000")
      assert.strictEqual(encoded.deposit_outcome.status, "forfeited")
    })
  })

  // -------------------------------------------------------------------------------------------
  // A whole lifecycle, and every draft it emits encodes
  // -------------------------------------------------------------------------------------------

  it("runs a full lifecycle; every emitted draft encodes with the wire schema", () => {
    let contract = forward({ settlementCurrency: "USDT", chain: "ethereum" })
    const steps: ReadonlyArray<Command> = [
      fundsInRoute({ payment_type: "premium", amount: Money.unsafe("52.5"), chain: "ethereum", currency: "USDT" }),
      fundsInRoute({ payment_type: "deposit", amount: Money.unsafe("500"), chain: "ethereum", currency: "USDT" }),
      fundingObserved("52.5"),
      fundingObserved("500"),
      exercised({ chain: "ethereum" }),
      payoutFailed(t("2026-01-15T12:03:00Z")),
      payoutSettled()
    ]
    const statuses: Array<ContractStatus> = []
    const sequences: Array<number> = []
    for (const step of steps) {
      const next = run(contract, step)
      statuses.push(next.contract.status)
      if (next.event !== null) {
        const encoded = encodeDraft(next) as { sequence: number; event_type: string }
        sequences.push(encoded.sequence)
        assert.strictEqual(next.event.fx_contract_id, CONTRACT_ID)
      }
      contract = next.contract
    }
    assert.deepStrictEqual(statuses, [
      "funds_in_route",
      "funds_in_route",
      "funds_in_route",
      "active",
      "exercised",
      "exercised",
      "settled"
    ])
    assert.deepStrictEqual(sequences, [1, 2, 3])
    assert.strictEqual(contract.history.length, 1 + steps.length)
  })
})
