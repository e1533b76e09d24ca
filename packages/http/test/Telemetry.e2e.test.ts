/**
 * OpenTelemetry as an operator turns it on: `pnpm start`'s command with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (and no other OTEL variable but short batching delays) pointed at a local OTLP/HTTP receiver, a
 * partner made with the CLI whose sandbox webhook is a local receiver too. A quote's request is a
 * span with its route, status, partner and environment; no key, secret or body reaches the
 * receiver; a contract funded through an inbound `funds_in_route` has its `funds_received`
 * delivery linked back (through the commit of the funding job) to that request, and the webhook
 * carries the delivery's `traceparent`; idle worker passes are not exported; log records carry
 * their request's trace. `ratelock worker` exports too, under the service name it is given.
 */
import { Requests } from "@ratelock/core"
import { DateTime } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { afterAll, assert, describe, it } from "vitest"
import * as Otlp from "./support/otlpReceiver.ts"
import { start as spawn, stop } from "@ratelock/test-support/Processes"
import {
  baseUrlOf,
  cli,
  cliJson,
  eventually,
  packageDir,
  removeTempDirs,
  start,
  tempDataDir
} from "./support/process.ts"

afterAll(removeTempDirs)

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field
type Json = any

interface Delivery {
  readonly headers: IncomingHttpHeaders
  readonly body: Json
  readonly verified: boolean
}

/** A partner's webhook receiver: every delivery with its headers, its signature checked with `standardwebhooks`. */
const webhookReceiver = (secret: () => string) =>
  new Promise<{ url: string; deliveries: Array<Delivery>; close: () => void }>((resolve) => {
    const deliveries: Array<Delivery> = []
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
        let verified = true
        try {
          new Webhook(secret()).verify(body, req.headers as Record<string, string>)
        } catch {
          verified = false
        }
        deliveries.push({ headers: req.headers, body: JSON.parse(body), verified })
        res.statusCode = 204
        res.end()
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
        deliveries,
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      })
    )
  })

/** Whether `span` is `ancestor` or below it. */
const isUnder = (spans: ReadonlyArray<Otlp.Span>, span: Otlp.Span, ancestor: Otlp.Span) =>
  ancestry(spans, span).some((s) => s.spanId === ancestor.spanId)

/** The span and every span above it, nearest first. */
const ancestry = (spans: ReadonlyArray<Otlp.Span>, span: Otlp.Span): Array<Otlp.Span> => {
  const chain = [span]
  for (let at = span; at.parentSpanId !== undefined; ) {
    const parent = spans.find((s) => s.spanId === at.parentSpanId)
    if (parent === undefined) break
    chain.push(parent)
    at = parent
  }
  return chain
}

describe("OpenTelemetry export", () => {
  it("request spans, worker spans linked across the outbox, traceparent on webhooks, no secrets", {
    timeout: 180_000
  }, async () => {
    const otlp = await Otlp.start()
    let webhookSecret = ""
    const hooks = await webhookReceiver(() => webhookSecret)
    const dataDir = tempDataDir()
    const created = await cliJson(
      dataDir,
      "partner",
      "create",
      "--name",
      "Trace Pay",
      "--webhook-url-sandbox",
      hooks.url
    )
    const sandbox = created.environments.sandbox
    webhookSecret = sandbox.webhook_secret
    const service = start(dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-token",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=e2e",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_BLRP_SCHEDULE_DELAY: "100",
      OTEL_METRIC_EXPORT_INTERVAL: "500",
      RATELOCK_SANDBOX_CONFIRM_MS: "200",
      RATELOCK_DEMO_PARTNER: "false",
      // the request log lines (Debug) are exported too, with their request's trace
      RATELOCK_LOG_LEVEL: "Debug"
    })
    try {
      const baseUrl = await baseUrlOf(service)
      const headers = {
        "content-type": "application/json",
        "x-partner-key-id": sandbox.api_key_id,
        "x-partner-key-secret": sandbox.api_key_secret,
        "x-partner-environment": "sandbox"
      }
      const post = async (path: string, body: unknown, extra: Record<string, string> = {}) => {
        const reply = await fetch(`${baseUrl}${path}`, {
          method: "POST",
          headers: { ...headers, ...extra },
          body: JSON.stringify(body)
        })
        return { status: reply.status, json: (await reply.json()) as Json }
      }

      const quoteRequest = Requests.quoteAt(DateTime.nowUnsafe(), {
        customer_reference_id: `cust-${crypto.randomUUID()}`,
        customer_name: "Zelda Quokka-Trace"
      })
      const quote = await post("/api/v1/fx/quotes", quoteRequest)
      assert.strictEqual(quote.status, 201)
      const contract = await post("/api/v1/fx/contracts", { quote_id: quote.json.id })
      assert.strictEqual(contract.status, 201)
      // in the sandbox, a funds_in_route with an amount also makes the simulated chain receive it
      const route = await post(
        "/api/v1/fx/webhooks/inbound",
        { event_type: "funds_in_route", fx_contract_id: contract.json.id, amount: contract.json.total_amount },
        { "idempotency-key": crypto.randomUUID() }
      )
      assert.strictEqual(route.status, 200)

      const delivery = await eventually(
        () => hooks.deliveries.find((d) => d.body.event_type === "funds_received"),
        60_000,
        "funds_received at the partner's receiver"
      )
      assert.isTrue(delivery.verified)

      const spanNamed = (name: string, test: (s: Otlp.Span) => boolean = () => true) =>
        eventually(() => otlp.spans().find((s) => s.name === name && test(s)), 30_000, `a span ${name}`)

      // the quote's request: its route, status, partner and environment, as a server span
      const quoteSpan = await spanNamed("POST /api/v1/fx/quotes")
      assert.strictEqual(quoteSpan.kind, 2)
      assert.deepInclude(quoteSpan.attributes, {
        "http.route": "/api/v1/fx/quotes",
        "http.request.method": "POST",
        "http.response.status_code": 201,
        "ratelock.partner_id": created.partner_id,
        "ratelock.environment": "sandbox"
      })
      assert.deepInclude(quoteSpan.resource, {
        "service.name": "ratelock",
        "service.version": "0.1.0",
        "deployment.environment.name": "e2e"
      })
      // database statements are its descendants
      const sqlUnderQuote = await eventually(
        () =>
          otlp
            .spans()
            .find(
              (s) =>
                s.traceId === quoteSpan.traceId &&
                s.attributes["db.system.name"] === "postgresql" &&
                isUnder(otlp.spans(), s, quoteSpan)
            ),
        30_000,
        "a statement span under the quote's request"
      )
      assert.isString(sqlUnderQuote.attributes["db.query.text"])

      // funds_received: the delivery attempt, a job of a deliveries pass, links to the commit that
      // queued it (the funding job), which links to the partner's funds_in_route request
      const attempt = await spanNamed(
        "Deliveries.attempt",
        (s) => s.attributes["ratelock.event_type"] === "funds_received"
      )
      assert.deepInclude(attempt.attributes, {
        "ratelock.contract_id": contract.json.id,
        "ratelock.partner_id": created.partner_id,
        "ratelock.event_id": delivery.body.event_id,
        "ratelock.outcome": "delivered"
      })
      const pass = ancestry(otlp.spans(), attempt).at(-1)!
      assert.strictEqual(pass.name, "worker.deliveries")
      assert.isAtLeast(pass.attributes["ratelock.jobs"] as number, 1)

      assert.lengthOf(attempt.links, 1)
      const commit = await eventually(
        () => otlp.spans().find((s) => s.spanId === attempt.links[0]!.spanId),
        30_000,
        "the span that committed funds_received"
      )
      assert.strictEqual(commit.traceId, attempt.links[0]!.traceId)
      assert.strictEqual(commit.name, "Funding.observation")
      assert.strictEqual(commit.attributes["ratelock.contract_id"], contract.json.id)
      assert.strictEqual(ancestry(otlp.spans(), commit).at(-1)!.name, "worker.funding")

      const routeSpan = await spanNamed("POST /api/v1/fx/webhooks/inbound")
      assert.strictEqual(routeSpan.attributes["http.response.status_code"], 200)
      const report = commit.links.find((l) => l.attributes["ratelock.link"] === "partner_report")
      assert.isDefined(report)
      assert.strictEqual(report!.traceId, routeSpan.traceId)
      const reported = otlp.spans().find((s) => s.spanId === report!.spanId)!
      assert.isTrue(isUnder(otlp.spans(), reported, routeSpan))

      // the webhook carries the trace context of its HTTP client span, a child of the attempt
      const traceparent = String(delivery.headers.traceparent)
      assert.match(traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
      const [, traceId, spanId] = traceparent.split("-")
      const post_ = await eventually(
        () => otlp.spans().find((s) => s.spanId === spanId),
        30_000,
        "the webhook POST span"
      )
      assert.strictEqual(post_.traceId, traceId)
      assert.strictEqual(post_.name, "webhook POST")
      assert.strictEqual(post_.parentSpanId, attempt.spanId)
      assert.strictEqual(post_.attributes["http.response.status_code"], 204)

      // passes that found nothing to do (expiry, every 250 ms here) are not exported
      assert.isUndefined(otlp.spans().find((s) => s.name === "worker.expiry"))
      for (const root of otlp.spans().filter((s) => s.name.startsWith("worker."))) {
        const worked =
          (root.attributes["ratelock.jobs"] as number) > 0 ||
          otlp.spans().some((s) => s.traceId === root.traceId && s.attributes["ratelock.contract_id"] !== undefined)
        assert.isTrue(worked, `${root.name} exported without work`)
      }

      // log records carry the trace of the request that wrote them
      const logged = await eventually(
        () => otlp.logs().find((l) => l.body.includes("POST /api/v1/fx/quotes 201")),
        30_000,
        "the quote's request log line"
      )
      assert.strictEqual(logged.traceId, quoteSpan.traceId)

      // metrics are exported under the same resource
      const metrics = await eventually(() => otlp.metrics()[0], 30_000, "a metrics export")
      assert.strictEqual(metrics.resource["service.name"], "ratelock")

      // every export was authenticated with the configured header, and none holds a secret or body
      const exports = otlp.exports()
      assert.includeMembers([...new Set(exports.map((e) => e.path))], ["/v1/traces", "/v1/logs", "/v1/metrics"])
      for (const e of exports) assert.strictEqual(e.headers.authorization, "Bearer collector-token")
      const everything = exports.map((e) => e.body).join("\n")
      for (const secret of [
        sandbox.api_key_secret,
        sandbox.api_key_id,
        sandbox.webhook_secret,
        created.environments.production.api_key_secret,
        quoteRequest.customer_reference_id,
        quoteRequest.customer_name
      ]) {
        assert.notInclude(everything, secret)
      }
    } finally {
      service.child.kill("SIGTERM")
      await service.exited
      hooks.close()
      await otlp.close()
    }
  })

  it("`ratelock worker` exports as well, under OTEL_SERVICE_NAME", { timeout: 120_000 }, async () => {
    const otlp = await Otlp.start()
    const dataDir = tempDataDir()
    assert.strictEqual((await cli(dataDir, "migrate")).code, 0)
    const env: Record<string, string | undefined> = {
      ...process.env,
      RATELOCK_DATA_DIR: dataDir,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_SERVICE_NAME: "ratelock-worker",
      OTEL_METRIC_EXPORT_INTERVAL: "200"
    }
    delete env.DATABASE_URL
    const worker = spawn(process.execPath, ["--conditions=source", "src/cli.ts", "worker"], { cwd: packageDir, env })
    try {
      // an idle worker sends no trace, but its metrics export runs on its interval
      const metrics = await eventually(
        () => otlp.metrics()[0],
        60_000,
        () => `a metrics export (${worker.output()})`
      )
      assert.strictEqual(metrics.resource["service.name"], "ratelock-worker")
      assert.isUndefined(otlp.spans().find((s) => s.name.startsWith("worker.")))
      assert.include(worker.stdout(), "Running the lifecycle workers (the embedded database")
    } finally {
      await stop(worker.child, "SIGTERM")
      await otlp.close()
    }
  })
})
