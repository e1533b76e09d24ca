/**
 * `Idempotency-Key` on the POSTs over real HTTP: the first answer replayed byte for byte with
 * `Idempotent-Replayed: true`, 409 for another body or route or a request still running, and a
 * 500 never stored (the retry runs again).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { ChainHooks } from "./support/chain.ts"
import { newKey, quoteBody, request } from "./support/http.ts"
import { activate, createContract, createQuote } from "./support/lifecycle.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

layer(serverLayer(), { excludeTestServices: true, timeout: "60 seconds" })("idempotency", (it) => {
  it.effect("the same key and body replays the first response exactly", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const key = newKey()
      const customer = `cust-${key}`
      const body = yield* quoteBody({ customer_reference_id: customer })
      const post = (payload: unknown) =>
        request(baseUrl, "POST", "/api/v1/fx/quotes", {
          key: a.sandbox,
          headers: { "Idempotency-Key": key },
          body: payload
        })
      const first = yield* post(body)
      assert.strictEqual(first.status, 201)
      assert.isNull(first.headers.get("idempotent-replayed"))
      // the same body with its keys in another order is the same request (canonical JSON)
      const reordered = Object.fromEntries(Object.entries(body).reverse())
      const second = yield* post(reordered)
      assert.strictEqual(second.status, 201)
      assert.strictEqual(second.text, first.text)
      assert.strictEqual(second.headers.get("idempotent-replayed"), "true")
      assert.match(second.headers.get("content-type") ?? "", /application\/json/)
      const list = yield* request(baseUrl, "GET", `/api/v1/fx/quotes?customer_reference_id=${customer}`, {
        key: a.sandbox
      })
      assert.strictEqual(list.json.items.length, 1)
    })
  )

  it.effect("another body or another route with the same key: 409 idempotency_key_reused", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const key = newKey()
      const headers = { "Idempotency-Key": key }
      const first = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", {
        key: a.sandbox,
        headers,
        body: yield* quoteBody()
      })
      assert.strictEqual(first.status, 201)
      const otherBody = yield* request(baseUrl, "POST", "/api/v1/fx/quotes", {
        key: a.sandbox,
        headers,
        body: yield* quoteBody({ notional_amount: "20000" })
      })
      assert.deepStrictEqual([otherBody.status, otherBody.json.error.code], [409, "idempotency_key_reused"])
      const otherRoute = yield* request(baseUrl, "POST", "/api/v1/fx/contracts", {
        key: a.sandbox,
        headers,
        body: { quote_id: first.json.id }
      })
      assert.deepStrictEqual([otherRoute.status, otherRoute.json.error.code], [409, "idempotency_key_reused"])
    })
  )

  it.effect("a 4xx answer is kept and replayed too", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const post = () =>
        request(baseUrl, "POST", "/api/v1/fx/contracts", {
          key: a.sandbox,
          headers: { "Idempotency-Key": "replayed-404-key" },
          body: { quote_id: "01a20000-0000-7000-8000-00000000dead" }
        })
      const first = yield* post()
      assert.deepStrictEqual([first.status, first.json.error.code], [404, "quote_not_found"])
      const second = yield* post()
      assert.deepStrictEqual([second.status, second.text], [404, first.text])
      assert.strictEqual(second.headers.get("idempotent-replayed"), "true")
    })
  )

  it.effect("the same key while the first request runs: 409 idempotency_key_in_use", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const chain = yield* ChainHooks
      const quote = yield* createQuote(baseUrl, a.sandbox)
      const post = request(baseUrl, "POST", "/api/v1/fx/contracts", {
        key: a.sandbox,
        headers: { "Idempotency-Key": `in-flight-${quote.id}` },
        body: { quote_id: quote.id }
      })
      const release = yield* chain.holdFundingAddress
      const first = yield* Effect.forkChild(post)
      yield* Effect.sleep("300 millis")
      const second = yield* post
      assert.deepStrictEqual([second.status, second.json.error.code], [409, "idempotency_key_in_use"])
      yield* release
      const done = yield* Fiber.join(first)
      assert.strictEqual(done.status, 201)
      const third = yield* post
      assert.deepStrictEqual([third.status, third.text], [201, done.text])
    })
  )

  it.effect("a 500 is not kept: the retry with the same key runs again", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const chain = yield* ChainHooks
      const quote = yield* createQuote(baseUrl, a.sandbox)
      const post = request(baseUrl, "POST", "/api/v1/fx/contracts", {
        key: a.sandbox,
        headers: { "Idempotency-Key": `retry-${quote.id}` },
        body: { quote_id: quote.id }
      })
      yield* chain.breakNextFundingAddress("fail")
      const failed = yield* post
      assert.strictEqual(failed.status, 500)
      const retried = yield* post
      assert.strictEqual(retried.status, 201)
      assert.isNull(retried.headers.get("idempotent-replayed"))
    })
  )

  it.effect("redelivery with a key: replayed; the key is per route and event id", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const { contract } = yield* createContract(baseUrl, a.sandbox)
      yield* activate(contract)
      const events = yield* request(
        baseUrl,
        "GET",
        `/api/v1/fx/webhook-events?fx_contract_id=${contract.id}&direction=outgoing`,
        { key: a.sandbox }
      )
      const funded = events.json.items[0]
      assert.strictEqual(funded.event_type, "funds_received")
      const key = newKey()
      const redeliver = (id: string) =>
        request(baseUrl, "POST", `/api/v1/fx/webhook-events/${id}/redeliver`, {
          key: a.sandbox,
          headers: { "Idempotency-Key": key }
        })
      const first = yield* redeliver(funded.id)
      assert.strictEqual(first.status, 202)
      const again = yield* redeliver(funded.id)
      assert.deepStrictEqual(
        [again.status, again.text, again.headers.get("idempotent-replayed")],
        [202, first.text, "true"]
      )
      const other = yield* redeliver("01a20000-0000-7000-8000-00000000beef")
      assert.deepStrictEqual([other.status, other.json.error.code], [409, "idempotency_key_reused"])
    })
  )

  it.effect("the inbound webhook: same key and body is a duplicate, another body is refused", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const { contract } = yield* createContract(baseUrl, a.sandbox)
      const headers = { "Idempotency-Key": newKey() }
      const send = (body: object) =>
        request(baseUrl, "POST", "/api/v1/fx/webhooks/inbound", { key: a.sandbox, headers, body })
      const event = { event_type: "funds_in_route", fx_contract_id: contract.id, amount: "10" }
      const first = yield* send(event)
      assert.deepStrictEqual([first.status, first.json.status], [200, "processed"])
      const again = yield* send(event)
      assert.deepStrictEqual(again.json, { webhook_event_id: first.json.webhook_event_id, status: "duplicate" })
      const changed = yield* send({ ...event, amount: "11" })
      assert.deepStrictEqual([changed.status, changed.json.error.code], [409, "idempotency_key_reused"])
    })
  )
})
