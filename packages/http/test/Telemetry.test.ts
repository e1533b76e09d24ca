/**
 * Telemetry settings from the standard `OTEL_*` variables (the endpoint alone is enough; signals,
 * service name, headers, sampler), the head sampler's decisions, the request span names, and
 * telemetry off costing no span and storing no trace context.
 * The export itself, end to end: `Telemetry.e2e.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Exit, Option, Tracer } from "effect"
import { HttpMiddleware, type HttpServerRequest } from "effect/http"
import { TraceContext } from "@ratelock/core"
import * as TraceSampler from "../src/internal/traceSampler.ts"
import * as WorkerTraces from "../src/internal/workerTraces.ts"
import * as Tracing from "../src/server/Tracing.ts"
import * as Telemetry from "../src/Telemetry.ts"

const settings = (env: Record<string, string>) =>
  Effect.provideService(Telemetry.settings, ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))

const some = (env: Record<string, string>) => Effect.map(settings(env), Option.getOrThrow)

describe("settings", () => {
  it.effect("no endpoint, or the SDK disabled: nothing is installed", () =>
    Effect.gen(function* () {
      assert.isTrue(Option.isNone(yield* settings({})))
      assert.isTrue(Option.isNone(yield* settings({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_EXPORTER: "otlp" })))
      assert.isTrue(
        Option.isNone(yield* settings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }))
      )
    })
  )

  it.effect("the endpoint alone: traces, metrics and logs, as ratelock, every trace, JSON", () =>
    Effect.gen(function* () {
      const s = yield* some({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example:4318/otlp/" })
      assert.deepStrictEqual(s.endpoints, {
        traces: "https://collector.example:4318/otlp/v1/traces",
        metrics: "https://collector.example:4318/otlp/v1/metrics",
        logs: "https://collector.example:4318/otlp/v1/logs"
      })
      assert.strictEqual(s.serviceName, "ratelock")
      assert.strictEqual(s.serviceVersion, "0.1.0")
      assert.strictEqual(s.protocol, "http/json")
      assert.strictEqual(s.compression, "none")
      assert.deepStrictEqual(s.headers, { traces: {}, metrics: {}, logs: {} })
      assert.deepStrictEqual(s.sampler, { name: "parentbased_always_on", ratio: 1 })
      assert.strictEqual(Duration.toMillis(s.tracesInterval), 5_000)
      assert.strictEqual(Duration.toMillis(s.metricsInterval), 60_000)
      assert.strictEqual(Duration.toMillis(s.logsInterval), 1_000)
      assert.strictEqual(s.maxBatchSize, 512)
      assert.strictEqual(
        Telemetry.describe(s),
        "OpenTelemetry: traces, metrics, logs to https://collector.example:4318 as ratelock (http/json)"
      )
    })
  )

  it.effect("per signal: its own endpoint as written, `none` turns it off", () =>
    Effect.gen(function* () {
      const s = yield* some({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://tempo:4318/custom/traces",
        OTEL_METRICS_EXPORTER: "none",
        OTEL_LOGS_EXPORTER: "console"
      })
      assert.deepStrictEqual(s.endpoints, { traces: "http://tempo:4318/custom/traces" })
      const tracesOnly = yield* some({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://tempo:4318/v1/traces" })
      assert.deepStrictEqual(tracesOnly.endpoints, { traces: "http://tempo:4318/v1/traces" })
    })
  )

  it.effect("service name and version: OTEL_SERVICE_NAME, else the resource attributes', else ours", () =>
    Effect.gen(function* () {
      const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }
      const attributes = "service.name=from-attributes,service.version=9.9,deployment.environment.name=prod"
      const fromAttributes = yield* some({ ...base, OTEL_RESOURCE_ATTRIBUTES: attributes })
      assert.deepStrictEqual([fromAttributes.serviceName, fromAttributes.serviceVersion], ["from-attributes", "9.9"])
      const named = yield* some({
        ...base,
        OTEL_RESOURCE_ATTRIBUTES: attributes,
        OTEL_SERVICE_NAME: "ratelock-eu",
        OTEL_SERVICE_VERSION: "1.2.3"
      })
      assert.deepStrictEqual([named.serviceName, named.serviceVersion], ["ratelock-eu", "1.2.3"])
    })
  )

  it.effect("headers percent-decoded, a signal's own over the common ones; protocol, compression, sampler", () =>
    Effect.gen(function* () {
      const s = yield* some({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc, x-tenant = t1",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-tenant=t2",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
        OTEL_BSP_SCHEDULE_DELAY: "250"
      })
      assert.deepStrictEqual(s.headers.traces, { authorization: "Bearer abc", "x-tenant": "t2" })
      assert.deepStrictEqual(s.headers.metrics, { authorization: "Bearer abc", "x-tenant": "t1" })
      assert.strictEqual(s.protocol, "http/protobuf")
      assert.strictEqual(s.compression, "gzip")
      assert.deepStrictEqual(s.sampler, { name: "parentbased_traceidratio", ratio: 0.25 })
      assert.strictEqual(Duration.toMillis(s.tracesInterval), 250)
      assert.include(Telemetry.describe(s), "traces sampled parentbased_traceidratio 0.25")
    })
  )

  it.effect("what cannot be honoured is refused at start, naming the variable", () =>
    Effect.gen(function* () {
      for (const [name, value] of [
        ["OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"],
        ["OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"],
        ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "not a url"],
        ["OTEL_TRACES_SAMPLER_ARG", "2"],
        ["OTEL_TRACES_SAMPLER", "jaeger_remote"],
        ["OTEL_BSP_SCHEDULE_DELAY", "soon"],
        ["OTEL_RESOURCE_ATTRIBUTES", "team=%E0%A4%A"]
      ] as const) {
        const exit = yield* Effect.exit(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", [name]: value }))
        assert.isTrue(Exit.isFailure(exit), name)
        assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), name)
      }
    })
  )
})

describe("head sampling", () => {
  /** A tracer that records the spans it makes, with the sampler on top. */
  const recording = (sampler: TraceSampler.Sampler) => {
    const made: Array<Tracer.Span> = []
    const tracer = TraceSampler.sampled(
      Tracer.make({
        span: (options) => {
          const span = new Tracer.NativeSpan(options)
          made.push(span)
          return span
        }
      }),
      sampler
    )
    return { made, tracer }
  }
  /** A root span with a child, under `tracer`, optionally below a caller's span. */
  const trace = (tracer: Tracer.Tracer, remote?: Tracer.ExternalSpan) =>
    Effect.void.pipe(
      Effect.withSpan("child"),
      Effect.withSpan("root", remote === undefined ? {} : { parent: remote }),
      Effect.provideService(Tracer.Tracer, tracer)
    )
  const caller = (sampled: boolean) =>
    Tracer.externalSpan({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", sampled })

  it.effect("a ratio of 0 keeps no new trace; a child follows its root; a caller's flag counts when parent-based", () =>
    Effect.gen(function* () {
      const none = recording({ name: "parentbased_traceidratio", ratio: 0 })
      yield* trace(none.tracer)
      yield* trace(none.tracer, caller(true))
      assert.deepStrictEqual(
        none.made.map((s) => `${s.name} ${s.sampled}`),
        ["root false", "child false", "root true", "child true"]
      )
      const independent = recording({ name: "traceidratio", ratio: 0 })
      yield* trace(independent.tracer, caller(true))
      assert.deepStrictEqual(
        independent.made.map((s) => s.sampled),
        [false, false]
      )
      const all = recording({ name: "traceidratio", ratio: 1 })
      yield* trace(all.tracer, caller(false))
      assert.deepStrictEqual(
        all.made.map((s) => s.sampled),
        [true, true]
      )
      const off = recording({ name: "always_off", ratio: 1 })
      yield* trace(off.tracer)
      assert.deepStrictEqual(
        off.made.map((s) => s.sampled),
        [false, false]
      )
    })
  )

  it.effect("a ratio keeps about that fraction of traces", () =>
    Effect.gen(function* () {
      const tenth = recording({ name: "parentbased_traceidratio", ratio: 0.1 })
      for (let i = 0; i < 2_000; i++) yield* trace(tenth.tracer)
      const kept = tenth.made.filter((s) => s.name === "root" && s.sampled).length
      assert.isAbove(kept, 100)
      assert.isBelow(kept, 300)
      assert.isTrue(TraceSampler.isAlwaysOn({ name: "parentbased_traceidratio", ratio: 1 }))
      assert.isFalse(TraceSampler.isAlwaysOn({ name: "parentbased_traceidratio", ratio: 0.5 }))
    })
  )
})

describe("idle worker passes", () => {
  /** What reaches the tracer underneath: the names of the spans ended there. */
  const exporting = () => {
    const made: Array<Tracer.NativeSpan> = []
    const tracer = WorkerTraces.withoutIdlePasses(
      Tracer.make({
        span: (options) => {
          const span = new Tracer.NativeSpan(options)
          made.push(span)
          return span
        }
      })
    )
    const ended = () =>
      made
        .filter((s) => s.status._tag === "Ended")
        .map((s) => s.name)
        .sort()
    return { tracer, ended }
  }
  /** A pass as `Workers.ts` runs one: its program's span, a statement, and what `job` adds. */
  const pass = (tracer: Tracer.Tracer, jobs: number, job: Effect.Effect<void, string> = Effect.void) =>
    Effect.succeed(jobs).pipe(
      Effect.tap(() => Effect.void.pipe(Effect.withSpan("claim", { kind: "client" }))),
      Effect.tap(() => job),
      Effect.withSpan("Deliveries.deliverDue"),
      Effect.tap((n) => Effect.annotateCurrentSpan("ratelock.jobs", n)),
      Effect.withSpan("worker.deliveries", { root: true }),
      Effect.provideService(Tracer.Tracer, tracer),
      Effect.exit
    )

  it.effect("a pass that found nothing is not exported; one that worked or failed is, whole", () =>
    Effect.gen(function* () {
      const idle = exporting()
      yield* pass(idle.tracer, 0)
      assert.deepStrictEqual(idle.ended(), [])

      const took = exporting()
      yield* pass(took.tracer, 2)
      assert.deepStrictEqual(took.ended(), ["Deliveries.deliverDue", "claim", "worker.deliveries"])

      const touched = exporting()
      const attempt = Effect.void.pipe(
        Effect.withSpan("Deliveries.attempt", { attributes: { "ratelock.contract_id": "c-1" } })
      )
      yield* pass(touched.tracer, 0, attempt)
      assert.deepStrictEqual(touched.ended(), [
        "Deliveries.attempt",
        "Deliveries.deliverDue",
        "claim",
        "worker.deliveries"
      ])

      const failed = exporting()
      yield* pass(failed.tracer, 0, Effect.fail("store down"))
      assert.deepStrictEqual(failed.ended(), ["Deliveries.deliverDue", "claim", "worker.deliveries"])

      // anything else goes straight through
      const request = exporting()
      yield* Effect.void.pipe(
        Effect.withSpan("child"),
        Effect.withSpan("GET /api/v1/partners/me"),
        Effect.provideService(Tracer.Tracer, request.tracer)
      )
      assert.deepStrictEqual(request.ended(), ["GET /api/v1/partners/me", "child"])
    })
  )
})

describe("request span names", () => {
  const named = (method: string, url: string) =>
    Tracing.spanName({ method, url } as HttpServerRequest.HttpServerRequest)

  it("the method and route template; the method alone off any route", () => {
    assert.strictEqual(named("POST", "/api/v1/fx/quotes"), "POST /api/v1/fx/quotes")
    assert.strictEqual(named("GET", "/api/v1/fx/quotes/01a2-q?x=1"), "GET /api/v1/fx/quotes/:quote_id")
    assert.strictEqual(
      named("GET", `/api/v1/fx/customers/${"c".repeat(256)}/locks`),
      "GET /api/v1/fx/customers/:customer_reference_id/locks"
    )
    assert.strictEqual(
      named("POST", "/api/v1/sandbox/contracts/01a2/fund"),
      "POST /api/v1/sandbox/contracts/:fx_contract_id/fund"
    )
    assert.strictEqual(named("GET", "/openapi.json"), "GET /openapi.json")
    assert.strictEqual(named("GET", "/metrics"), "GET")
    assert.strictEqual(named("DELETE", "/api/v1/fx/quotes"), "DELETE")
  })
})

describe("telemetry off: no cost", () => {
  const request = (url: string) => ({ method: "GET", url }) as HttpServerRequest.HttpServerRequest
  /** Whether the API's HTTP server would skip the request's span under `tracer`. */
  const skipped = (tracer: Tracer.Tracer | undefined, url: string) =>
    Effect.gen(function* () {
      const disabledWhen = yield* HttpMiddleware.TracerDisabledWhen
      return disabledWhen(request(url))
    }).pipe(
      Effect.provide(Tracing.layer),
      tracer === undefined ? (effect) => effect : Effect.provideService(Tracer.Tracer, tracer)
    )
  const exporting = Tracer.make({ span: (options) => new Tracer.NativeSpan(options) })

  it.effect("no exporting tracer: the HTTP server makes no request span, and no trace context is stored", () =>
    Effect.gen(function* () {
      assert.isTrue(yield* skipped(undefined, "/api/v1/partners/me"))
      assert.isNull(yield* TraceContext.current.pipe(Effect.withSpan("POST /api/v1/fx/contracts")))
      // with one, every request but the probes has its span, and the context is kept
      assert.isFalse(yield* skipped(exporting, "/api/v1/partners/me"))
      assert.isTrue(yield* skipped(exporting, "/health"))
      const kept = yield* TraceContext.current.pipe(
        Effect.withSpan("POST /api/v1/fx/contracts"),
        Effect.provideService(Tracer.Tracer, exporting)
      )
      assert.match(kept!, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    })
  )
})
