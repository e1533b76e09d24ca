/**
 * The operator API over real sockets, as the host runs it: the partner listener and the operator
 * listener side by side on ephemeral ports, over one embedded Postgres. Token auth (missing,
 * wrong, revoked, a partner key), each listener refusing the other's routes, the status and market
 * JSON, and the snapshot import (accepted, refused item by item, the same document twice). The
 * market JSON is compared with what `ratelock market show --json` prints for the same document.
 */
import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, describe, layer } from "@effect/vitest"
import { HotWalletRepo, MarketSnapshot, Money, OperatorTokens, Treasury, WorkerHeartbeatRepo } from "@ratelock/core"
import { DateTime, Effect, Layer, Result, Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import { HttpApi } from "effect/http-api"
import { Deliveries, MarketView, OperatorApi, Status, Treasury as TreasuryView } from "../src/api/OperatorApi.ts"
import { ChainAvailability } from "../src/server/ChainAvailability.ts"
import { assertInvalid, request } from "./support/http.ts"
import * as Operator from "./support/operator.ts"
import { cli, cliJson, removeTempDirs, tempDataDir } from "./support/process.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"

afterAll(removeTempDirs)

const examplePath = join(import.meta.dirname, "..", "..", "..", "docs", "market", "example-snapshot.json")
const example = readFileSync(examplePath, "utf8")

/** The hot wallets' thresholds, as `RATELOCK_POLYGON_HOT_WALLET_MIN_NATIVE=5` and `…_USDC=10000` give them. */
const thresholds: Treasury.ThresholdsShape = { polygon: { NATIVE: Money.unsafe("5"), USDC: Money.unsafe("10000") } }

/** Production served, the sandbox not (`RATELOCK_SANDBOX=false`): the other way round from the default. */
const served = { sandbox: false, production: true }

const both = Operator.layer.pipe(
  Layer.provide(Layer.succeed(Treasury.Thresholds, thresholds)),
  Layer.provide(Layer.succeed(ChainAvailability, served)),
  Layer.provideMerge(serverLayer())
)

/** A call to the operator listener with `headers` (the test's live token unless told otherwise). */
const operator = (method: string, path: string, options: { headers?: Record<string, string>; body?: string } = {}) =>
  Effect.flatMap(Operator.Operator, ({ url, token }) =>
    request(url, method, path, {
      headers: options.headers ?? Operator.bearer(token),
      ...(options.body === undefined ? {} : { body: options.body })
    })
  )

const isUnauthorized = (reply: { status: number; json: unknown; headers: Headers }) => {
  assert.strictEqual(reply.status, 401)
  assert.deepStrictEqual(reply.json, {
    error: {
      code: "unauthorized",
      message: "Missing or invalid operator token: send Authorization: Bearer <operator token>"
    }
  })
  assert.strictEqual(reply.headers.get("www-authenticate"), 'Bearer realm="ratelock-operator"')
}

const operatorRoutes = [
  ["GET", "/metrics"],
  ["GET", "/operator/v1/status"],
  ["GET", "/operator/v1/market"],
  ["POST", "/operator/v1/market/snapshots"],
  ["GET", "/operator/v1/deliveries"],
  ["GET", "/operator/v1/payouts"],
  ["GET", "/operator/v1/payouts/4f1c1a52-0000-4000-8000-000000000000"],
  ["GET", "/operator/v1/treasury"],
  ["GET", "/operator/openapi.json"]
] as const

layer(both, { excludeTestServices: true, timeout: "120 seconds" })("operator API", (it) => {
  describe("operator tokens", () => {
    it.effect("every operator route answers 401 without a token, with a wrong one, or with another scheme", () =>
      Effect.gen(function* () {
        const { token } = yield* Operator.Operator
        const wrongs: ReadonlyArray<Record<string, string>> = [
          {},
          { Authorization: "Bearer" },
          { Authorization: "Bearer rlop_wrong" },
          { Authorization: `Bearer ${token}x` },
          { Authorization: `Basic ${Buffer.from(`operator:${token}`).toString("base64")}` },
          { Authorization: token }
        ]
        for (const [method, path] of operatorRoutes) {
          for (const headers of wrongs) {
            isUnauthorized(yield* operator(method, path, { headers, ...(method === "POST" ? { body: example } : {}) }))
          }
        }
        // nothing was imported by the refused POSTs
        assert.deepStrictEqual((yield* operator("GET", "/operator/v1/market")).json, { snapshot: null })
      })
    )

    it.effect("a partner's API key is not an operator token, however it is sent", () =>
      Effect.gen(function* () {
        const { a } = yield* TestServer
        const partnerHeaders = {
          "X-Partner-Key-Id": a.sandbox.keyId,
          "X-Partner-Key-Secret": a.sandbox.secret,
          "X-Partner-Environment": "sandbox"
        }
        for (const headers of [partnerHeaders, { Authorization: `Bearer ${a.sandbox.secret}` }]) {
          isUnauthorized(yield* operator("GET", "/operator/v1/status", { headers }))
          isUnauthorized(yield* operator("GET", "/metrics", { headers }))
        }
      })
    )

    it.effect("a revoked token is refused from its next request; the others keep working", () =>
      Effect.gen(function* () {
        const created = yield* OperatorTokens.create({ name: "to revoke", role: "admin" })
        const headers = Operator.bearer(created.token)
        assert.strictEqual((yield* operator("GET", "/operator/v1/status", { headers })).status, 200)
        assert.strictEqual((yield* operator("GET", "/metrics", { headers })).status, 200)
        yield* OperatorTokens.revoke(created.token_id)
        isUnauthorized(yield* operator("GET", "/operator/v1/status", { headers }))
        isUnauthorized(yield* operator("GET", "/metrics", { headers }))
        assert.strictEqual((yield* operator("GET", "/operator/v1/status")).status, 200)
      })
    )
  })

  describe("two listeners, two sets of routes", () => {
    it.effect("the partner listener answers 404 for /metrics and /operator/..., token or not", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const { token } = yield* Operator.Operator
        for (const [method, path] of [...operatorRoutes, ["GET", "/operator/v1/unknown"]] as const) {
          for (const headers of [{}, Operator.bearer(token)]) {
            const reply = yield* request(baseUrl, method, path, { headers })
            assert.strictEqual(reply.status, 404, `${method} ${path}`)
            assert.strictEqual(reply.json.error.code, "not_found")
          }
        }
        // and its own document names none of them
        const spec = (yield* request(baseUrl, "GET", "/openapi.json")).json
        assert.isFalse(Object.keys(spec.paths).some((path) => path === "/metrics" || path.startsWith("/operator")))
      })
    )

    it.effect("the operator listener answers 404 for the partner API's routes, credentials or not", () =>
      Effect.gen(function* () {
        const { a } = yield* TestServer
        const partnerRoutes = [
          ["GET", "/health"],
          ["GET", "/ready"],
          ["GET", "/openapi.json"],
          ["GET", "/docs"],
          ["GET", "/api/v1/partners/me"],
          ["POST", "/api/v1/fx/quotes"]
        ] as const
        for (const [method, path] of partnerRoutes) {
          const reply = yield* operator(method, path, {
            headers: {
              "X-Partner-Key-Id": a.sandbox.keyId,
              "X-Partner-Key-Secret": a.sandbox.secret,
              "X-Partner-Environment": "sandbox"
            }
          })
          assert.strictEqual(reply.status, 404, `${method} ${path}`)
          assert.strictEqual(reply.json.error.code, "not_found")
        }
      })
    )

    it.effect("/operator/openapi.json: a valid OpenAPI 3.1 document of the operator routes alone, bearer-secured", () =>
      Effect.gen(function* () {
        const { url } = yield* Operator.Operator
        const reply = yield* operator("GET", "/operator/openapi.json")
        assert.strictEqual(reply.status, 200)
        const spec = reply.json
        // the routes of OperatorApi, each once, and nothing of the partner API
        const declared = new Set<string>()
        HttpApi.reflect(OperatorApi, {
          onGroup: () => {},
          onEndpoint: ({ endpoint }) => declared.add(endpoint.path.replace(/:(\w+)/g, "{$1}"))
        })
        assert.deepStrictEqual(Object.keys(spec.paths).sort(), [...declared].sort())
        assert.isTrue(Object.keys(spec.paths).every((path) => path === "/metrics" || path.startsWith("/operator/")))
        assert.deepStrictEqual(spec.components.securitySchemes.operatorToken, { type: "http", scheme: "Bearer" })
        for (const item of Object.values<Record<string, { security: unknown; responses: object }>>(spec.paths)) {
          for (const operation of Object.values(item)) {
            assert.deepStrictEqual(operation.security, [{ operatorToken: [] }])
            assert.property(operation.responses, "401")
            assert.property(operation.responses, "403")
          }
        }
        assert.deepStrictEqual(spec.servers, [{ url }])
        yield* Effect.promise(() => SwaggerParser.validate(structuredClone(spec)))
      })
    )
  })

  describe("status", () => {
    it.effect("versions, the database and its migrations, the backlogs per environment, the workers seen", () =>
      Effect.gen(function* () {
        // a worker process's heartbeats, as its loops write them
        const now = yield* DateTime.now
        yield* (yield* WorkerHeartbeatRepo.WorkerHeartbeatRepo).beat([
          { owner: "worker-host:42", pass: "payouts", lastPassAt: DateTime.subtract(now, { seconds: 3 }), ok: true },
          { owner: "worker-host:42", pass: "deliveries", lastPassAt: now, ok: false }
        ])
        const reply = yield* operator("GET", "/operator/v1/status")
        assert.strictEqual(reply.status, 200)
        const status = Schema.decodeUnknownSync(Status)(reply.json)
        assert.strictEqual(status.versions.ratelock, "0.1.0")
        assert.strictEqual(status.versions.node, process.version)
        assert.match(status.versions.effect, /^4\./)
        assert.deepStrictEqual([status.process.role, status.process.name], ["api", "operator-test:1"])
        assert.strictEqual(status.database.kind, "embedded")
        assert.strictEqual(status.database.migrations[0], "1_initial")
        assert.include(status.database.migrations, "10_operator_tokens")
        assert.deepStrictEqual(
          status.environments.map((e) => e.environment),
          ["sandbox", "production"]
        )
        for (const e of status.environments) {
          // as the host serves them, which the console opens on
          assert.strictEqual(e.served, served[e.environment], e.environment)
          assert.deepStrictEqual(e.outbox, { undelivered: 0, oldest_undelivered_age_seconds: null })
          assert.deepStrictEqual(e.payouts, { awaiting_confirmation: 0, oldest_awaiting_age_seconds: null, failed: 0 })
          assert.strictEqual(e.unmatched_funds, 0)
        }
        const worker = status.workers.find((w) => w.owner === "worker-host:42")!
        assert.deepStrictEqual(
          worker.passes.map((p) => [p.pass, p.ok]),
          [
            ["deliveries", false],
            ["payouts", true]
          ]
        )
        assert.strictEqual(worker.last_seen_at, DateTime.formatIso(now))
        assert.isAtLeast(worker.passes[1]!.age_seconds, 3)
      })
    )
  })

  describe("deliveries", () => {
    it.effect("per environment, the partners whose webhooks retry or failed: none on a new service", () =>
      Effect.gen(function* () {
        for (const [query, environment] of [
          ["", "production"],
          ["?environment=sandbox", "sandbox"],
          ["?environment=production", "production"]
        ] as const) {
          const reply = yield* operator("GET", `/operator/v1/deliveries${query}`)
          assert.strictEqual(reply.status, 200, reply.text)
          const deliveries = Schema.decodeUnknownSync(Deliveries)(reply.json)
          assert.deepStrictEqual({ ...deliveries, checked_at: "" }, { checked_at: "", environment, partners: [] })
        }
        assertInvalid(yield* operator("GET", "/operator/v1/deliveries?environment=staging"), ["query.environment:enum"])
      })
    )
  })

  describe("market data", () => {
    it.effect("import: 201 with its id, hash and as_of; the same document again: 200, the same id", () =>
      Effect.gen(function* () {
        const first = yield* operator("POST", "/operator/v1/market/snapshots", { body: example })
        assert.strictEqual(first.status, 201, first.text)
        const document = Result.getOrThrow(MarketSnapshot.validateJson(example, { now: Date.now() }))
        assert.deepInclude(first.json, {
          hash: yield* MarketSnapshot.hash(document),
          as_of: DateTime.formatIso(document.as_of),
          source: document.source,
          created: true
        })
        assert.match(first.json.snapshot_id, /^[0-9a-f-]{36}$/)
        // the same market data written another way (indented differently) is the same snapshot
        const again = yield* operator("POST", "/operator/v1/market/snapshots", {
          body: JSON.stringify(JSON.parse(example), null, 4)
        })
        assert.strictEqual(again.status, 200)
        assert.deepStrictEqual(again.json, { ...first.json, created: false })
      })
    )

    it.effect(
      "a refused document: 422 with every rule it breaks, as core's validation lists them; nothing stored",
      () =>
        Effect.gen(function* () {
          const before = (yield* operator("GET", "/operator/v1/market")).json
          const broken = JSON.parse(example)
          broken.as_of = "yesterday"
          delete broken.source
          broken.spot.USD_BRL = "-5"
          const body = JSON.stringify(broken)
          const reply = yield* operator("POST", "/operator/v1/market/snapshots", { body })
          assert.strictEqual(reply.status, 422)
          assert.strictEqual(reply.json.error.code, "validation_error")
          const expected = MarketSnapshot.validateJson(body, { now: Date.now() })
          assert.isTrue(Result.isFailure(expected))
          if (Result.isFailure(expected)) assert.deepStrictEqual(reply.json.detail, expected.failure)
          assert.isAtLeast(reply.json.detail.length, 3)
          assert.sameMembers(
            reply.json.detail.map((item: { loc: ReadonlyArray<string> }) => item.loc.join(".")),
            expected.pipe(Result.match({ onFailure: (f) => f.map((i) => i.loc.join(".")), onSuccess: () => [] }))
          )
          // text that is not JSON is refused the same way, with its own item
          const notJson = yield* operator("POST", "/operator/v1/market/snapshots", { body: "{ not json" })
          assert.strictEqual(notJson.status, 422)
          assert.strictEqual(notJson.json.detail[0].type, "json_invalid")
          // a body sent as something else than JSON is refused before it is read
          const { token } = yield* Operator.Operator
          const form = yield* operator("POST", "/operator/v1/market/snapshots", {
            headers: { ...Operator.bearer(token), "content-type": "text/plain" },
            body: example
          })
          assert.strictEqual(form.status, 415)
          assert.strictEqual(form.json.error.code, "unsupported_media_type")
          // the same snapshot in force (its age has moved on by the time it is read again)
          const ageless = (market: { snapshot: object | null }) => ({
            ...market,
            snapshot: { ...market.snapshot, age_seconds: 0 }
          })
          assert.deepStrictEqual(ageless((yield* operator("GET", "/operator/v1/market")).json), ageless(before))
        })
    )

    it.effect(
      "GET /operator/v1/market is what ratelock market show --json prints for the same document",
      () =>
        Effect.gen(function* () {
          yield* operator("POST", "/operator/v1/market/snapshots", { body: example })
          const reply = yield* operator("GET", "/operator/v1/market")
          assert.strictEqual(reply.status, 200)
          const dir = tempDataDir()
          const imported = yield* Effect.promise(() => cli(dir, "market", "import", examplePath))
          assert.strictEqual(imported.code, 0, imported.stderr)
          const shown = yield* Effect.promise(() => cliJson(dir, "market", "show"))
          assert.deepStrictEqual(Object.keys(reply.json.snapshot).sort(), Object.keys(shown.snapshot).sort())
          for (const field of ["hash", "as_of", "source"]) {
            assert.strictEqual(reply.json.snapshot[field], shown.snapshot[field], field)
          }
          assert.isAtMost(Math.abs(reply.json.snapshot.age_seconds - shown.snapshot.age_seconds), 120)
          assert.isAbove(reply.json.corridors.length, 0)
          assert.deepStrictEqual(reply.json.corridors, shown.corridors)
          // each currency's curve and each pair's vols, as the console draws them
          Schema.decodeUnknownSync(MarketView)(reply.json)
          assert.deepStrictEqual(
            reply.json.curves.map((c: { currency: string }) => c.currency),
            [...MarketSnapshot.servedCurrencies]
          )
          assert.deepStrictEqual(
            reply.json.vols.map((v: { pair: string }) => v.pair),
            [...MarketSnapshot.servedPairs]
          )
          assert.lengthOf(reply.json.vols, 6)
          assert.deepStrictEqual(reply.json.curves, shown.curves)
          assert.deepStrictEqual(reply.json.vols, shown.vols)
        }),
      // two CLI processes, each opening an embedded database: as slow as the CLI's own tests
      { timeout: 120_000 }
    )

    it.effect("the status shows the snapshot in force, its age, and that production may not price from it", () =>
      Effect.gen(function* () {
        yield* operator("POST", "/operator/v1/market/snapshots", { body: example })
        const status = (yield* operator("GET", "/operator/v1/status")).json
        const market = (yield* operator("GET", "/operator/v1/market")).json.snapshot
        assert.strictEqual(status.market.snapshot_id, market.snapshot_id)
        assert.strictEqual(status.market.as_of, market.as_of)
        assert.strictEqual(status.market.max_age_seconds, 900)
        // the example document is months old
        assert.isAbove(status.market.age_seconds, 900)
        assert.isFalse(status.market.fresh)
      })
    )
  })

  describe("treasury", () => {
    it.effect(
      "the hot wallets as the workers read them, against their thresholds; a wallet under its threshold degrades the status",
      () =>
        Effect.gen(function* () {
          const empty = yield* operator("GET", "/operator/v1/treasury")
          assert.strictEqual(empty.status, 200, empty.text)
          const fresh = Schema.decodeUnknownSync(TreasuryView)(empty.json)
          assert.deepStrictEqual(
            { ...fresh, checked_at: "", sweeps: [] },
            {
              checked_at: "",
              wallets: [],
              stuck_payouts: [],
              sweeps: [],
              fees: [],
              refunds_waiting: [],
              reconciliation: []
            }
          )
          // a row per rail served, nothing awaiting a sweep, nothing swept or refunded yet
          for (const row of fresh.sweeps) {
            assert.deepInclude(row, {
              awaiting_sweep: 0,
              awaiting_sweep_amount: "0",
              swept_today: "0",
              refunded_today: "0"
            })
          }
          const healthy = Schema.decodeUnknownSync(Status)((yield* operator("GET", "/operator/v1/status")).json)
          assert.deepStrictEqual([healthy.degraded, healthy.alerts], [false, []])

          // what the hot-wallet pass stores from the chain
          const readAt = DateTime.subtract(yield* DateTime.now, { seconds: 7 })
          const address = "0x00000000000000000000000000000000000000a2"
          yield* (yield* HotWalletRepo.HotWalletRepo).save([
            {
              environment: "production",
              chain: "polygon",
              asset: "NATIVE",
              address,
              amount: Money.unsafe("4.999999999999999999"),
              readAt
            },
            {
              environment: "production",
              chain: "polygon",
              asset: "USDC",
              address,
              amount: Money.unsafe("10000.000000"),
              readAt
            }
          ])
          for (const query of ["", "?environment=production"]) {
            const reply = yield* operator("GET", `/operator/v1/treasury${query}`)
            assert.strictEqual(reply.status, 200, reply.text)
            const view = Schema.decodeUnknownSync(TreasuryView)(reply.json)
            assert.deepStrictEqual(
              view.wallets.map((w) => [
                w.chain,
                w.asset,
                w.balance,
                w.min_balance,
                w.below_min,
                w.payouts_due,
                w.can_pay
              ]),
              [
                ["polygon", "NATIVE", "4.999999999999999999", "5", true, 0, true],
                ["polygon", "USDC", "10000.000000", "10000", false, 0, true]
              ]
            )
            assert.isAtLeast(view.wallets[0]!.age_seconds!, 7)
            assert.strictEqual(view.wallets[0]!.read_at, DateTime.formatIso(readAt))
          }
          const sandbox = yield* operator("GET", "/operator/v1/treasury?environment=sandbox")
          assert.deepStrictEqual(sandbox.json.wallets, [])
          assertInvalid(yield* operator("GET", "/operator/v1/treasury?environment=staging"), ["query.environment:enum"])

          const degraded = Schema.decodeUnknownSync(Status)((yield* operator("GET", "/operator/v1/status")).json)
          assert.isTrue(degraded.degraded)
          assert.deepStrictEqual(degraded.alerts, [
            {
              kind: "hot_wallet_low",
              environment: "production",
              chain: "polygon",
              asset: "NATIVE",
              message:
                "The production polygon hot wallet holds 4.999999999999999999 NATIVE, under its minimum of 5 (RATELOCK_POLYGON_HOT_WALLET_MIN_NATIVE): fund it."
            }
          ])
          // every other part of the status is still there
          assert.deepStrictEqual(
            degraded.environments.map((e) => e.environment),
            ["sandbox", "production"]
          )

          // funded at the next reading: healthy again
          yield* (yield* HotWalletRepo.HotWalletRepo).save([
            {
              environment: "production",
              chain: "polygon",
              asset: "NATIVE",
              address,
              amount: Money.unsafe("5"),
              readAt: yield* DateTime.now
            }
          ])
          const funded = Schema.decodeUnknownSync(Status)((yield* operator("GET", "/operator/v1/status")).json)
          assert.deepStrictEqual([funded.degraded, funded.alerts], [false, []])
        })
    )
  })
})
