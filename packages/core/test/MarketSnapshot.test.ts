/**
 * The market snapshot document (market-data.md): the example validates, every validation rule refuses a
 * document that breaks it at that rule's path with its type, every failure is reported together, the canonical
 * hash identifies the data, and the committed JSON Schema is the one the schema derives.
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { type ApiError, MarketData, MarketSnapshot, Money, RateCurve } from "@ratelock/core"
import { DateTime, Effect, Exit, Option, Result } from "effect"
import { TestClock } from "effect/testing"
import { Digest } from "effect/crypto"
import fc from "fast-check"
import { exampleDocument, exampleNow, schemaPath, validDocument } from "./fixtures/marketSnapshot.ts"

type Loc = ReadonlyArray<string | number>

const validate = (document: unknown, now = exampleNow) => MarketSnapshot.validate(document, { now })

const issuesOf = (document: unknown, now = exampleNow): ReadonlyArray<ApiError.ValidationIssue> => {
  const result = validate(document, now)
  assert.isTrue(Result.isFailure(result), "the document should be refused")
  return Result.isFailure(result) ? result.failure : []
}

/** `loc` and `type` of each issue, in a stable order (messages are for people). */
const located = (issues: ReadonlyArray<ApiError.ValidationIssue>) =>
  issues.map(({ loc, type }) => `${JSON.stringify(loc)} ${type}`).sort()

const expected = (items: ReadonlyArray<readonly [Loc, string]>) =>
  items.map(([loc, type]) => `${JSON.stringify(loc)} ${type}`).sort()

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")
const hashOf = (snapshot: MarketSnapshot.MarketSnapshot) =>
  Effect.runPromise(Effect.provide(MarketSnapshot.hash(snapshot), Digest.layerWebCrypto))

const valid = (document: unknown, now = exampleNow): MarketSnapshot.MarketSnapshot => {
  const result = validate(document, now)
  if (Result.isFailure(result)) assert.fail(JSON.stringify(result.failure, null, 2))
  return (result as Result.Success<MarketSnapshot.MarketSnapshot, never>).success
}

// biome-ignore lint/suspicious/noExplicitAny: tests break documents in every way JSON allows
type Breaker = (document: any) => void

/** One document per rule of market-data.md's Validation section (and the document's own shape). */
const refusals: ReadonlyArray<readonly [string, Breaker, ReadonlyArray<readonly [Loc, string]>]> = [
  // every number parses
  [
    "a rate that is not a decimal string",
    (d) => {
      d.rates.USD.points[2].rate = "3.62%"
    },
    [[["rates", "USD", "points", 2, "rate"], "decimal_parsing"]]
  ],
  [
    "a spot in exponent notation",
    (d) => {
      d.spot["USD/MXN"] = "1.8375e1"
    },
    [[["spot", "USD/MXN"], "decimal_parsing"]]
  ],
  [
    "a risk reversal with a plus sign",
    (d) => {
      d.vols["EUR/USD"][3].rr25 = "+0.0025"
    },
    [[["vols", "EUR/USD", 3, "rr25"], "decimal_parsing"]]
  ],
  [
    "a rate written as a JSON number",
    (d) => {
      d.rates.MXN.points[0].rate = 0.07
    },
    [[["rates", "MXN", "points", 0, "rate"], "string_type"]]
  ],
  [
    "a tenor that is not a whole number of days",
    (d) => {
      d.rates.BRL.points[1].tenor_days = 7.5
    },
    [[["rates", "BRL", "points", 1, "tenor_days"], "int_parsing"]]
  ],
  [
    "an as_of that is not a date-time",
    (d) => {
      d.as_of = "2026-03-02 20:00"
    },
    [[["as_of"], "datetime_parsing"]]
  ],
  [
    "a holiday that is not a real date",
    (d) => {
      d.holidays.BRL[0] = "2026-02-29"
    },
    [[["holidays", "BRL", 0], "date_parsing"]]
  ],
  // rates in [-0.05, 1.0]
  [
    "a rate above 1.0",
    (d) => {
      d.rates.NGN.points[0].rate = "1.01"
    },
    [[["rates", "NGN", "points", 0, "rate"], "rate_out_of_range"]]
  ],
  [
    "a rate below -0.05",
    (d) => {
      d.rates.EUR.points[0].rate = "-0.0501"
    },
    [[["rates", "EUR", "points", 0, "rate"], "rate_out_of_range"]]
  ],
  [
    "a rate with no positive discount factor at its tenor",
    (d) => {
      d.rates.EUR.points[14] = { tenor_days: 36_500, rate: "-0.05" }
    },
    [[["rates", "EUR", "points", 14, "rate"], "discount_factor_not_positive"]]
  ],
  // spot > 0
  [
    "a spot of 0",
    (d) => {
      d.spot["USD/BRL"] = "0"
    },
    [[["spot", "USD/BRL"], "spot_not_positive"]]
  ],
  [
    "a negative spot",
    (d) => {
      d.spot["EUR/USD"] = "-1.165"
    },
    [[["spot", "EUR/USD"], "spot_not_positive"]]
  ],
  // tenors strictly increasing and > 0
  [
    "a curve tenor of 0",
    (d) => {
      d.rates.USD.points[0].tenor_days = 0
    },
    [[["rates", "USD", "points", 0, "tenor_days"], "tenor_not_positive"]]
  ],
  [
    "a negative smile tenor",
    (d) => {
      d.vols["USD/BRL"][0].tenor_days = -1
    },
    [[["vols", "USD/BRL", 0, "tenor_days"], "tenor_not_positive"]]
  ],
  [
    "a tenor beyond 100 years",
    (d) => {
      d.rates.USD.points[14].tenor_days = 36_501
    },
    [[["rates", "USD", "points", 14, "tenor_days"], "tenor_too_long"]]
  ],
  [
    "a curve tenor repeated",
    (d) => {
      d.rates.MXN.points[5].tenor_days = 61
    },
    [[["rates", "MXN", "points", 5, "tenor_days"], "tenors_not_increasing"]]
  ],
  [
    "smile tenors out of order",
    (d) => {
      d.vols["USD/NGN"][2].tenor_days = 5
    },
    [[["vols", "USD/NGN", 2, "tenor_days"], "tenors_not_increasing"]]
  ],
  // every smile vol (all three points, every pillar) in (0.001, 2.0]
  [
    "a smile of 0.001 (the bound is excluded)",
    (d) => {
      d.vols["EUR/USD"][0] = { tenor_days: 1, atm: "0.001", rr25: "0", bf25: "0" }
    },
    [
      [["vols", "EUR/USD", 0, "atm"], "vol_out_of_range"],
      [["vols", "EUR/USD", 0], "vol_out_of_range"],
      [["vols", "EUR/USD", 0], "vol_out_of_range"]
    ]
  ],
  [
    "a 25-delta put vol below 0 (risk reversal too large)",
    (d) => {
      d.vols["USD/BRL"][8].rr25 = "0.35"
    },
    [[["vols", "USD/BRL", 8], "vol_out_of_range"]]
  ],
  [
    "a 25-delta call vol above 2.0",
    (d) => {
      d.vols["EUR/USD"][5].rr25 = "0.02"
      d.vols["EUR/USD"][5].bf25 = "1.92"
    },
    [[["vols", "EUR/USD", 5], "vol_out_of_range"]]
  ],
  // ATM total variance non-decreasing in tenor
  [
    "ATM total variance falling (calendar arbitrage)",
    (d) => {
      d.vols["EUR/BRL"][6].atm = "0.11"
    },
    [[["vols", "EUR/BRL", 6, "atm"], "calendar_arbitrage"]]
  ],
  // every currency of every corridor served has a curve, every pair a spot and at least one vol pillar
  [
    "no NGN curve",
    (d) => {
      delete d.rates.NGN
    },
    [[["rates", "NGN"], "missing_curve"]]
  ],
  [
    "a curve with no point",
    (d) => {
      d.rates.EUR.points = []
    },
    [[["rates", "EUR", "points"], "no_pillars"]]
  ],
  [
    "no EUR/BRL spot",
    (d) => {
      delete d.spot["EUR/BRL"]
    },
    [[["spot", "EUR/BRL"], "missing_spot"]]
  ],
  [
    "no BRL/MXN vols",
    (d) => {
      delete d.vols["BRL/MXN"]
    },
    [[["vols", "BRL/MXN"], "missing_vols"]]
  ],
  [
    "BRL/MXN vols with no pillar",
    (d) => {
      d.vols["BRL/MXN"] = []
    },
    [[["vols", "BRL/MXN"], "no_pillars"]]
  ],
  // as_of not in the future beyond 60 s of skew
  [
    "an as_of 61 s ahead of the clock",
    (d) => {
      d.as_of = new Date(exampleNow + 61_000).toISOString()
    },
    [[["as_of"], "as_of_in_future"]]
  ],
  // the document's own shape
  [
    "a misspelt field (rr25 must not silently default to 0)",
    (d) => {
      d.vols["USD/BRL"][0].rr_25 = d.vols["USD/BRL"][0].rr25
      delete d.vols["USD/BRL"][0].rr25
    },
    [[["vols", "USD/BRL", 0, "rr_25"], "extra_forbidden"]]
  ],
  [
    "a currency key that is not a currency code",
    (d) => {
      d.rates.usd = d.rates.USD
    },
    [[["rates", "usd"], "extra_forbidden"]]
  ],
  [
    "an unknown convention",
    (d) => {
      d.rates.USD.convention = "30/360"
    },
    [[["rates", "USD", "convention"], "enum"]]
  ],
  [
    "no source",
    (d) => {
      delete d.source
    },
    [[["source"], "missing"]]
  ]
]

describe("MarketSnapshot", () => {
  describe("validate", () => {
    it("accepts the repository's example snapshot (6 pairs × 12 pillars, 5 curves × 15 pillars)", () => {
      const snapshot = valid(exampleDocument())
      assert.deepStrictEqual(Object.keys(snapshot.rates).sort(), ["BRL", "EUR", "MXN", "NGN", "USD"])
      for (const pair of MarketSnapshot.servedPairs) assert.strictEqual(snapshot.vols[pair]!.length, 12)
      for (const currency of MarketSnapshot.servedCurrencies)
        assert.strictEqual(snapshot.rates[currency]!.points.length, 15)
    })

    for (const [rule, breakIt, items] of refusals) {
      it(`refuses ${rule}, at its path`, () => {
        const document = exampleDocument()
        breakIt(document)
        assert.deepStrictEqual(located(issuesOf(document)), expected(items))
      })
    }

    it("names every issue type of the rules it checks", () => {
      const types = new Set(refusals.flatMap(([, , items]) => items.map(([, type]) => type)))
      const ruleTypes: ReadonlyArray<MarketSnapshot.IssueType> = [
        "decimal_parsing",
        "datetime_parsing",
        "date_parsing",
        "int_parsing",
        "rate_out_of_range",
        "discount_factor_not_positive",
        "spot_not_positive",
        "tenor_not_positive",
        "tenor_too_long",
        "tenors_not_increasing",
        "no_pillars",
        "vol_out_of_range",
        "calendar_arbitrage",
        "missing_curve",
        "missing_spot",
        "missing_vols",
        "as_of_in_future"
      ]
      for (const type of ruleTypes) assert.isTrue(types.has(type), `no refused document for ${type}`)
    })

    it("says what is wrong in each message", () => {
      const document = exampleDocument()
      document.rates.NGN.points[0].rate = "1.01"
      document.vols["EUR/BRL"][6].atm = "0.11"
      const messages = issuesOf(document).map((issue) => issue.msg)
      assert.include(messages, "rate 1.01 is outside [-0.05, 1.0]")
      assert.match(
        messages.find((m) => m.includes("calendar arbitrage"))!,
        /falls from .* at 91 days to .* at 182 days/
      )
    })

    it("reports every failure of a document together", () => {
      const document = exampleDocument()
      document.as_of = new Date(exampleNow + 3_600_000).toISOString()
      delete document.rates.NGN
      // in one curve: a number that does not parse, and tenors out of order after it
      document.rates.USD.points[2].rate = "abc"
      document.rates.USD.points[6].tenor_days = 30
      document.spot["USD/BRL"] = "0"
      document.vols["EUR/BRL"][6].atm = "0.11"
      document.vols["USD/MXN"][0].rr25 = "1.5"
      document.vols["BRL/MXN"][0].extra = "x"
      assert.deepStrictEqual(
        located(issuesOf(document)),
        expected([
          [["as_of"], "as_of_in_future"],
          [["rates", "NGN"], "missing_curve"],
          [["rates", "USD", "points", 2, "rate"], "decimal_parsing"],
          [["rates", "USD", "points", 6, "tenor_days"], "tenors_not_increasing"],
          [["spot", "USD/BRL"], "spot_not_positive"],
          [["vols", "EUR/BRL", 6, "atm"], "calendar_arbitrage"],
          [["vols", "USD/MXN", 0], "vol_out_of_range"],
          [["vols", "BRL/MXN", 0, "extra"], "extra_forbidden"]
        ])
      )
    })

    it("allows as_of up to 60 s ahead of the clock", () => {
      const document = exampleDocument()
      document.as_of = new Date(exampleNow + 60_000).toISOString()
      valid(document)
    })

    it("refuses what is not a document, and text that is not JSON", () => {
      assert.deepStrictEqual(located(issuesOf(null)), expected([[[], "dict_type"]]))
      assert.deepStrictEqual(located(issuesOf([])), expected([[[], "dict_type"]]))
      const text = MarketSnapshot.validateJson("{ not json", { now: exampleNow })
      assert.isTrue(Result.isFailure(text) && text.failure[0]!.type === "json_invalid")
      assert.isTrue(
        Result.isSuccess(MarketSnapshot.validateJson(JSON.stringify(exampleDocument()), { now: exampleNow }))
      )
    })

    it("decodes risk reversal and butterfly to 0 when absent, and holidays as a sorted set", () => {
      const document = exampleDocument()
      delete document.vols["USD/BRL"][0].rr25
      delete document.vols["USD/BRL"][0].bf25
      document.holidays.BRL = ["2026-12-25", "2026-01-01", "2026-12-25"]
      const snapshot = valid(document)
      assert.isTrue(Money.isZero(snapshot.vols["USD/BRL"]![0]!.rr25))
      assert.isTrue(Money.isZero(snapshot.vols["USD/BRL"]![0]!.bf25))
      assert.deepStrictEqual(snapshot.holidays.BRL, ["2026-01-01", "2026-12-25"])
      delete document.holidays
      assert.deepStrictEqual(valid(document).holidays, {})
    })

    it("accepts every document the test generator draws as valid", () => {
      fc.assert(
        fc.property(validDocument, (document) => {
          valid(document)
        }),
        { numRuns: 200 }
      )
    })

    it.effect("decode reads the clock and fails with the API's ValidationError", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(exampleNow)
        const snapshot = yield* MarketSnapshot.decode(exampleDocument())
        assert.strictEqual(snapshot.source, exampleDocument().source)
        yield* TestClock.setTime(Date.parse("2026-03-02T19:58:00Z"))
        const exit = yield* Effect.exit(MarketSnapshot.decode(exampleDocument()))
        assert.isTrue(Exit.isFailure(exit))
        const error = yield* Effect.flip(MarketSnapshot.decode(exampleDocument()))
        assert.strictEqual(error.code, "validation_error")
        assert.deepStrictEqual(located(error.detail), expected([[["as_of"], "as_of_in_future"]]))
      })
    )
  })

  describe("canonical JSON and hash", () => {
    it("hashes the canonical JSON with SHA-256", async () => {
      const snapshot = valid(exampleDocument())
      const canonical = MarketSnapshot.canonicalJson(snapshot)
      assert.strictEqual(await hashOf(snapshot), sha256(canonical))
      assert.match(await hashOf(snapshot), /^[0-9a-f]{64}$/)
      // no whitespace, keys sorted, defaults written out
      assert.isFalse(/\s(?=(?:[^"]*"[^"]*")*[^"]*$)/.test(canonical))
      assert.isTrue(canonical.startsWith('{"as_of":"2026-03-02T20:00:00.000Z","holidays":{"BRL":["2026-01-01",'))
    })

    it("gives the same hash to the same data however it is written", async () => {
      const original = exampleDocument()
      const rewritten = exampleDocument()
      rewritten.as_of = "2026-03-02T17:00:00-03:00"
      rewritten.spot["USD/BRL"] = "5.412000"
      rewritten.rates.USD.points[0].rate = "0.036500"
      rewritten.holidays.BRL = [...rewritten.holidays.BRL].reverse().concat(["2026-01-01"])
      rewritten.vols["EUR/USD"][0] = { bf25: "0.0012", rr25: "0.0015", atm: "0.069", tenor_days: 1 }
      const reordered = Object.fromEntries(Object.entries(rewritten).reverse())
      assert.strictEqual(await hashOf(valid(reordered)), await hashOf(valid(original)))

      const noDefaults = exampleDocument()
      noDefaults.vols["USD/BRL"][0].rr25 = "0"
      const omitted = exampleDocument()
      delete omitted.vols["USD/BRL"][0].rr25
      assert.strictEqual(await hashOf(valid(omitted)), await hashOf(valid(noDefaults)))
    })

    it("gives different data a different hash", async () => {
      const changed = exampleDocument()
      changed.vols["USD/BRL"][3].atm = "0.1451"
      assert.notStrictEqual(await hashOf(valid(changed)), await hashOf(valid(exampleDocument())))
    })

    it("round-trips: the canonical JSON validates to the same snapshot", () => {
      fc.assert(
        fc.property(validDocument, (document) => {
          const snapshot = valid(document)
          const again = valid(JSON.parse(MarketSnapshot.canonicalJson(snapshot)))
          assert.strictEqual(MarketSnapshot.canonicalJson(again), MarketSnapshot.canonicalJson(snapshot))
        }),
        { numRuns: 50 }
      )
    })
  })

  describe("reading", () => {
    it("gives mid rates as written, inverted, and 1 for a currency against itself", () => {
      const snapshot = valid(exampleDocument())
      const mid = (base: string, quote: string) => Option.getOrUndefined(MarketSnapshot.midRate(snapshot, base, quote))
      assert.isTrue(Money.equals(mid("USD", "BRL")!, Money.unsafe("5.412")))
      assert.isTrue(Money.equals(mid("BRL", "USD")!, Money.divide(Money.one, Money.unsafe("5.412"))))
      assert.isTrue(Money.equals(mid("EUR", "EUR")!, Money.one))
      assert.isUndefined(mid("EUR", "MXN"))
    })
  })

  describe("illustrative snapshot", () => {
    it("is pricing.md's table: MarketData.defaultTable's rates, conventions, references and vols", () => {
      const table = MarketData.defaultTable()
      const snapshot = MarketSnapshot.illustrative
      assert.strictEqual(snapshot.source, "illustrative defaults")
      for (const [currency, rate] of Object.entries(table.rates)) {
        const curve = snapshot.rates[currency]!
        assert.strictEqual(curve.points.length, 1)
        assert.strictEqual(Money.toModel(curve.points[0]!.rate), rate)
        const convention = RateCurve.conventions[currency as keyof typeof RateCurve.conventions]
        assert.strictEqual(
          curve.convention,
          convention._tag === "Business252" ? "BUS/252" : convention.basis === 360 ? "ACT/360" : "ACT/365"
        )
      }
      assert.deepStrictEqual(Object.keys(snapshot.rates).sort(), Object.keys(table.rates).sort())
      for (const [pair, entry] of Object.entries(table.pairs)) {
        assert.isTrue(Money.equals(snapshot.spot[pair]!, Money.unsafe(entry.reference)))
        const [pillar, ...rest] = snapshot.vols[pair]!
        assert.strictEqual(rest.length, 0)
        assert.strictEqual(Money.toModel(pillar!.atm), entry.volatility)
        assert.isTrue(Money.isZero(pillar!.rr25) && Money.isZero(pillar!.bf25))
      }
      assert.deepStrictEqual(Object.keys(snapshot.spot).sort(), Object.keys(table.pairs).sort())
    })

    it("is a valid snapshot, and can be observed at any instant", () => {
      valid(MarketSnapshot.illustrativeDocument, Date.parse("2026-01-01T00:00:00Z"))
      const at = DateTime.makeUnsafe("2026-07-01T12:00:00Z")
      assert.strictEqual(MarketSnapshot.illustrativeAt(at).as_of, at)
    })
  })

  describe("JSON Schema", () => {
    it("the committed docs/market/snapshot.schema.json is the one MarketSnapshot derives", () => {
      // regenerate with `pnpm --filter @ratelock/core snapshot-schema`, then `pnpm format`
      assert.deepStrictEqual(JSON.parse(readFileSync(schemaPath, "utf8")), MarketSnapshot.jsonSchema())
    })

    it("describes the document's shape: required fields, patterns, unknown fields refused", () => {
      const schema = MarketSnapshot.jsonSchema()
      assert.strictEqual(schema.$schema, "https://json-schema.org/draft/2020-12/schema")
      const root = (schema.$defs as Record<string, Record<string, unknown>>).MarketSnapshot!
      assert.deepStrictEqual(root.required, ["as_of", "source", "rates", "spot", "vols"])
      assert.strictEqual(root.additionalProperties, false)
    })
  })
})
