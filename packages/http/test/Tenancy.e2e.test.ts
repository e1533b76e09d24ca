/**
 * Tenancy over real HTTP: everything partner A makes in sandbox is invisible to partner B and to
 * A's own production key: 404 on every id route (never "exists but not yours"), empty lists.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { newKey, request } from "./support/http.ts"
import { activate, createContract, exercise, settle } from "./support/lifecycle.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

layer(serverLayer(), { excludeTestServices: true, timeout: "60 seconds" })("tenancy", (it) => {
  it.effect("another partner and the other environment see nothing of A's sandbox", () =>
    Effect.gen(function* () {
      const { baseUrl, a, b } = yield* TestServer
      const customer = `cust-tenancy-${newKey()}`
      const { quote, contract } = yield* createContract(baseUrl, a.sandbox, { customer_reference_id: customer })
      yield* activate(contract)
      yield* exercise(baseUrl, a.sandbox, contract.id)
      yield* settle
      const own = yield* request(baseUrl, "GET", `/api/v1/fx/webhook-events?fx_contract_id=${contract.id}`, {
        key: a.sandbox
      })
      const outgoing = own.json.items.find((e: { direction: string }) => e.direction === "outgoing")
      assert.isDefined(outgoing)
      const ownFeed = yield* request(baseUrl, "GET", "/api/v1/fx/payout-events", { key: a.sandbox })
      assert.isAbove(ownFeed.json.items.length, 0)

      for (const [who, key] of [
        ["partner B", b.sandbox],
        ["partner B production", b.production],
        ["A in production", a.production]
      ] as const) {
        const get = yield* request(baseUrl, "GET", `/api/v1/fx/quotes/${quote.id}`, { key })
        assert.deepStrictEqual([get.status, get.json.error.code], [404, "quote_not_found"], who)
        const accept = yield* request(baseUrl, "POST", "/api/v1/fx/contracts", { key, body: { quote_id: quote.id } })
        assert.deepStrictEqual([accept.status, accept.json.error.code], [404, "quote_not_found"], who)
        const inbound = yield* request(baseUrl, "POST", "/api/v1/fx/webhooks/inbound", {
          key,
          headers: { "Idempotency-Key": newKey() },
          body: { event_type: "funds_in_route", fx_contract_id: contract.id }
        })
        assert.deepStrictEqual([inbound.status, inbound.json.error.code], [404, "contract_not_found"], who)
        const redeliver = yield* request(baseUrl, "POST", `/api/v1/fx/webhook-events/${outgoing.id}/redeliver`, { key })
        assert.deepStrictEqual([redeliver.status, redeliver.json.error.code], [404, "webhook_event_not_found"], who)
        for (const path of [
          "/api/v1/fx/quotes",
          `/api/v1/fx/quotes?customer_reference_id=${customer}`,
          `/api/v1/fx/customers/${customer}/locks`,
          "/api/v1/fx/webhook-events",
          `/api/v1/fx/webhook-events?fx_contract_id=${contract.id}`,
          "/api/v1/fx/payout-events"
        ]) {
          const list = yield* request(baseUrl, "GET", path, { key })
          assert.deepStrictEqual([list.status, list.json], [200, { items: [], next_cursor: null }], `${who} ${path}`)
        }
      }
    })
  )
})
