/**
 * The same request 100 times at once over real HTTP (100 connections): an `Idempotency-Key` makes
 * it happen once. Every answer is the first one (201, no `Idempotent-Replayed`), its byte-identical
 * replay (`Idempotent-Replayed: true`) or 409 `idempotency_key_in_use`, and the store holds one
 * quote, one contract, one inbound event. Run on the embedded store, the memory store and, with
 * `DATABASE_URL`, PostgreSQL (where the requests run in parallel transactions).
 */
import { assert, describe, layer, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { newKey, quoteBody, type Reply, request } from "./support/http.ts"
import { createContract, createQuote } from "./support/lifecycle.ts"
import * as Postgres from "./support/postgres.ts"
import { type Provided, layer as serverLayer, TestServer } from "./support/server.ts"

const concurrent = 100

/** `n` copies of `call`, all in flight together. */
const atOnce = (call: Effect.Effect<Reply>, n = concurrent) =>
  Effect.forEach(Array.from({ length: n }), () => call, { concurrency: "unbounded" })

const tally = (replies: ReadonlyArray<Reply>, describe: (r: Reply) => string) => {
  const counts = new Map<string, number>()
  for (const r of replies) counts.set(describe(r), (counts.get(describe(r)) ?? 0) + 1)
  return Object.fromEntries([...counts].sort())
}

const outcome = (r: Reply) => `${r.status} ${r.json?.error?.code ?? r.headers.get("idempotent-replayed") ?? "first"}`

/**
 * Exactly one first answer with `status`; every other answer is its byte-identical replay or
 * 409 `idempotency_key_in_use`. Returns the first answer.
 */
const onlyOnce = (replies: ReadonlyArray<Reply>, status: number): Reply => {
  const summary = JSON.stringify(tally(replies, outcome))
  const firsts = replies.filter((r) => r.status === status && r.headers.get("idempotent-replayed") === null)
  assert.strictEqual(firsts.length, 1, `one first answer: ${summary}`)
  const first = firsts[0]!
  for (const r of replies) {
    if (r === first) continue
    if (r.status === 409) {
      assert.strictEqual(r.json?.error?.code, "idempotency_key_in_use", summary)
      continue
    }
    assert.strictEqual(r.status, status, summary)
    assert.strictEqual(r.headers.get("idempotent-replayed"), "true", summary)
    assert.strictEqual(r.text, first.text, "a replay is the first answer byte for byte")
  }
  return first
}

const suite = (it: Vitest.MethodsNonLive<Provided>) => {
  it.effect(`${concurrent} identical POST /fx/quotes with one Idempotency-Key: one quote`, () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const key = newKey()
      const customer = `cust-concurrent-${key}`
      const body = yield* quoteBody({ customer_reference_id: customer })
      const replies = yield* atOnce(
        request(baseUrl, "POST", "/api/v1/fx/quotes", { key: a.sandbox, headers: { "Idempotency-Key": key }, body })
      )
      const first = onlyOnce(replies, 201)
      assert.strictEqual(first.json.status, "created")
      const list = yield* request(baseUrl, "GET", `/api/v1/fx/quotes?customer_reference_id=${customer}`, {
        key: a.sandbox
      })
      assert.deepStrictEqual(
        list.json.items.map((q: { id: string }) => q.id),
        [first.json.id]
      )
    })
  )

  it.effect(`${concurrent} identical POST /fx/contracts with one Idempotency-Key: one contract for the quote`, () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const key = newKey()
      const customer = `cust-concurrent-${key}`
      const quote = yield* createQuote(baseUrl, a.sandbox, { customer_reference_id: customer })
      const post = request(baseUrl, "POST", "/api/v1/fx/contracts", {
        key: a.sandbox,
        headers: { "Idempotency-Key": key },
        body: { quote_id: quote.id, partner_transaction_reference: "ptx-concurrent" }
      })
      const first = onlyOnce(yield* atOnce(post), 201)
      const locks = yield* request(baseUrl, "GET", `/api/v1/fx/customers/${customer}/locks`, { key: a.sandbox })
      assert.deepStrictEqual(
        locks.json.items.map((l: { id: string; quote_id: string }) => [l.id, l.quote_id]),
        [[first.json.id, quote.id]]
      )
      // the key is settled: one more try is a replay
      const later = yield* post
      assert.deepStrictEqual(
        [later.status, later.text, later.headers.get("idempotent-replayed")],
        [201, first.text, "true"]
      )
    })
  )

  it.effect(`${concurrent} POST /fx/contracts for one quote without a key: one contract, the others 409`, () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const customer = `cust-concurrent-${newKey()}`
      const quote = yield* createQuote(baseUrl, a.sandbox, { customer_reference_id: customer })
      const replies = yield* atOnce(
        request(baseUrl, "POST", "/api/v1/fx/contracts", { key: a.sandbox, body: { quote_id: quote.id } })
      )
      const summary = JSON.stringify(tally(replies, outcome))
      const created = replies.filter((r) => r.status === 201)
      assert.strictEqual(created.length, 1, summary)
      assert.strictEqual(
        replies.filter((r) => r.json?.error?.code === "quote_already_accepted").length,
        concurrent - 1,
        summary
      )
      const locks = yield* request(baseUrl, "GET", `/api/v1/fx/customers/${customer}/locks`, { key: a.sandbox })
      assert.deepStrictEqual(
        locks.json.items.map((l: { id: string }) => l.id),
        [created[0]!.json.id]
      )
    })
  )

  it.effect(
    `${concurrent} identical inbound webhooks with one key: one event, processed once, the rest duplicates`,
    () =>
      Effect.gen(function* () {
        const { baseUrl, a } = yield* TestServer
        const customer = `cust-concurrent-${newKey()}`
        const { contract } = yield* createContract(baseUrl, a.sandbox, { customer_reference_id: customer })
        const key = newKey()
        const replies = yield* atOnce(
          request(baseUrl, "POST", "/api/v1/fx/webhooks/inbound", {
            key: a.sandbox,
            headers: { "Idempotency-Key": key },
            body: { event_type: "funds_in_route", fx_contract_id: contract.id, amount: "1.5", currency: "USDC" }
          })
        )
        const summary = JSON.stringify(tally(replies, (r) => `${r.status} ${r.json?.status ?? r.json?.error?.code}`))
        const acks = replies.filter((r) => r.status === 200)
        for (const r of replies) {
          if (r.status !== 200)
            assert.deepStrictEqual([r.status, r.json?.error?.code], [409, "idempotency_key_in_use"], summary)
        }
        const ids = new Set(acks.map((r) => r.json.webhook_event_id))
        assert.strictEqual(ids.size, 1, `one webhook_event_id: ${summary}`)
        assert.strictEqual(acks.filter((r) => r.json.status === "processed").length, 1, summary)
        assert.isTrue(
          acks.every((r) => r.json.status === "processed" || r.json.status === "duplicate"),
          summary
        )
        const events = yield* request(
          baseUrl,
          "GET",
          `/api/v1/fx/webhook-events?fx_contract_id=${contract.id}&direction=incoming`,
          { key: a.sandbox }
        )
        assert.deepStrictEqual(
          events.json.items.map((e: { id: string }) => e.id),
          [...ids]
        )
        const locks = yield* request(baseUrl, "GET", `/api/v1/fx/customers/${customer}/locks`, { key: a.sandbox })
        assert.strictEqual(locks.json.items[0].status, "funds_in_route")
      })
  )
}

layer(serverLayer(), { excludeTestServices: true, timeout: "120 seconds" })("concurrency, embedded store", suite)

layer(serverLayer({ store: "memory" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "concurrency, memory store",
  suite
)

describe.skipIf(Postgres.databaseUrl === undefined)("concurrency, PostgreSQL (needs DATABASE_URL)", () => {
  layer(Postgres.layer(Postgres.databaseUrl ?? ""), { excludeTestServices: true, timeout: "120 seconds" })(
    "concurrency, PostgreSQL",
    suite
  )
})
