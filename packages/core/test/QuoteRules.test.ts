/**
 * Quote request rules beyond the schema (partner-api.md "POST /api/v1/fx/quotes" and "Limits",
 * api-decisions.md "Quotes"): window order and limits, market-rate age, custom strike without
 * `target_strike`, notional currency outside the direction. All at a fixed `now` with the default
 * policy.
 */
import { assert, describe, it } from "@effect/vitest"
import { ApiError, Corridor, QuotePolicy, QuoteRequest, QuoteRules, RequestDecoding } from "@ratelock/core"
import { DateTime, Duration, Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as wire from "./fixtures/wire.ts"

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

const now = DateTime.makeUnsafe(wire.NOW_MS)
/** `now` shifted by `ms`. */
const at = (ms: number) => DateTime.makeUnsafe(wire.NOW_MS + ms)

const base: QuoteRequest.QuoteRequest = Schema.decodeUnknownSync(QuoteRequest.QuoteRequest)(
  wire.quoteRequest,
  RequestDecoding.parseOptions
)

const request = (patch: Partial<QuoteRequest.QuoteRequest>): QuoteRequest.QuoteRequest => ({ ...base, ...patch })

/** A request whose window is `[now + startMs, now + endMs]`. */
const windowed = (startMs: number, endMs: number) => request({ window_start: at(startMs), window_end: at(endMs) })

const withoutTargetStrike = (r: QuoteRequest.QuoteRequest): QuoteRequest.QuoteRequest => {
  const { target_strike: _dropped, ...rest } = r
  return rest
}

const violations = (r: QuoteRequest.QuoteRequest, policy: QuotePolicy.QuotePolicyShape = QuotePolicy.defaults) =>
  QuoteRules.violations(r, now, policy)

/** The `loc` of each violation, as `body.field`. */
const locs = (r: QuoteRequest.QuoteRequest, policy?: QuotePolicy.QuotePolicyShape) =>
  violations(r, policy).map((v) => v.loc.join("."))

const expectValid = (r: QuoteRequest.QuoteRequest, label: string) =>
  assert.deepStrictEqual(violations(r), [], `${label} should be valid`)

/** Exactly the given fields are reported, each as a `validation_error` item with a message. */
const expectViolations = (r: QuoteRequest.QuoteRequest, fields: ReadonlyArray<string>, label: string) => {
  const found = violations(r)
  assert.deepStrictEqual(
    [...new Set(found.map((v) => v.loc.join(".")))].sort(),
    fields.map((f) => `body.${f}`).sort(),
    label
  )
  for (const v of found) {
    assert.strictEqual(v.type, "validation_error")
    assert.strictEqual(v.loc[0], "body")
    assert.isAbove(v.msg.length, 0)
  }
}

describe("QuoteRules.violations", () => {
  it("the example request is valid at now", () => {
    assert.deepStrictEqual(violations(base), [])
  })

  describe("window order", () => {
    it("window_end equal to window_start gives one validation_error item on body.window_end", () => {
      const same = at(2 * HOUR)
      const found = violations(request({ window_start: same, window_end: same }))
      assert.strictEqual(found.length, 1)
      const item = found[0]
      assert.isDefined(item)
      if (item !== undefined) {
        assert.deepStrictEqual(item.loc, ["body", "window_end"])
        assert.strictEqual(item.type, "validation_error")
        assert.isString(item.msg)
      }
    })

    it("window_end before window_start is rejected on window_end", () => {
      expectViolations(windowed(3 * HOUR, 2 * HOUR), ["window_end"], "end before start")
    })

    it("window_end 1 ms after window_start is accepted", () => {
      expectValid(windowed(2 * HOUR, 2 * HOUR + 1), "1 ms window")
    })
  })

  describe("window_end at least 1 hour after now", () => {
    it("exactly now + 1 h is accepted", () => expectValid(windowed(0, HOUR), "end = now + 1h"))

    it("less than now + 1 h is rejected", () => {
      expectViolations(windowed(0, HOUR - 1), ["window_end"], "end = now + 1h - 1ms")
      expectViolations(windowed(0, 30 * MINUTE), ["window_end"], "end = now + 30 min")
    })

    it("a window entirely in the past is rejected on both ends", () => {
      expectViolations(windowed(-2 * DAY, -DAY), ["window_start", "window_end"], "past window")
    })
  })

  describe("180-day horizon", () => {
    it("window_end exactly 180 days ahead is accepted", () => expectValid(windowed(DAY, 180 * DAY), "end = 180 d"))

    it("window_end beyond 180 days is rejected", () => {
      expectViolations(windowed(DAY, 180 * DAY + 1), ["window_end"], "end = 180 d + 1 ms")
      expectViolations(windowed(DAY, 365 * DAY), ["window_end"], "end = 1 year")
    })

    it("window_start exactly 180 days ahead is accepted when window_end is within the horizon too", () => {
      // the window must end within 180 days and after its start: a start at the horizon leaves no room
      expectValid(windowed(180 * DAY - HOUR, 180 * DAY), "start = 180 d - 1 h")
      assert.deepStrictEqual(locs(windowed(180 * DAY, 180 * DAY + HOUR)), ["body.window_end"])
    })

    it("window_start beyond 180 days is rejected", () => {
      expectViolations(windowed(180 * DAY + SECOND, 181 * DAY), ["window_start", "window_end"], "start = 180 d + 1 s")
      assert.isTrue(locs(windowed(200 * DAY, 201 * DAY)).includes("body.window_start"))
    })
  })

  describe("window_start not in the past (5 minutes of latency allowed)", () => {
    it("window_start at now is accepted", () => expectValid(windowed(0, DAY), "start = now"))

    it("window_start up to 5 minutes in the past is accepted", () => {
      expectValid(windowed(-MINUTE, DAY), "start = now - 1 min")
      expectValid(windowed(-5 * MINUTE, DAY), "start = now - 5 min")
    })

    it("window_start more than 5 minutes in the past is rejected", () => {
      expectViolations(windowed(-5 * MINUTE - SECOND, DAY), ["window_start"], "start = now - 5 min 1 s")
      expectViolations(windowed(-DAY, DAY), ["window_start"], "start = yesterday")
    })
  })

  describe("market_rate_timestamp within 300 seconds of the request", () => {
    const stamped = (ms: number) => request({ market_rate_timestamp: at(ms) })

    it("299 s and 300 s old are accepted; now is accepted", () => {
      expectValid(stamped(-299 * SECOND), "299 s old")
      expectValid(stamped(-300 * SECOND), "300 s old")
      expectValid(stamped(0), "fresh")
    })

    it("older than 300 s is rejected", () => {
      expectViolations(stamped(-301 * SECOND), ["market_rate_timestamp"], "301 s old")
      expectViolations(stamped(-300 * SECOND - 1), ["market_rate_timestamp"], "300 s + 1 ms old")
      expectViolations(stamped(-HOUR), ["market_rate_timestamp"], "1 h old")
    })

    it("in the future: up to 300 s is accepted, beyond is rejected", () => {
      expectValid(stamped(299 * SECOND), "299 s ahead")
      expectViolations(stamped(301 * SECOND), ["market_rate_timestamp"], "301 s ahead")
      expectViolations(stamped(DAY), ["market_rate_timestamp"], "1 day ahead")
    })

    it("the age limit comes from the policy", () => {
      const strict = { ...QuotePolicy.defaults, maxRateAge: Duration.seconds(60) }
      assert.deepStrictEqual(locs(stamped(-61 * SECOND), strict), ["body.market_rate_timestamp"])
      assert.deepStrictEqual(locs(stamped(-59 * SECOND), strict), [])
    })
  })

  describe("strike_mode custom requires target_strike", () => {
    it("custom without target_strike is rejected", () => {
      expectViolations(withoutTargetStrike(request({ strike_mode: "custom" })), ["target_strike"], "missing")
    })

    it("custom with a null target_strike is rejected", () => {
      expectViolations(request({ strike_mode: "custom", target_strike: null }), ["target_strike"], "null")
    })

    it("custom with target_strike is accepted", () => expectValid(request({ strike_mode: "custom" }), "custom"))

    it("other modes need no target_strike (and ignore one)", () => {
      expectValid(withoutTargetStrike(request({ strike_mode: "cip_fair" })), "cip_fair without")
      expectValid(withoutTargetStrike(request({ strike_mode: "live_spot" })), "live_spot without")
      expectValid(request({ strike_mode: "live_spot", target_strike: null }), "live_spot null")
      expectValid(request({ strike_mode: "cip_fair" }), "cip_fair with a target_strike")
      const { strike_mode: _mode, ...noMode } = withoutTargetStrike(base)
      expectValid(noMode, "strike_mode omitted (cip_fair)")
    })
  })

  describe("notional_currency must be a side of the direction", () => {
    it("EUR on USD_TO_BRL is rejected", () => {
      expectViolations(
        request({ direction: "USD_TO_BRL", notional_currency: "EUR" }),
        ["notional_currency"],
        "EUR on USD_TO_BRL"
      )
    })

    it("either side of every direction is accepted, any other currency is rejected", () => {
      for (const direction of Corridor.directions) {
        for (const currency of Corridor.NotionalCurrency.literals) {
          const r = request({ direction, notional_currency: currency })
          const sides = direction.split("_TO_")
          if (sides.includes(currency)) expectValid(r, `${currency} on ${direction}`)
          else expectViolations(r, ["notional_currency"], `${currency} on ${direction}`)
        }
      }
    })
  })

  it("several violations are all reported together", () => {
    const r = withoutTargetStrike(
      request({
        window_start: at(30 * MINUTE),
        window_end: at(30 * MINUTE), // equal to start, and less than 1 h from now
        market_rate_timestamp: at(-10 * MINUTE),
        strike_mode: "custom",
        direction: "USD_TO_BRL",
        notional_currency: "MXN"
      })
    )
    const found = violations(r)
    expectViolations(r, ["window_end", "market_rate_timestamp", "target_strike", "notional_currency"], "many")
    // window_end breaks two rules: after window_start, and at least 1 h from now
    assert.strictEqual(found.filter((v) => v.loc[1] === "window_end").length, 2)
    assert.strictEqual(found.length, 5)
  })

  it("every rule at once: past start, stale rate, missing strike, foreign currency, end too far", () => {
    const r = request({
      window_start: at(-HOUR),
      window_end: at(200 * DAY),
      market_rate_timestamp: at(-HOUR),
      strike_mode: "custom",
      target_strike: null,
      direction: "NGN_TO_USD",
      notional_currency: "EUR"
    })
    expectViolations(
      r,
      ["window_start", "window_end", "market_rate_timestamp", "target_strike", "notional_currency"],
      "every rule"
    )
  })
})

describe("QuoteRules.check", () => {
  it.effect("succeeds for a valid request at the clock's time", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(wire.NOW_MS)
      yield* QuoteRules.check(base)
    })
  )

  it.effect("fails with a ValidationError listing every violation", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(wire.NOW_MS)
      const bad = request({
        window_start: at(2 * HOUR),
        window_end: at(2 * HOUR),
        notional_currency: "EUR",
        strike_mode: "custom",
        target_strike: null
      })
      const error = yield* Effect.flip(QuoteRules.check(bad))
      assert.instanceOf(error, ApiError.ValidationError)
      assert.strictEqual(error._tag, "ValidationError")
      assert.strictEqual(error.code, "validation_error")
      assert.deepStrictEqual(error.detail, QuoteRules.violations(bad, now, QuotePolicy.defaults))
      assert.deepStrictEqual(error.detail.map((d) => [d.loc.join("."), d.type]).sort(), [
        ["body.notional_currency", "validation_error"],
        ["body.target_strike", "validation_error"],
        ["body.window_end", "validation_error"]
      ])
      assert.include(error.message, "3")

      // the 422 body carries the same items
      const body = ApiError.toBody(error)
      assert.strictEqual(body.error.code, "validation_error")
      assert.deepStrictEqual(body.detail, error.detail)
    })
  )

  it.effect("reads now from the Clock: the same request goes stale as time passes", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(wire.NOW_MS)
      yield* QuoteRules.check(base)

      // 10 s old at NOW; 301 s old after 291 s more
      yield* TestClock.adjust(Duration.seconds(291))
      const error = yield* Effect.flip(QuoteRules.check(base))
      assert.deepStrictEqual(
        error.detail.map((d) => d.loc),
        [["body", "market_rate_timestamp"]]
      )
    })
  )

  it.effect("a clock set far in the future makes the window too close and the rate stale", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse(wire.quoteRequest.window_end) - 30 * MINUTE)
      const error = yield* Effect.flip(QuoteRules.check(base))
      assert.deepStrictEqual(error.detail.map((d) => d.loc.join(".")).sort(), [
        "body.market_rate_timestamp",
        "body.window_end",
        "body.window_start"
      ])
    })
  )

  it.effect("uses the QuotePolicy from the context", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(wire.NOW_MS)
      const strict = { ...QuotePolicy.defaults, maxRateAge: Duration.seconds(5) }
      const error = yield* Effect.flip(
        QuoteRules.check(base).pipe(Effect.provideService(QuotePolicy.QuotePolicy, strict))
      )
      assert.deepStrictEqual(
        error.detail.map((d) => d.loc),
        [["body", "market_rate_timestamp"]]
      )
    })
  )
})
