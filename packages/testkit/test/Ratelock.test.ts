import { assert, describe, it, layer } from "@effect/vitest"
import { MarketSnapshot, Money, Quotes } from "@ratelock/core"
import { ApiErrors } from "@ratelock/http"
import { DateTime, Duration, Effect, Result } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { Ratelock, Scenario, Simulation, TestPartner, WebhookInbox } from "../src/index.ts"

/** The illustrative snapshot with every pair's ATM vol at `vol` (a snapshot an integrator brings). */
const flatVol = (vol: string) => {
  const base = MarketSnapshot.illustrativeDocument
  const vols = Object.fromEntries(
    Object.entries(base.vols).map(([pair, pillars]) => [pair, pillars.map((pillar) => ({ ...pillar, atm: vol }))])
  )
  return Result.getOrThrow(MarketSnapshot.validate({ ...base, vols }, { now: Date.now() }))
}

describe("Ratelock.layer", () => {
  layer(Ratelock.layer)("the service in memory", (it) => {
    it.effect("a partner with working credentials in both environments", () =>
      Effect.gen(function* () {
        const ratelock = yield* Ratelock.Ratelock
        const me = yield* ratelock.client.partners.me()
        assert.deepStrictEqual(me, {
          partner_id: ratelock.partner.id,
          partner_name: "Testkit Partner",
          api_key_id: ratelock.partner.sandbox.keyId,
          environment: "sandbox"
        })
        const production = yield* ratelock.clientFor(ratelock.partner.production)
        assert.strictEqual((yield* production.partners.me()).environment, "production")
        assert.match(ratelock.partner.sandbox.secret, /^rlk_[A-Za-z0-9_-]{43}$/)
        assert.match(ratelock.partner.webhookSecret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      })
    )

    it.effect("the clock starts at a fixed instant and moves only when told", () =>
      Effect.gen(function* () {
        assert.strictEqual(DateTime.formatIso(yield* Simulation.now), Ratelock.defaultStart)
        assert.strictEqual(DateTime.formatIso(yield* DateTime.now), Ratelock.defaultStart)
        yield* Simulation.advance("90 minutes")
        assert.strictEqual(DateTime.formatIso(yield* DateTime.now), "2026-01-05T10:30:00.000Z")
      })
    )

    it.effect("fetch: paths, full URLs and Requests reach the real routes, with the error envelope", () =>
      Effect.gen(function* () {
        const ratelock = yield* Ratelock.Ratelock
        const headers = TestPartner.credentialHeaders(ratelock.partner.sandbox)
        const byPath = yield* Ratelock.fetch("/api/v1/partners/me", { headers })
        assert.strictEqual(byPath.status, 200)
        const byUrl = yield* Ratelock.fetch(new URL("/api/v1/partners/me", ratelock.baseUrl), { headers })
        assert.strictEqual(
          ((yield* Effect.promise(() => byUrl.json())) as { partner_id: string }).partner_id,
          ratelock.partner.id
        )
        const byRequest = yield* Ratelock.fetch(new Request(`${ratelock.baseUrl}/api/v1/fx/quotes`, { headers }))
        assert.strictEqual(byRequest.status, 200)
        const unknown = yield* Effect.promise(() => ratelock.handler(new Request(`${ratelock.baseUrl}/nope`)))
        assert.strictEqual(unknown.status, 404)
        assert.deepStrictEqual(yield* Effect.promise(() => unknown.json()), {
          error: { code: "not_found", message: "No such route" }
        })
        const invalid = yield* Ratelock.fetch("/api/v1/fx/quotes", {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ customer_name: "x", extra: 1 })
        })
        assert.strictEqual(invalid.status, 422)
        const body = (yield* Effect.promise(() => invalid.json())) as { detail: Array<{ loc: Array<string> }> }
        assert.isTrue(body.detail.some((d) => d.loc.join(".") === "body.extra"))
        const openapi = yield* Ratelock.fetch("/openapi.json")
        assert.strictEqual(
          ((yield* Effect.promise(() => openapi.json())) as { info: { version: string } }).info.version,
          "0.1.0"
        )
      })
    )

    it.effect("the typed client: typed successes and typed errors", () =>
      Effect.gen(function* () {
        const client = yield* Ratelock.client
        const quote = yield* Scenario.quote()
        const got = yield* client.quotes.get({ params: { quote_id: quote.id } })
        assert.strictEqual(got.id, quote.id)
        const missing = yield* client.quotes
          .get({ params: { quote_id: "00000000-0000-4000-8000-00000000ffff" } })
          .pipe(Effect.flip)
        assert.instanceOf(missing, ApiErrors.NotFound)
        const ratelock = yield* Ratelock.Ratelock
        const wrong = yield* ratelock.clientFor({ ...ratelock.partner.sandbox, secret: "rlk_wrong" })
        assert.instanceOf(yield* wrong.partners.me().pipe(Effect.flip), ApiErrors.Unauthorized)
      })
    )

    it.effect("an Effect HttpClient for code written against HttpClient", () =>
      Effect.gen(function* () {
        const ratelock = yield* Ratelock.Ratelock
        const response = yield* HttpClient.execute(HttpClientRequest.get(`${ratelock.baseUrl}/health`)).pipe(
          Effect.provide(Ratelock.layerHttpClient)
        )
        assert.deepStrictEqual(yield* response.json, { status: "ok" })
        const ready = yield* HttpClient.get(`${ratelock.baseUrl}/ready`).pipe(Effect.provide(Ratelock.layerHttpClient))
        assert.strictEqual(ready.status, 200)
      })
    )

    it.effect("core's ports and programs run on the same store", () =>
      Effect.gen(function* () {
        const ratelock = yield* Ratelock.Ratelock
        const quote = yield* Scenario.quote({ customer_reference_id: "ports" })
        const read = yield* Quotes.get({ partnerId: ratelock.partner.id, environment: "sandbox" }, quote.id)
        assert.strictEqual(read.id, quote.id)
      })
    )

    it.effect("more partners, keys and revocation", () =>
      Effect.gen(function* () {
        const other = yield* Ratelock.makePartner("Beta Remit")
        const ratelock = yield* Ratelock.Ratelock
        const client = yield* ratelock.clientFor(other.sandbox)
        assert.strictEqual((yield* client.partners.me()).partner_name, "Beta Remit")
        yield* TestPartner.revokeKey(other.sandbox)
        // a key read less than a second ago is still trusted, as in production
        yield* Simulation.advance("1 second")
        assert.instanceOf(yield* client.partners.me().pipe(Effect.flip), ApiErrors.Unauthorized)
        const fresh = yield* TestPartner.issueKey(other.id, "sandbox")
        const again = yield* ratelock.clientFor(fresh)
        assert.strictEqual((yield* again.partners.me()).api_key_id, fresh.keyId)
      })
    )
  })

  it.effect("options: start, environments, rate limit, quote TTL", () =>
    Effect.gen(function* () {
      const ratelock = yield* Ratelock.Ratelock
      assert.strictEqual(DateTime.formatIso(yield* Simulation.now), "2030-06-01T12:00:00.000Z")
      const production = yield* ratelock.clientFor(ratelock.partner.production)
      const disabled = yield* production.partners.me().pipe(Effect.flip)
      assert.instanceOf(disabled, ApiErrors.Forbidden)
      assert.strictEqual(disabled.error.code, "environment_disabled")
      const statuses: Array<number> = []
      for (let i = 0; i < 4; i++) {
        const reply = yield* Ratelock.fetch("/api/v1/partners/me", {
          headers: TestPartner.credentialHeaders(ratelock.partner.sandbox)
        })
        statuses.push(reply.status)
      }
      // the clock does not move: the bucket does not refill
      assert.deepStrictEqual(statuses, [200, 200, 429, 429])
    }).pipe(
      Effect.provide(
        Ratelock.layerWith({
          start: "2030-06-01T12:00:00Z",
          environments: { sandbox: true, production: false },
          rateLimit: { ratePerSecond: 1, burst: 2 }
        })
      )
    )
  )

  it.effect("ready: false, as when the database is unreachable", () =>
    Effect.gen(function* () {
      const ready = yield* Ratelock.fetch("/ready")
      assert.strictEqual(ready.status, 503)
      assert.strictEqual(
        ((yield* Effect.promise(() => ready.json())) as { error: { code: string } }).error.code,
        "not_ready"
      )
      assert.strictEqual((yield* Ratelock.fetch("/health")).status, 200)
    }).pipe(Effect.provide(Ratelock.layerWith({ ready: false })))
  )

  it.effect("a shorter quote TTL: a contract after it is refused", () =>
    Effect.gen(function* () {
      const quote = yield* Scenario.quote()
      yield* Simulation.advance("11 seconds")
      const ratelock = yield* Ratelock.Ratelock
      const refused = yield* ratelock.client.contracts
        .create({ headers: {}, payload: { quote_id: quote.id } })
        .pipe(Effect.flip)
      assert.instanceOf(refused, ApiErrors.Conflict)
      assert.strictEqual(refused.error.code, "quote_expired")
    }).pipe(Effect.provide(Ratelock.layerWith({ quotePolicy: { quoteTtl: Duration.seconds(10) } })))
  )

  it.effect("the same scenario gives the same ids, addresses, times and webhook bodies", () =>
    Effect.gen(function* () {
      const run = Effect.gen(function* () {
        yield* WebhookInbox.failNext(2)
        const contract = yield* Scenario.activeContract()
        yield* Scenario.exercise(contract.id, "5.20")
        yield* Simulation.advance("1 hour")
        return (yield* WebhookInbox.deliveries).map((d) => ({ headers: d.headers, body: d.body, status: d.status }))
      })
      const first = yield* run.pipe(Effect.provide(Ratelock.layer))
      const second = yield* run.pipe(Effect.provide(Ratelock.layer))
      assert.strictEqual(first.length, 4)
      assert.deepStrictEqual(first, second)
    })
  )

  it.effect("prices from a market snapshot of the integrator's own: a dearer vol, a dearer quote", () =>
    Effect.gen(function* () {
      const quoteUnder = (vol: string) =>
        Scenario.quote({ customer_reference_id: `vol-${vol}` }).pipe(
          Effect.provide(Ratelock.layerWith({ marketData: flatVol(vol) }))
        )
      const calm = yield* quoteUnder("0.14")
      const stormy = yield* quoteUnder("0.28")
      assert.strictEqual(calm.status, "created")
      assert.strictEqual(stormy.status, "created")
      assert.isTrue(Money.greaterThan(stormy.premium_amount, calm.premium_amount))
    })
  )
})
