/**
 * The error table of api-decisions.md over real HTTP: every status a request can get before the
 * lifecycle worker runs, each with the `error: {code, message}` envelope (and `detail` on 422).
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import * as http from "node:http"
import { credentialHeaders, newKey, quoteBody, request } from "./support/http.ts"
import { activate, createContract, createQuote, exercise } from "./support/lifecycle.ts"
import { ChainHooks } from "./support/chain.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

type Detail = { loc: Array<string | number>; msg: string; type: string }
const locs = (detail: ReadonlyArray<Detail>) => detail.map((d) => `${d.loc.join(".")}:${d.type}`).sort()

layer(serverLayer({ quoteTtl: "1 second" }), { excludeTestServices: true, timeout: "60 seconds" })("errors", (it) => {
  describe("422 validation_error", () => {
    it.effect("a body with many faults reports each one, by field", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const body = yield* quoteBody({
          customer_reference_id: "",
          customer_name: "x".repeat(257),
          contract_type: "swap",
          notional_amount: "1,000",
          market_rate_timestamp: "yesterday",
          provider_rate: 5.4,
          unknown_field: true
        })
        const { chain: _, ...withoutChain } = body
        const reply = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", { key: a.sandbox, body: withoutChain })
        assert.strictEqual(reply.status, 422)
        assert.deepStrictEqual(reply.json.error, { code: "validation_error", message: "8 invalid fields" })
        assert.deepStrictEqual(locs(reply.json.detail), [
          "body.chain:missing",
          "body.contract_type:enum",
          "body.customer_name:string_too_long",
          "body.customer_reference_id:string_too_short",
          "body.market_rate_timestamp:datetime_parsing",
          "body.notional_amount:decimal_parsing",
          "body.provider_rate:string_type",
          "body.unknown_field:extra_forbidden"
        ])
        for (const item of reply.json.detail as Array<Detail>) assert.isString(item.msg)
      })
    )

    it.effect(
      "a decimal of the wrong sign: greater_than, greater_than_equal; a malformed one only decimal_parsing",
      () =>
        Effect.gen(function* () {
          const { baseUrl, a } = yield* TestServer
          const body = yield* quoteBody({
            notional_amount: "0.00",
            provider_rate: "-0",
            provider_extra_spread: "-0.01"
          })
          const reply = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", { key: a.sandbox, body })
          assert.deepStrictEqual(locs(reply.json.detail), [
            "body.notional_amount:greater_than",
            "body.provider_extra_spread:greater_than_equal",
            "body.provider_rate:greater_than"
          ])
          const zero = yield* quoteBody({ provider_extra_spread: "-0.000", market_rate: "5.4e0" })
          const malformed = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", { key: a.sandbox, body: zero })
          assert.deepStrictEqual(locs(malformed.json.detail), ["body.market_rate:decimal_parsing"])
        })
    )

    it.effect("the rules beyond the shape: window order, rate age, custom strike", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const now = yield* DateTime.now
        const start = DateTime.formatIso(DateTime.add(now, { days: 2 }))
        const body = yield* quoteBody({
          window_start: start,
          window_end: start,
          market_rate_timestamp: DateTime.formatIso(DateTime.subtract(now, { minutes: 10 })),
          strike_mode: "custom"
        })
        const reply = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", { key: a.sandbox, body })
        assert.strictEqual(reply.status, 422)
        assert.deepStrictEqual(locs(reply.json.detail), [
          "body.market_rate_timestamp:validation_error",
          "body.target_strike:validation_error",
          "body.window_end:validation_error"
        ])
      })
    )

    it.effect("query, path and header faults are rooted at query, path and header", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const query = yield* request(baseUrl, "GET", "/api/v1/fx/quotes?limit=0&status=open", { key: a.sandbox })
        assert.strictEqual(query.status, 422)
        assert.deepStrictEqual(locs(query.json.detail), ["query.limit:greater_than_equal", "query.status:enum"])
        const notInt = yield* request(baseUrl, "GET", "/api/v1/fx/webhook-events?limit=ten", { key: a.sandbox })
        assert.deepStrictEqual(locs(notInt.json.detail), ["query.limit:int_parsing"])
        const cursor = yield* request(baseUrl, "GET", "/api/v1/fx/quotes?cursor=not-a-cursor", { key: a.sandbox })
        assert.strictEqual(cursor.status, 422)
        assert.deepStrictEqual(cursor.json.detail[0].loc, ["query", "cursor"])
        const since = yield* request(baseUrl, "GET", "/api/v1/fx/payout-events?since=monday", { key: a.sandbox })
        assert.deepStrictEqual(locs(since.json.detail), ["query.since:datetime_parsing"])
        const path = yield* request(baseUrl, "GET", "/api/v1/fx/quotes/not-a-uuid", { key: a.sandbox })
        assert.strictEqual(path.status, 422)
        assert.deepStrictEqual(locs(path.json.detail), ["path.quote_id:uuid_parsing"])
        const longest = yield* request(baseUrl, "GET", `/api/v1/fx/customers/${"c".repeat(256)}/locks`, {
          key: a.sandbox
        })
        assert.deepStrictEqual([longest.status, longest.json.items], [200, []])
        const tooLong = yield* request(baseUrl, "GET", `/api/v1/fx/customers/${"c".repeat(257)}/locks`, {
          key: a.sandbox
        })
        assert.deepStrictEqual(locs(tooLong.json.detail), ["path.customer_reference_id:string_too_long"])
        const header = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", {
          key: a.sandbox,
          headers: { "Idempotency-Key": "short" },
          body: yield* quoteBody()
        })
        assert.strictEqual(header.status, 422)
        assert.deepStrictEqual(header.json.detail, [
          {
            loc: ["header", "Idempotency-Key"],
            msg: header.json.detail[0].msg,
            type: "string_too_short"
          }
        ])
        const long = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", {
          key: a.sandbox,
          headers: { "Idempotency-Key": "k".repeat(257) },
          body: yield* quoteBody()
        })
        assert.deepStrictEqual(locs(long.json.detail), ["header.Idempotency-Key:string_too_long"])
      })
    )

    it.effect("the inbound webhook requires an Idempotency-Key, and names a wrong event_type", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const missing = yield* request(baseUrl, "POST", "/api/v1/fx/webhooks/inbound", {
          key: a.sandbox,
          body: { event_type: "funds_in_route", fx_contract_id: "01a20000-0000-7000-8000-000000000000" }
        })
        assert.strictEqual(missing.status, 422)
        assert.deepStrictEqual(locs(missing.json.detail), ["header.Idempotency-Key:missing"])
        const tag = yield* request(baseUrl, "POST", "/api/v1/fx/webhooks/inbound", {
          key: a.sandbox,
          headers: { "Idempotency-Key": newKey() },
          body: { event_type: "refund_sent", fx_contract_id: "01a20000-0000-7000-8000-000000000000" }
        })
        assert.strictEqual(tag.status, 422)
        assert.deepStrictEqual(locs(tag.json.detail), ["body.event_type:union_tag_invalid"])
      })
    )

    it.effect("a body that is not JSON", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const reply = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", {
          key: a.sandbox,
          body: '{"customer_name": '
        })
        assert.strictEqual(reply.status, 422)
        assert.deepStrictEqual(locs(reply.json.detail), ["body:json_invalid"])
        const array = yield* request(baseUrl, "POST", "/api/v1/fx/contracts", { key: a.sandbox, body: [1, 2] })
        assert.strictEqual(array.status, 422)
        assert.deepStrictEqual(locs(array.json.detail), ["body:dict_type"])
      })
    )
  })

  describe("404", () => {
    it.effect("unknown quote and contract ids", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const id = "01a20000-0000-7000-8000-00000000abcd"
        const quote = yield* request(baseUrl, "GET", `/api/v1/fx/quotes/${id}`, { key: a.sandbox })
        assert.deepStrictEqual([quote.status, quote.json.error.code], [404, "quote_not_found"])
        const contract = yield* request(baseUrl, "POST", "/api/v1/fx/contracts", {
          key: a.sandbox,
          body: { quote_id: id }
        })
        assert.deepStrictEqual([contract.status, contract.json.error.code], [404, "quote_not_found"])
        const inbound = yield* request(baseUrl, "POST", "/api/v1/fx/webhooks/inbound", {
          key: a.sandbox,
          headers: { "Idempotency-Key": newKey() },
          body: { event_type: "funds_in_route", fx_contract_id: id }
        })
        assert.deepStrictEqual([inbound.status, inbound.json.error.code], [404, "contract_not_found"])
        const redeliver = yield* request(baseUrl, "POST", `/api/v1/fx/webhook-events/${id}/redeliver`, {
          key: a.sandbox
        })
        assert.deepStrictEqual([redeliver.status, redeliver.json.error.code], [404, "webhook_event_not_found"])
      })
    )

    it.effect("unknown routes and wrong methods answer the envelope, without credentials", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        for (const [method, path] of [
          ["GET", "/api/v1/nothing"],
          ["DELETE", "/api/v1/fx/quotes"],
          ["GET", "/api/v1/fx/contracts"]
        ] as const) {
          const reply = yield* request(baseUrl, method, path)
          assert.deepStrictEqual([reply.status, reply.json.error.code], [404, "not_found"], `${method} ${path}`)
        }
      })
    )
  })

  describe("409 on contract creation", () => {
    it.effect("quote_already_accepted, quote_not_accepted, quote_expired", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const contracts = (quote_id: string) =>
          request(baseUrl, "POST", "/api/v1/fx/contracts", { key: a.sandbox, body: { quote_id } })
        const { quote } = yield* createContract(baseUrl, a.sandbox)
        const again = yield* contracts(quote.id)
        assert.deepStrictEqual([again.status, again.json.error.code], [409, "quote_already_accepted"])
        const failed = yield* createQuote(baseUrl, a.sandbox, { provider_rate: "9.99" })
        const refused = yield* contracts(failed.id)
        assert.deepStrictEqual([refused.status, refused.json.error.code], [409, "quote_not_accepted"])
        const stale = yield* createQuote(baseUrl, a.sandbox)
        yield* Effect.sleep("1200 millis")
        const expired = yield* contracts(stale.id)
        assert.deepStrictEqual([expired.status, expired.json.error.code], [409, "quote_expired"])
      })
    )
  })

  describe("inbound events refused by the contract's state", () => {
    const inbound = (baseUrl: string, key: Parameters<typeof exercise>[1], body: object) =>
      request(baseUrl, "POST", "/api/v1/fx/webhooks/inbound", { key, headers: { "Idempotency-Key": newKey() }, body })

    it.effect("409 contract_mismatch and invalid_contract_state, 400 funding_amount_invalid", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const { contract } = yield* createContract(baseUrl, a.sandbox)
        const funds = { event_type: "funds_in_route", fx_contract_id: contract.id }
        const chain = yield* inbound(baseUrl, a.sandbox, { ...funds, chain: "solana" })
        assert.deepStrictEqual([chain.status, chain.json.error.code], [409, "contract_mismatch"])
        const currency = yield* inbound(baseUrl, a.sandbox, { ...funds, currency: "EURC" })
        assert.deepStrictEqual([currency.status, currency.json.error.code], [409, "contract_mismatch"])
        for (const amount of ["0", "999999"]) {
          const reply = yield* inbound(baseUrl, a.sandbox, { ...funds, amount })
          assert.deepStrictEqual([reply.status, reply.json.error.code], [400, "funding_amount_invalid"], amount)
        }
        const early = yield* exercise(baseUrl, a.sandbox, contract.id)
        assert.deepStrictEqual([early.status, early.json.error.code], [409, "invalid_contract_state"])
      })
    )

    it.effect("on an active contract: 400 outside_window, 409 contract_mismatch, then nothing after exercise", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const { contract } = yield* createContract(baseUrl, a.sandbox)
        yield* activate(contract)
        const now = yield* DateTime.now
        const before = yield* exercise(baseUrl, a.sandbox, contract.id, {
          executed_at: DateTime.formatIso(DateTime.subtract(now, { days: 1 }))
        })
        assert.deepStrictEqual([before.status, before.json.error.code], [400, "outside_window"])
        const chain = yield* exercise(baseUrl, a.sandbox, contract.id, { chain: "ethereum" })
        assert.deepStrictEqual([chain.status, chain.json.error.code], [409, "contract_mismatch"])
        const done = yield* exercise(baseUrl, a.sandbox, contract.id)
        assert.strictEqual(done.json.status, "queued")
        const twice = yield* exercise(baseUrl, a.sandbox, contract.id)
        assert.deepStrictEqual([twice.status, twice.json.error.code], [409, "invalid_contract_state"])
        const late = yield* inbound(baseUrl, a.sandbox, { event_type: "funds_in_route", fx_contract_id: contract.id })
        assert.deepStrictEqual([late.status, late.json.error.code], [409, "invalid_contract_state"])
      })
    )
  })

  describe("limits and failures", () => {
    it.effect("413 payload_too_large over 1 MiB", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const body = yield* quoteBody({ customer_name: "x".repeat(1024 * 1024) })
        const reply = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", { key: a.sandbox, body })
        assert.deepStrictEqual([reply.status, reply.json.error.code], [413, "payload_too_large"])
      })
    )

    it.effect("413 for a chunked body (no Content-Length) once it passes the limit", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const reply = yield* Effect.promise(
          () =>
            new Promise<string>((resolve, reject) => {
              const req = http.request(
                `${baseUrl}/api/v1/fx/quotes`,
                { method: "POST", headers: { ...credentialHeaders(a.sandbox), "content-type": "application/json" } },
                (res) => {
                  let body = ""
                  res.on("data", (chunk) => (body += chunk))
                  res.on("end", () => resolve(`${res.statusCode} ${body}`))
                }
              )
              req.on("error", reject)
              const chunk = "x".repeat(64 * 1024)
              let sent = 0
              const pump = () => {
                while (sent++ < 40) if (!req.write(chunk)) return void req.once("drain", pump)
                req.end()
              }
              pump()
            })
        )
        assert.match(reply, /^413 .*"payload_too_large"/)
      })
    )

    it.effect("415 for a body that is not JSON by its content type", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const reply = yield* request(baseUrl, "POST", "/api/v1/fx/contracts", {
          key: a.sandbox,
          headers: { "content-type": "text/plain" },
          body: "quote please"
        })
        assert.deepStrictEqual([reply.status, reply.json.error.code], [415, "unsupported_media_type"])
      })
    )

    it.effect("500 internal_error for a failing port or a defect: generic message, nothing leaked", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const chain = yield* ChainHooks
        for (const how of ["fail", "die"] as const) {
          const quote = yield* createQuote(baseUrl, a.sandbox)
          yield* chain.breakNextFundingAddress(how)
          const reply = yield* request(baseUrl, "POST", "/api/v1/fx/contracts", {
            key: a.sandbox,
            body: { quote_id: quote.id }
          })
          assert.strictEqual(reply.status, 500, how)
          assert.deepStrictEqual(Object.keys(reply.json), ["error"])
          assert.strictEqual(reply.json.error.code, "internal_error")
          assert.notMatch(reply.text, /rpc|10\.0\.0\.7|SELECT|Stub|stack/i)
        }
      })
    )
  })
})
