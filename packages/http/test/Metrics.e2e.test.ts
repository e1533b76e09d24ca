/**
 * `/metrics` as Prometheus scrapes it: the operator listener beside the service with its workers
 * running (`lifecycleServer.ts`), the text parsed by a Prometheus text-format parser from npm
 * (`prom2javascript`: one entry per family, one datum per label set, histograms checked for
 * consistency), never by a regex. A whole lifecycle moves the counters it should, and no label
 * anywhere carries a secret, a key id, a customer reference, a wallet address or a contract id.
 * The rate limiter's refusals are counted per partner, on a server with a tiny budget.
 */
import { assert, layer } from "@effect/vitest"
import { WorkerPasses } from "@ratelock/core"
import { Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { getMetricsFromIterator, type PromMetrics } from "prom2javascript"
import { quoteBody, request } from "./support/http.ts"
import * as Lifecycle from "./support/lifecycleServer.ts"
import * as Operator from "./support/operator.ts"
import { call, exerciseAt, inbound, newContract, waitEvent, waitStatus } from "./support/partnerFlow.ts"
import { waitFor } from "./support/wait.ts"
import { layer as serverLayer, TestServer } from "./support/server.ts"
import { Receiver } from "./support/webhookReceiver.ts"

const scrape = Effect.gen(function* () {
  const { url, token } = yield* Operator.Operator
  const reply = yield* request(url, "GET", "/metrics", { headers: Operator.bearer(token) })
  assert.strictEqual(reply.status, 200)
  assert.strictEqual(reply.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8")
  return yield* Effect.promise(() => getMetricsFromIterator(reply.text.split("\n")[Symbol.iterator]()))
})

type Datum = { readonly labels: Record<string, string>; readonly value?: number; readonly count?: number }

/**
 * The value (a histogram: its count) of the datum of `name` whose labels include `labels`, summed
 * over the data that match (0 when there is none yet).
 */
const valueOf = (metrics: PromMetrics, name: string, labels: Record<string, string> = {}): number =>
  ((metrics[name]?.data ?? []) as ReadonlyArray<Datum>)
    .filter((d) => Object.entries(labels).every(([k, v]) => d.labels[k] === v))
    .reduce((sum, d) => sum + (d.value ?? d.count ?? 0), 0)

/** Every label of every datum: name → the values it took. */
const labelsOf = (metrics: PromMetrics) => {
  const labels = new Map<string, Set<string>>()
  for (const family of Object.values(metrics)) {
    for (const datum of family.data as ReadonlyArray<Datum>) {
      for (const [key, value] of Object.entries(datum.labels)) {
        labels.set(key, (labels.get(key) ?? new Set()).add(value))
      }
    }
  }
  return labels
}

/** The only label names there are: none of them can carry a secret or a customer's data. */
const allowedLabels = [
  "listener",
  "method",
  "route",
  "status",
  "environment",
  "partner_id",
  "from",
  "to",
  "outcome",
  "reason",
  "chain",
  "token",
  "operation",
  "pair",
  "corridor",
  "venue",
  "asset",
  "kind"
]

const examplePath = join(import.meta.dirname, "..", "..", "..", "docs", "market", "example-snapshot.json")

const both = Operator.layer.pipe(Layer.provideMerge(Lifecycle.layer({ confirmDelay: "100 millis" })))

layer(both, { excludeTestServices: true, timeout: "120 seconds" })("/metrics", (it) => {
  it.effect("counters move as a lifecycle runs; no secret, key or customer reference in any label", () =>
    Effect.gen(function* () {
      const server = yield* Lifecycle.Lifecycle
      const receiver = yield* Receiver
      const before = yield* scrape
      const sandbox = { environment: "sandbox" }

      // a quote the rules refuse (its window ended), then a whole lifecycle: quote, contract, funds,
      // exercise, payout
      const refused = yield* call("POST", "/api/v1/fx/quotes", {
        body: yield* quoteBody({ window_end: "2020-01-01T00:00:00Z" })
      })
      assert.strictEqual(refused.status, 422)
      const { contract, customer } = yield* newContract()
      const route = yield* inbound({
        event_type: "funds_in_route",
        fx_contract_id: contract.id,
        amount: contract.total_amount
      })
      assert.strictEqual(route.status, 200)
      yield* waitEvent(contract.id, "funds_received")
      const exercised = yield* exerciseAt(contract.id, "5.0")
      assert.strictEqual(exercised.status, 200)
      yield* waitEvent(contract.id, "payout_settled")
      yield* waitStatus(customer, "settled")

      // the deliveries' counters are written as each pass records its attempts: wait for them
      const after = yield* waitFor(
        "the payout_settled delivery counted",
        Effect.map(scrape, (families) =>
          valueOf(families, "ratelock_webhook_delivery_attempts_total", { partner_id: server.partnerId }) -
            valueOf(before, "ratelock_webhook_delivery_attempts_total", { partner_id: server.partnerId }) >=
          2
            ? families
            : undefined
        )
      )
      const moved = (name: string, labels: Record<string, string> = {}) =>
        valueOf(after, name, labels) - valueOf(before, name, labels)

      // one contract created, then through funds_in_route, active, exercised, settled
      assert.strictEqual(moved("ratelock_contract_transitions_total", { from: "none", to: "quote_created" }), 1)
      for (const [from, to] of [
        ["quote_created", "funds_in_route"],
        ["funds_in_route", "active"],
        ["active", "exercised"],
        ["exercised", "settled"]
      ] as const) {
        assert.strictEqual(moved("ratelock_contract_transitions_total", { from, to }), 1, `${from} → ${to}`)
      }
      assert.strictEqual(moved("ratelock_quotes_total", { ...sandbox, outcome: "created", reason: "none" }), 1)
      assert.strictEqual(
        moved("ratelock_quotes_total", { ...sandbox, outcome: "refused", reason: "validation_error" }),
        1
      )
      const rail = { chain: contract.chain, environment: "sandbox" }
      assert.strictEqual(moved("ratelock_payouts_total", { ...rail, outcome: "sent" }), 1)
      assert.strictEqual(moved("ratelock_payouts_total", { ...rail, outcome: "confirmed" }), 1)
      assert.isAtLeast(moved("ratelock_funding_watches_total", { ...rail, token: contract.settlement_currency }), 1)
      assert.isAtLeast(
        moved("ratelock_chain_call_duration_seconds", { ...rail, operation: "draft_payout", outcome: "ok" }),
        1
      )
      assert.isAtLeast(moved("ratelock_chain_call_duration_seconds", { ...rail, operation: "observe_funding" }), 1)
      assert.strictEqual(
        moved("ratelock_webhook_delivery_failures_total", { partner_id: server.partnerId, ...sandbox }),
        0
      )
      assert.strictEqual(
        moved("ratelock_http_requests_total", {
          listener: "partner",
          method: "POST",
          route: "/api/v1/fx/quotes",
          status: "201"
        }),
        1
      )
      assert.strictEqual(
        moved("ratelock_http_requests_total", {
          listener: "partner",
          method: "POST",
          route: "/api/v1/fx/quotes",
          status: "422"
        }),
        1
      )
      assert.isAtLeast(
        moved("ratelock_http_request_duration_seconds", {
          listener: "partner",
          method: "POST",
          route: "/api/v1/fx/webhooks/inbound"
        }),
        2
      )
      // the gauges sampled from the store at the scrape
      for (const name of [
        "ratelock_outbox_undelivered_events",
        "ratelock_outbox_oldest_undelivered_age_seconds",
        "ratelock_payouts_awaiting_confirmation",
        "ratelock_payouts_failed",
        "ratelock_unmatched_funds"
      ]) {
        const family = after[name]
        assert.strictEqual(family?.type, "gauge", name)
        assert.sameMembers(
          (family!.data as ReadonlyArray<Datum>).map((d) => d.labels.environment),
          ["sandbox", "production"],
          name
        )
      }
      assert.strictEqual(valueOf(after, "ratelock_payouts_awaiting_confirmation", sandbox), 0)
      // no snapshot imported: infinitely old (+Inf), so an alert on its age fires
      assert.strictEqual(valueOf(after, "ratelock_market_snapshot_age_seconds"), Number.POSITIVE_INFINITY)
      const { url, token } = yield* Operator.Operator
      const imported = yield* request(url, "POST", "/operator/v1/market/snapshots", {
        headers: Operator.bearer(token),
        body: readFileSync(examplePath, "utf8")
      })
      assert.strictEqual(imported.status, 201)
      const status = (yield* request(url, "GET", "/operator/v1/status", { headers: Operator.bearer(token) })).json
      const age = valueOf(yield* scrape, "ratelock_market_snapshot_age_seconds")
      assert.isAtLeast(age, status.market.age_seconds)
      assert.isAtMost(age, status.market.age_seconds + 60)

      // no label says more than the allowed names, and none of their values is a secret or a customer's
      const labels = labelsOf(after)
      for (const name of labels.keys()) assert.include(allowedLabels, name)
      const secrets = [
        server.sandbox.secret,
        server.sandbox.keyId,
        server.production.secret,
        server.production.keyId,
        receiver.secret,
        customer,
        contract.id,
        contract.funding_wallet_address,
        "0x1111111111111111111111111111111111111111",
        (yield* Operator.Operator).token
      ]
      const values = [...labels.values()].flatMap((set) => [...set])
      for (const secret of secrets) {
        for (const value of values) assert.notInclude(value.toLowerCase(), String(secret).toLowerCase())
      }
      assert.sameMembers([...labels.get("partner_id")!], [server.partnerId])
    })
  )

  it.effect("the workers' heartbeats reach the status: every pass seen, each with its last run", () =>
    Effect.gen(function* () {
      const { url, token } = yield* Operator.Operator
      const passes = WorkerPasses.passes.map((p) => p.name)
      // each process writes its notes every 5 s: wait for the write that has every pass
      const status = yield* waitFor(
        "the workers' heartbeats of every pass",
        Effect.map(request(url, "GET", "/operator/v1/status", { headers: Operator.bearer(token) }), (reply) => {
          const worker = reply.json.workers.find((w: { owner: string }) => w.owner === "lifecycle-test")
          return worker?.passes.length === passes.length ? worker : undefined
        })
      )
      assert.sameMembers(
        status.passes.map((p: { pass: string }) => p.pass),
        [
          "funding",
          "funding-deadline",
          "payouts",
          "expiry",
          "deliveries",
          "late-funds",
          "revaluation",
          "hedging",
          "hot-wallets",
          "sweeps",
          "movements",
          "reconciliation",
          "daily-close"
        ]
      )
      for (const pass of status.passes) assert.isTrue(pass.ok, pass.pass)
    })
  )
})

const limited = Operator.layer.pipe(Layer.provideMerge(serverLayer({ rateLimit: { ratePerSecond: 1, burst: 2 } })))

layer(limited, { excludeTestServices: true, timeout: "60 seconds" })("/metrics and the rate limiter", (it) => {
  it.effect("each 429 is counted for its partner and environment, never its key", () =>
    Effect.gen(function* () {
      const { baseUrl, a } = yield* TestServer
      const before = yield* scrape
      const replies = yield* Effect.forEach(Array.from({ length: 6 }), () =>
        request(baseUrl, "GET", "/api/v1/partners/me", { key: a.sandbox })
      )
      const refused = replies.filter((r) => r.status === 429).length
      assert.isAtLeast(refused, 1)
      const after = yield* scrape
      const labels = { partner_id: a.id, environment: "sandbox" }
      assert.strictEqual(
        valueOf(after, "ratelock_rate_limited_total", labels) - valueOf(before, "ratelock_rate_limited_total", labels),
        refused
      )
      assert.strictEqual(
        valueOf(after, "ratelock_http_requests_total", { route: "/api/v1/partners/me", status: "429" }) -
          valueOf(before, "ratelock_http_requests_total", { route: "/api/v1/partners/me", status: "429" }),
        refused
      )
      const values = [...labelsOf(after).values()].flatMap((set) => [...set])
      for (const secret of [a.sandbox.keyId, a.sandbox.secret]) assert.notInclude(values, secret)
    })
  )
})
