/**
 * Every route over real HTTP, on the embedded Postgres: what each answers when the request is
 * right, through `fetch` and through the typed client.
 */
import { assert, describe, layer } from "@effect/vitest"
import { MemoryStore } from "@ratelock/adapters-store"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { NotFound, Unauthorized } from "../src/api/Errors.ts"
import { makeClient } from "../src/client.ts"
import { NotReady, Readiness } from "../src/server/Readiness.ts"
import { newKey, request } from "./support/http.ts"
import { activate, createContract, createQuote, exercise, settle } from "./support/lifecycle.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

const isUuid = (s: unknown) =>
  typeof s === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(s)

layer(serverLayer(), { excludeTestServices: true, timeout: "60 seconds" })("Partner API", (it) => {
  describe("system", () => {
    it.effect("health and ready answer without credentials", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const health = yield* request(baseUrl, "GET", "/health")
        assert.deepStrictEqual([health.status, health.json], [200, { status: "ok" }])
        const ready = yield* request(baseUrl, "GET", "/ready")
        assert.deepStrictEqual([ready.status, ready.json], [200, { status: "ready", database: "ok" }])
      })
    )

    it.effect("the OpenAPI document: version, the three credential schemes, documented errors", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const reply = yield* request(baseUrl, "GET", "/openapi.json")
        assert.strictEqual(reply.status, 200)
        const spec = reply.json
        assert.strictEqual(spec.info.version, "0.1.0")
        assert.deepStrictEqual(Object.keys(spec.components.securitySchemes).sort(), [
          "partnerEnvironment",
          "partnerKeyId",
          "partnerKeySecret"
        ])
        assert.strictEqual(spec.components.securitySchemes.partnerKeyId.name, "X-Partner-Key-Id")
        const inboxReceiver = "/api/v1/sandbox/webhook-inbox/{partner_id}"
        const partnerRoutes = Object.entries<Record<string, { security: unknown; responses: object }>>(
          spec.paths
        ).filter(([path]) => path.startsWith("/api/v1") && path !== inboxReceiver)
        // the spec's 10 operations, the 3 sandbox helpers and the sandbox's webhook inbox
        assert.strictEqual(partnerRoutes.flatMap(([, item]) => Object.keys(item)).length, 14)
        // the inbox's receiver is a webhook receiver: it trusts signatures, not credentials
        assert.deepStrictEqual(spec.paths[inboxReceiver].post.security, [])
        for (const [, item] of partnerRoutes) {
          for (const operation of Object.values(item)) {
            assert.deepStrictEqual(operation.security, [
              { partnerKeyId: [], partnerKeySecret: [], partnerEnvironment: [] }
            ])
            for (const status of ["401", "403", "422", "429", "500"]) assert.property(operation.responses, status)
          }
        }
        assert.property(spec.paths["/api/v1/fx/quotes"].post.responses, "409")
        assert.property(spec.paths["/api/v1/fx/quotes"].post.responses, "413")
        assert.property(spec.paths["/ready"].get.responses, "503")
      })
    )

    it.effect("the docs page", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const reply = yield* request(baseUrl, "GET", "/docs")
        assert.strictEqual(reply.status, 200)
        assert.match(reply.headers.get("content-type") ?? "", /text\/html/)
        // the three credential headers selected together, the environment filled in
        assert.include(
          reply.text,
          '"preferredSecurityScheme":[["partnerKeyId","partnerKeySecret","partnerEnvironment"]]'
        )
        assert.include(reply.text, '"securitySchemes":{"partnerEnvironment":{"value":"sandbox"}}')
        // system fonts (Scalar's own come from fonts.scalar.com), and a favicon of ours
        assert.include(reply.text, '"withDefaultFonts":false')
        assert.include(reply.text, '"favicon":"/favicon.svg"')
        for (const path of ["/favicon.ico", "/favicon.svg"]) {
          const icon = yield* request(baseUrl, "GET", path)
          assert.strictEqual(icon.status, 200, path)
          assert.strictEqual(icon.headers.get("content-type"), "image/svg+xml")
          assert.match(icon.text, /^<svg /)
        }
      })
    )
  })

  it.effect("GET /partners/me names the partner, the key and the environment", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      for (const key of [a.sandbox, a.production]) {
        const reply = yield* request(baseUrl, "GET", "/api/v1/partners/me", { key })
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(reply.json, {
          partner_id: a.id,
          partner_name: a.name,
          api_key_id: key.keyId,
          environment: key.environment
        })
      }
    })
  )

  describe("quotes", () => {
    it.effect("POST creates (201), GET reads it back", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const quote = yield* createQuote(baseUrl, a.sandbox, { customer_reference_id: "cust-get" })
        assert.isTrue(isUuid(quote.id))
        assert.strictEqual(quote.status, "created")
        assert.strictEqual(quote.chain, "polygon")
        assert.match(quote.expires_at, /Z$/)
        const got = yield* request(baseUrl, "GET", `/api/v1/fx/quotes/${quote.id}`, { key: a.sandbox })
        assert.deepStrictEqual([got.status, got.json], [200, quote])
      })
    )

    it.effect("a request that cannot be priced is stored as failed, with its reason", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const quote = yield* createQuote(baseUrl, a.sandbox, { provider_rate: "9.99" })
        assert.strictEqual(quote.status, "failed")
        assert.strictEqual(quote.failure_reason.code, "provider_rate_off_market")
        assert.strictEqual(Number(quote.premium_amount), 0)
      })
    )

    it.effect("lists newest first, filters, and pages with a cursor", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const customer = `cust-list-${newKey()}`
        const first = yield* createQuote(baseUrl, a.sandbox, { customer_reference_id: customer })
        const second = yield* createQuote(baseUrl, a.sandbox, { customer_reference_id: customer })
        const path = `/api/v1/fx/quotes?customer_reference_id=${customer}`
        const all = yield* request(baseUrl, "GET", path, { key: a.sandbox })
        assert.deepStrictEqual(
          all.json.items.map((q: { id: string }) => q.id),
          [second.id, first.id]
        )
        assert.isNull(all.json.next_cursor)
        const page1 = yield* request(baseUrl, "GET", `${path}&limit=1`, { key: a.sandbox })
        assert.deepStrictEqual(
          page1.json.items.map((q: { id: string }) => q.id),
          [second.id]
        )
        const page2 = yield* request(baseUrl, "GET", `${path}&limit=1&cursor=${page1.json.next_cursor}`, {
          key: a.sandbox
        })
        assert.deepStrictEqual(
          page2.json.items.map((q: { id: string }) => q.id),
          [first.id]
        )
        const failed = yield* request(baseUrl, "GET", `${path}&status=failed`, { key: a.sandbox })
        assert.deepStrictEqual(failed.json.items, [])
      })
    )
  })

  describe("contracts", () => {
    it.effect("POST turns a quote into a contract; the customer's locks list it", () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const customer = `cust-locks-${newKey()}`
        const { quote, contract } = yield* createContract(baseUrl, a.sandbox, { customer_reference_id: customer })
        assert.isTrue(isUuid(contract.id))
        assert.strictEqual(contract.locked_rate, quote.locked_rate)
        assert.strictEqual(contract.total_amount, quote.total_amount)
        assert.match(contract.funding_wallet_address, /^0x[0-9a-f]{40}$/)
        assert.match(contract.service_contract_reference, /^RL-/)
        const locks = yield* request(baseUrl, "GET", `/api/v1/fx/customers/${customer}/locks`, { key: a.sandbox })
        assert.strictEqual(locks.status, 200)
        assert.strictEqual(locks.json.items.length, 1)
        const lock = locks.json.items[0]
        assert.deepStrictEqual(
          [lock.id, lock.status, lock.quote_id, lock.customer_reference_id, lock.partner_transaction_reference],
          [contract.id, "quote_created", quote.id, customer, "ptx-1"]
        )
        const active = yield* request(baseUrl, "GET", `/api/v1/fx/customers/${customer}/locks?status=active`, {
          key: a.sandbox
        })
        assert.deepStrictEqual(active.json, { items: [], next_cursor: null })
      })
    )
  })

  it.effect("a whole lifecycle: funds in route, funding, exercise, payout feed, redelivery", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const { contract } = yield* createContract(baseUrl, a.sandbox)
      const inbound = (body: object) =>
        request(baseUrl, "POST", "/api/v1/fx/webhooks/inbound", {
          key: a.sandbox,
          headers: { "Idempotency-Key": newKey() },
          body
        })

      const route = yield* inbound({ event_type: "funds_in_route", fx_contract_id: contract.id, amount: "1.5" })
      assert.strictEqual(route.status, 200)
      assert.strictEqual(route.json.status, "processed")

      yield* activate(contract)
      const exercised = yield* exercise(baseUrl, a.sandbox, contract.id)
      assert.strictEqual(exercised.status, 200)
      assert.strictEqual(exercised.json.status, "queued")

      const events = yield* request(baseUrl, "GET", `/api/v1/fx/webhook-events?fx_contract_id=${contract.id}`, {
        key: a.sandbox
      })
      assert.deepStrictEqual(
        events.json.items.map((e: { direction: string; event_type: string }) => `${e.direction}:${e.event_type}`),
        ["incoming:contract_exercised", "outgoing:funds_received", "incoming:funds_in_route"]
      )
      const incoming = yield* request(
        baseUrl,
        "GET",
        `/api/v1/fx/webhook-events?fx_contract_id=${contract.id}&direction=incoming&limit=1`,
        { key: a.sandbox }
      )
      assert.strictEqual(incoming.json.items[0].event_type, "contract_exercised")
      assert.strictEqual(incoming.json.items[0].payload.live_execution_rate, "5.0")
      assert.isString(incoming.json.next_cursor)

      yield* settle
      const feed = yield* request(baseUrl, "GET", "/api/v1/fx/payout-events", { key: a.sandbox })
      assert.strictEqual(feed.status, 200)
      const payout = feed.json.items.find((e: { fx_contract_id: string }) => e.fx_contract_id === contract.id)
      assert.strictEqual(payout.event_type, "payout_settled")
      assert.strictEqual(payout.payload.payout.status, "settled")
      const later = yield* request(
        baseUrl,
        "GET",
        `/api/v1/fx/payout-events?since=${encodeURIComponent("2999-01-01T00:00:00Z")}`,
        { key: a.sandbox }
      )
      assert.deepStrictEqual(later.json, { items: [], next_cursor: null })

      const redelivered = yield* request(baseUrl, "POST", `/api/v1/fx/webhook-events/${payout.id}/redeliver`, {
        key: a.sandbox
      })
      assert.strictEqual(redelivered.status, 202)
      assert.deepStrictEqual(
        [redelivered.json.id, redelivered.json.idempotency_key, redelivered.json.status],
        [payout.id, payout.idempotency_key, "pending"]
      )
      const notOutgoing = yield* request(
        baseUrl,
        "POST",
        `/api/v1/fx/webhook-events/${incoming.json.items[0].id}/redeliver`,
        { key: a.sandbox }
      )
      assert.strictEqual(notOutgoing.status, 404)
      assert.strictEqual(notOutgoing.json.error.code, "webhook_event_not_found")
    })
  )

  it.effect("the typed client calls the same routes", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const client = yield* makeClient(baseUrl, a.sandbox)
      const me = yield* client.partners.me()
      assert.strictEqual(me.partner_id, a.id)
      const quote = yield* createQuote(baseUrl, a.sandbox)
      const got = yield* client.quotes.get({ params: { quote_id: quote.id } })
      assert.strictEqual(got.id, quote.id)
      const page = yield* client.quotes.list({ query: { limit: 1 } })
      assert.strictEqual(page.items.length, 1)
      const health = yield* client.health()
      assert.deepStrictEqual(health, { status: "ok" })
      const missing = yield* client.quotes
        .get({ params: { quote_id: "01a20000-0000-7000-8000-000000000000" } })
        .pipe(Effect.flip)
      assert.instanceOf(missing, NotFound)
      const wrong = yield* makeClient(baseUrl, { ...a.sandbox, secret: "rlk_wrong" })
      const denied = yield* wrong.partners.me().pipe(Effect.flip)
      assert.instanceOf(denied, Unauthorized)
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )
})

// on the memory store, whose readiness check fails ("database unreachable")
const notReady = Layer.merge(
  MemoryStore.layerMemory,
  Layer.succeed(
    Readiness,
    Readiness.of({
      check: Effect.fail(new NotReady({ message: "database unreachable" })),
      migrations: Effect.fail(new NotReady({ message: "database unreachable" }))
    })
  )
)

layer(serverLayer({ store: notReady }), { excludeTestServices: true })("a store that is not ready", (it) => {
  it.effect("GET /ready is 503 not_ready; /health still answers", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const ready = yield* request(baseUrl, "GET", "/ready")
      assert.deepStrictEqual([ready.status, ready.json.error.code], [503, "not_ready"])
      assert.notMatch(ready.text, /unreachable/)
      const health = yield* request(baseUrl, "GET", "/health")
      assert.strictEqual(health.status, 200)
    })
  )
})
