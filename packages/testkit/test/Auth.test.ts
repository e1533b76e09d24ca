/**
 * Authentication and the request budget of the Partner API, on the in-memory Ratelock (the API in
 * process, the memory store, the test clock: a spent budget refills only when the test moves time)
 * with the default chain availability (production off): 401 with one message for every bad
 * credential, 403 for the wrong or a disabled environment, 429 with Retry-After, and the open
 * system routes. (Moved from http's tests: the in-memory Ratelock is this package's, above http.)
 */
import { assert, layer } from "@effect/vitest"
import { Requests } from "@ratelock/core"
import { credentialHeaders, type Reply } from "@ratelock/test-support/Http"
import { Effect } from "effect"
import { Simulation } from "../src/index.ts"
import { InProcess, layer as inProcess } from "./support/inProcess.ts"

const defaults = { sandbox: true, production: false }

layer(inProcess({ environments: defaults, rateLimit: { ratePerSecond: 1, burst: 5 } }), {
  timeout: "30 seconds"
})("authentication", (it) => {
  it.effect("every bad credential is 401 unauthorized with the same message", () =>
    Effect.gen(function* () {
      const { a, b, request } = yield* InProcess
      const good = credentialHeaders(a.sandbox)
      const without = (name: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== name))
      const cases: Record<string, Record<string, string>> = {
        "no headers": {},
        "no key id": without("X-Partner-Key-Id"),
        "no secret": without("X-Partner-Key-Secret"),
        "no environment": without("X-Partner-Environment"),
        "empty secret": { ...good, "X-Partner-Key-Secret": "" },
        "unknown key id": { ...good, "X-Partner-Key-Id": "01a20000-0000-7000-8000-000000000000" },
        "key id not a uuid": { ...good, "X-Partner-Key-Id": "acme'; DROP TABLE api_keys; --" },
        "wrong secret": { ...good, "X-Partner-Key-Secret": `${a.sandbox.secret}x` },
        "another key's secret": { ...good, "X-Partner-Key-Secret": b.sandbox.secret },
        "revoked key": credentialHeaders(a.revoked),
        "unknown environment": { ...good, "X-Partner-Environment": "staging" }
      }
      const messages = new Set<string>()
      for (const [name, headers] of Object.entries(cases)) {
        const reply = yield* request("GET", "/api/v1/partners/me", { headers })
        assert.strictEqual(reply.status, 401, name)
        assert.strictEqual(reply.json.error.code, "unauthorized", name)
        messages.add(reply.json.error.message)
      }
      assert.strictEqual(messages.size, 1)
    })
  )

  it.effect("right id and secret for the other environment: 403 environment_mismatch", () =>
    Effect.gen(function* () {
      const { a, request } = yield* InProcess
      const asProduction = { ...credentialHeaders(a.sandbox), "X-Partner-Environment": "production" }
      const asSandbox = { ...credentialHeaders(a.production), "X-Partner-Environment": "sandbox" }
      for (const headers of [asProduction, asSandbox]) {
        const reply = yield* request("GET", "/api/v1/fx/quotes", { headers })
        assert.deepStrictEqual([reply.status, reply.json.error.code], [403, "environment_mismatch"])
      }
    })
  )

  it.effect("an environment without chains on this deployment: 403 environment_disabled", () =>
    Effect.gen(function* () {
      const { a, request } = yield* InProcess
      const reply = yield* request("GET", "/api/v1/partners/me", { key: a.production })
      assert.deepStrictEqual([reply.status, reply.json.error.code], [403, "environment_disabled"])
    })
  )

  it.effect("credentials come before validation: a bad body with bad credentials is 401", () =>
    Effect.gen(function* () {
      const { request } = yield* InProcess
      const reply = yield* request("POST", "/api/v1/fx/quotes", { body: { nonsense: true } })
      assert.strictEqual(reply.status, 401)
    })
  )

  it.effect("over the key's budget: 429 rate_limited with Retry-After, other keys unaffected", () =>
    Effect.gen(function* () {
      const { a, b, request } = yield* InProcess
      const statuses: Array<number> = []
      let limited: Reply | undefined
      for (let i = 0; i < 7; i++) {
        const reply = yield* request("GET", "/api/v1/partners/me", { key: b.sandbox })
        statuses.push(reply.status)
        if (reply.status === 429) limited = reply
      }
      // the test clock stands still: the spent bucket does not refill in between
      assert.deepStrictEqual(statuses, [200, 200, 200, 200, 200, 429, 429])
      assert.strictEqual(limited?.json.error.code, "rate_limited")
      assert.strictEqual(limited?.headers.get("retry-after"), "1")
      const other = yield* request("GET", "/api/v1/partners/me", { key: a.sandbox })
      assert.strictEqual(other.status, 200)
      // a second later, one token is back
      yield* Simulation.advance("1 second")
      const after = yield* request("GET", "/api/v1/partners/me", { key: b.sandbox })
      assert.strictEqual(after.status, 200)
    })
  )

  it.effect("health, ready, openapi and docs need no credentials, even bad ones", () =>
    Effect.gen(function* () {
      const { request } = yield* InProcess
      const bad = { "X-Partner-Key-Id": "nope", "X-Partner-Key-Secret": "nope", "X-Partner-Environment": "nope" }
      for (const path of ["/health", "/ready", "/openapi.json", "/docs"]) {
        for (const headers of [{}, bad]) {
          const reply = yield* request("GET", path, { headers })
          assert.strictEqual(reply.status, 200, path)
        }
      }
    })
  )

  it.effect("the API runs on the memory store too", () =>
    Effect.gen(function* () {
      const { a, request } = yield* InProcess
      const created = yield* request("POST", "/api/v1/fx/quotes", {
        key: a.sandbox,
        body: yield* Requests.quote({ customer_reference_id: "cust-1" })
      })
      assert.strictEqual(created.status, 201)
      const got = yield* request("GET", `/api/v1/fx/quotes/${created.json.id}`, { key: a.sandbox })
      assert.deepStrictEqual(got.json, created.json)
    })
  )
})
