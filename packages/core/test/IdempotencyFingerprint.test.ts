import { createHash } from "node:crypto"
import { assert, describe, it, layer } from "@effect/vitest"
import { IdempotencyFingerprint } from "@ratelock/core"
import { Effect } from "effect"
import { Digest } from "effect/crypto"
import fc from "fast-check"

const { canonicalJson, fingerprint } = IdempotencyFingerprint
const canonical = (value: unknown) => Effect.runSync(canonicalJson(value))
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** Same value, object keys inserted in reverse order, recursively. */
const reverseKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reverseKeys)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, reverseKeys(v)])
        )
      : value

const json = fc.jsonValue({ noUnicodeString: false })
const runFingerprint = (request: IdempotencyFingerprint.Request) =>
  Effect.runPromise(Effect.provide(fingerprint(request), Digest.layerWebCrypto))

describe("canonicalJson", () => {
  it.effect("sorts keys recursively, keeps array order, prints no whitespace", () =>
    Effect.gen(function* () {
      const value = { b: 1, a: [3, { d: true, c: null }, "x"], "": { z: -0, y: 1e21, x: 0.1 } }
      assert.strictEqual(
        yield* canonicalJson(value),
        '{"":{"x":0.1,"y":1e+21,"z":0},"a":[3,{"c":null,"d":true},"x"],"b":1}'
      )
    })
  )

  it.effect("orders keys by code point, not UTF-16 code unit", () =>
    Effect.gen(function* () {
      // U+FFFF < U+10000 by code point, but "\uffff" > "\ud800\udc00" by code unit (JS default sort)
      const value = { "\u{10000}": 1, "\uffff": 2, é: 3, B: 4, a: 5 }
      assert.strictEqual(yield* canonicalJson(value), '{"B":4,"a":5,"é":3,"\uffff":2,"\u{10000}":1}')
    })
  )

  it.effect("escapes strings as JSON.stringify does (including lone surrogates)", () =>
    Effect.gen(function* () {
      const s = 'quote " backslash \\ newline \n tab \t nul \u0000 lone \ud800 emoji 😀'
      assert.strictEqual(yield* canonicalJson({ s }), `{"s":${JSON.stringify(s)}}`)
    })
  )

  it.effect("omits undefined members and honours toJSON", () =>
    Effect.gen(function* () {
      const at = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6))
      assert.strictEqual(
        yield* canonicalJson({ a: undefined, b: at, c: { d: undefined } }),
        '{"b":"2024-01-02T03:04:05.006Z","c":{}}'
      )
    })
  )

  it.effect("rejects values JSON cannot represent faithfully, with a path", () =>
    Effect.gen(function* () {
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      class Money {
        amount = 1
      }
      let deep: unknown = 1
      for (let i = 0; i < 300; i++) deep = [deep]
      const cases: Array<[unknown, string]> = [
        [undefined, "$"],
        [[1, undefined], "$[1]"],
        [{ a: [Number.NaN] }, "$.a[0]"],
        [{ a: Number.POSITIVE_INFINITY }, "$.a"],
        [{ a: 1n }, "$.a"],
        [{ a: () => 1 }, "$.a"],
        [{ a: Symbol("s") }, "$.a"],
        [{ a: new Map([["k", 1]]) }, "$.a"],
        [{ m: new Money() }, "$.m"],
        [cyclic, "$.self"]
      ]
      for (const [value, path] of cases) {
        const error = yield* Effect.flip(canonicalJson(value))
        assert.strictEqual(error._tag, "InvalidJsonValue")
        assert.strictEqual(error.path, path)
      }
      assert.strictEqual((yield* Effect.flip(canonicalJson(deep)))._tag, "InvalidJsonValue")
    })
  )

  it("for JSON values: parses back to the same value, ignores key order, is idempotent", () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = canonical(value)
        assert.deepStrictEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)))
        assert.strictEqual(canonical(reverseKeys(value)), text)
        assert.strictEqual(canonical(JSON.parse(text)), text)
        assert.notInclude(text, "\n")
      })
    )
  })
})

layer(Digest.layerWebCrypto)("fingerprint", (it) => {
  const body = { pair: { quote: "USD", base: "EUR" }, amount: "1000.00", tenorDays: 30 }

  it.effect("known answer: SHA-256 of method, route, newline, canonical JSON", () =>
    Effect.gen(function* () {
      const expected = "440ea0b1df4fd7732f8e0104a3d8941cdec9e4a15df2214488cd640b9eb4cf0b"
      const canonicalBody = '{"amount":"1000.00","pair":{"base":"EUR","quote":"USD"},"tenorDays":30}'
      assert.strictEqual(sha256(`POST /v1/locks\n${canonicalBody}`), expected)
      assert.strictEqual(yield* fingerprint({ method: "POST", route: "/v1/locks", body }), expected)
      assert.strictEqual(
        yield* fingerprint({ method: "POST", route: "/v1/locks", body: undefined }),
        "bc9cc200e67a52d1f48306deea322d24de791da6bf2966ac8c990d58c41af85b"
      )
    })
  )

  it.effect("key order does not matter; any value, nesting or route change does", () =>
    Effect.gen(function* () {
      const of = (route: string, b: unknown) => fingerprint({ method: "POST", route, body: b })
      const base = yield* of("/v1/locks", body)
      assert.strictEqual(yield* of("/v1/locks", reverseKeys(body)), base)
      assert.match(base, /^[0-9a-f]{64}$/)
      const variants: Array<[string, unknown]> = [
        ["/v1/locks/", body],
        ["/v1/quotes", body],
        ["/v1/locks", { ...body, amount: "1000.01" }],
        ["/v1/locks", { ...body, amount: 1000 }],
        ["/v1/locks", { ...body, tenorDays: "30" }],
        ["/v1/locks", { ...body, pair: { base: "USD", quote: "EUR" } }],
        ["/v1/locks", { ...body, pair: { base: "EUR", quote: "USD", extra: null } }],
        ["/v1/locks", { ...body, pair: ["EUR", "USD"] }],
        ["/v1/locks", [body]]
      ]
      for (const [route, b] of variants) assert.notStrictEqual(yield* of(route, b), base)
    })
  )

  it.effect("fails on non-JSON bodies", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(fingerprint({ method: "POST", route: "/v1/locks", body: { a: Number.NaN } }))
      assert.strictEqual(error._tag, "InvalidJsonValue")
    })
  )
})

describe("fingerprint properties", () => {
  it("is insensitive to key order, and sensitive to values, method and route", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), json, json, async (route, a, b) => {
        const fp = await runFingerprint({ method: "POST", route, body: { x: a } })
        assert.strictEqual(fp, sha256(`POST ${route}\n${canonical({ x: a })}`))
        assert.strictEqual(await runFingerprint({ method: "POST", route, body: reverseKeys({ x: a }) }), fp)
        assert.notStrictEqual(await runFingerprint({ method: "PUT", route, body: { x: a } }), fp)
        const other = await runFingerprint({ method: "POST", route, body: { x: b } })
        assert.strictEqual(other === fp, canonical(a) === canonical(b))
        assert.notStrictEqual(await runFingerprint({ method: "POST", route: route + "/", body: { x: a } }), fp)
      }),
      { numRuns: 50 }
    )
  })
})
