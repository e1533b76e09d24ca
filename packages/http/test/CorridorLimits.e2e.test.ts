/**
 * Corridor limits over real HTTP (risk.md, Limits): a quote that would take its corridor past a
 * limit fails `corridor_capacity_exceeded` exactly when the next lock would breach and is priced
 * exactly at the limit; contract creation checks again, atomically with its insert, and answers
 * 409 `corridor_capacity_exceeded`; 50 concurrent contract creations against the last capacity of a
 * corridor never exceed it. On the embedded store, the memory store and, with `DATABASE_URL`,
 * PostgreSQL in one process (parallel transactions); and on PostgreSQL with two API processes, the
 * limit set and the use read with the operator CLI.
 */
import { assert, describe, layer, type Vitest } from "@effect/vitest"
import { CorridorLimits, Money, Requests } from "@ratelock/core"
import { databaseUrl as serverUrl } from "@ratelock/test-support/Postgres"
import { DateTime, Effect } from "effect"
import { it as vitest } from "vitest"
import { newKey, quoteBody, type Reply, request } from "./support/http.ts"
import { Driver } from "./support/cluster/drive.ts"
import { withCluster } from "./support/cluster/setup.ts"
import * as Postgres from "./support/postgres.ts"
import { cliJson } from "./support/processes.ts"
import { type Key, type Provided, layer as serverLayer, TestServer } from "./support/server.ts"

/** A quote body for `notional` of the corridor's BASE; every test keeps to a corridor of its own. */
const usdMxn = (notional: string) => ({
  direction: "USD_TO_MXN",
  notional_currency: "USD",
  notional_amount: notional,
  provider_rate: "18.50",
  market_rate: "18.50"
})

const eurUsd = (notional: string) => ({
  direction: "EUR_TO_USD",
  notional_currency: "EUR",
  notional_amount: notional,
  provider_rate: "1.17",
  market_rate: "1.17",
  customer_reference_id: `cust-${newKey()}`
})

const quote = (baseUrl: string, key: Key, body: Record<string, unknown>) =>
  Effect.flatMap(quoteBody(body), (b) => request(baseUrl, "POST", "/api/v1/fx/quotes", { key, body: b }))

const contract = (baseUrl: string, key: Key, quoteId: string) =>
  request(baseUrl, "POST", "/api/v1/fx/contracts", { key, body: { quote_id: quoteId } })

const usage = (corridor: string) =>
  Effect.map(CorridorLimits.show({ environment: "sandbox" }), (shown) => {
    const found = shown.corridors.find((c) => c.corridor === corridor)!
    return found.open_notional
  })

const outcome = (r: Reply) => `${r.status} ${r.json?.error?.code ?? "created"}`

const tally = (replies: ReadonlyArray<Reply>) => {
  const counts: Record<string, number> = {}
  for (const r of replies) counts[outcome(r)] = (counts[outcome(r)] ?? 0) + 1
  return counts
}

const suite = (it: Vitest.MethodsNonLive<Provided>) => {
  it.effect("quotes fail corridor_capacity_exceeded exactly past the limit; contract creation checks again (409)", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const key = a.sandbox
      yield* CorridorLimits.set("sandbox", "USD_TO_MXN", { maxOpenNotional: Money.unsafe("30000") })

      const first = yield* quote(baseUrl, key, usdMxn("20000"))
      assert.strictEqual((yield* contract(baseUrl, key, first.json.id)).status, 201)
      assert.strictEqual(yield* usage("USD_TO_MXN"), "20000")

      // 10,000.01 more would breach: a failed quote, stored, amounts "0"
      const over = yield* quote(baseUrl, key, usdMxn("10000.01"))
      assert.deepStrictEqual(
        [over.status, over.json.status, over.json.failure_reason.code],
        [201, "failed", "corridor_capacity_exceeded"]
      )
      assert.deepStrictEqual([over.json.premium_amount, over.json.total_amount], ["0", "0"])
      assert.notMatch(over.json.failure_reason.message, /[0-9]/, "no figure of the corridor's use")
      assert.strictEqual((yield* contract(baseUrl, key, over.json.id)).json.error.code, "quote_not_accepted")

      // exactly up to the limit: priced, twice (a quote reserves nothing)
      const second = yield* quote(baseUrl, key, usdMxn("10000"))
      const third = yield* quote(baseUrl, key, usdMxn("10000"))
      assert.deepStrictEqual([second.json.status, third.json.status], ["created", "created"])
      assert.strictEqual((yield* contract(baseUrl, key, second.json.id)).status, 201)
      assert.strictEqual(yield* usage("USD_TO_MXN"), "30000")

      // the capacity went meanwhile: 409, the quote stays unaccepted
      const refused = yield* contract(baseUrl, key, third.json.id)
      assert.deepStrictEqual([refused.status, refused.json.error.code], [409, "corridor_capacity_exceeded"])
      assert.include(refused.json.error.message, "USD_TO_MXN")
      const after = yield* quote(baseUrl, key, usdMxn("0.01"))
      assert.strictEqual(after.json.failure_reason.code, "corridor_capacity_exceeded")

      // the operator raises the limit: the same quote becomes a contract
      yield* CorridorLimits.set("sandbox", "USD_TO_MXN", { maxOpenNotional: Money.unsafe("40000") })
      assert.strictEqual((yield* contract(baseUrl, key, third.json.id)).status, 201)
      assert.strictEqual(yield* usage("USD_TO_MXN"), "40000")

      // max_net_delta holds the same bound; max_lock_notional caps one lock (the same code, its own message)
      yield* CorridorLimits.set("sandbox", "USD_TO_MXN", {
        maxOpenNotional: null,
        maxNetDelta: Money.unsafe("45000"),
        maxLockNotional: Money.unsafe("4000")
      })
      const big = yield* quote(baseUrl, key, usdMxn("4000.01"))
      assert.strictEqual(big.json.failure_reason.code, "corridor_capacity_exceeded")
      assert.match(big.json.failure_reason.message, /largest single lock of 4000 USD/)
      const fits = yield* quote(baseUrl, key, usdMxn("4000"))
      assert.strictEqual((yield* contract(baseUrl, key, fits.json.id)).status, 201)
      const delta = yield* quote(baseUrl, key, usdMxn("1000.01"))
      assert.strictEqual(delta.json.failure_reason.code, "corridor_capacity_exceeded")
      // the other environment's corridor has limits of its own
      const production = yield* quote(baseUrl, a.production, usdMxn("20000"))
      assert.strictEqual(production.json.status, "created")
      // a limit lowered under what is held refuses contract creation for a quote priced before
      yield* CorridorLimits.set("sandbox", "USD_TO_MXN", {
        maxNetDelta: null,
        maxLockNotional: null,
        maxOpenNotional: Money.unsafe("60000")
      })
      const priced = yield* quote(baseUrl, key, usdMxn("100"))
      yield* CorridorLimits.set("sandbox", "USD_TO_MXN", { maxOpenNotional: Money.unsafe("44000") })
      assert.strictEqual((yield* contract(baseUrl, key, priced.json.id)).json.error.code, "corridor_capacity_exceeded")
      yield* CorridorLimits.set("sandbox", "USD_TO_MXN", { maxOpenNotional: null })
    })
  )

  it.effect("50 concurrent contract creations against the last 1,000 EUR of a corridor: 10 of 100 EUR, no more", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      yield* CorridorLimits.set("sandbox", "EUR_TO_USD", { maxOpenNotional: Money.unsafe("1000") })
      const quotes = yield* Effect.forEach(Array.from({ length: 50 }), () => quote(baseUrl, a.sandbox, eurUsd("100")))
      assert.isTrue(quotes.every((q) => q.json.status === "created"))
      const replies = yield* Effect.forEach(quotes, (q) => contract(baseUrl, a.sandbox, q.json.id), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(tally(replies), { "201 created": 10, "409 corridor_capacity_exceeded": 40 })
      assert.strictEqual(yield* usage("EUR_TO_USD"), "1000")
      yield* CorridorLimits.set("sandbox", "EUR_TO_USD", { maxOpenNotional: null })
    })
  )
}

layer(serverLayer(), { excludeTestServices: true, timeout: "120 seconds" })("corridor limits, embedded store", suite)

layer(serverLayer({ store: "memory" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "corridor limits, memory store",
  suite
)

describe.skipIf(Postgres.databaseUrl === undefined)("corridor limits, PostgreSQL (needs DATABASE_URL)", () => {
  layer(Postgres.layer(Postgres.databaseUrl ?? ""), { excludeTestServices: true, timeout: "120 seconds" })(
    "corridor limits, PostgreSQL",
    suite
  )
})

describe.skipIf(serverUrl === undefined)("corridor limits, two API processes on one PostgreSQL", () => {
  vitest(
    "50 concurrent contract creations against the last capacity never exceed the limit",
    { timeout: 170_000 },
    () =>
      withCluster(serverUrl!, { prefix: "ratelock_limits" }, async ({ cluster, partner, db }) => {
        // the operator sets the limit with the CLI, on the database both API processes use
        const set = await cliJson(
          db.url,
          "limits",
          "set",
          "--environment",
          "sandbox",
          "--corridor",
          "USD_TO_BRL",
          "--max-open-notional",
          "100000"
        )
        assert.deepStrictEqual([set.max_open_notional, set.open_notional, set.headroom], ["100000", "0", "100000"])
        const [a, b] = await Promise.all([cluster.startApi("api-a"), cluster.startApi("api-b")])
        const driver = new Driver({
          baseUrls: [a.baseUrl, b.baseUrl],
          key: { keyId: partner.keyId, secret: partner.secret },
          fund: async () => {},
          waitActive: async () => {},
          sockets: 64
        })
        try {
          // 92,000 USD held: 8,000 left, for 4 locks of 2,000
          const held = await Promise.all(
            Array.from({ length: 46 }, async (_, n) => {
              const q = await driver.quote(
                Requests.quoteAt(DateTime.nowUnsafe(), { notional_amount: "2000", customer_reference_id: `held-${n}` })
              )
              return driver.contract(q.id)
            })
          )
          assert.isTrue(
            held.every((s) => s === "201"),
            held.join(", ")
          )
          const quotes = await Promise.all(
            Array.from({ length: 50 }, (_, n) =>
              driver.quote(
                Requests.quoteAt(DateTime.nowUnsafe(), { notional_amount: "2000", customer_reference_id: `race-${n}` })
              )
            )
          )
          assert.isTrue(quotes.every((q) => q.status === "created"))
          const statuses = await Promise.all(quotes.map((q) => driver.contract(q.id)))
          const count = (s: string) => statuses.filter((x) => x === s).length
          assert.deepStrictEqual([count("201"), count("409 corridor_capacity_exceeded")], [4, 46])
          const [row] = await db.query<{ readonly n: number; readonly sum: string }>(
            (sql) => sql`SELECT count(*)::int AS n, sum(notional_amount)::text AS sum FROM contracts
            WHERE environment = 'sandbox' AND direction = 'USD_TO_BRL'
              AND status IN ('quote_created', 'funds_in_route', 'active')`
          )
          assert.deepStrictEqual([row!.n, Money.format(Money.unsafe(row!.sum))], [50, "100000"])
          const shown = await cliJson(db.url, "limits", "show", "--environment", "sandbox")
          const usdBrl = shown.corridors.find((c: { corridor: string }) => c.corridor === "USD_TO_BRL")
          assert.deepStrictEqual([usdBrl.open_notional, usdBrl.headroom], ["100000", "0"])
        } finally {
          driver.close()
        }
      })
  )
})
