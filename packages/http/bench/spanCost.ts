/**
 * What one exported span costs the main thread, by exporter setting: 200,000 spans shaped like a
 * request's server span (its twelve attributes) made and ended under Effect's `OtlpTracer`,
 * exporting to a local OTLP/HTTP receiver in a worker thread, against Effect's built-in tracer
 * (which exports nothing). Variants: JSON over Node's `http` client (what `Telemetry.ts` composes),
 * protobuf, gzip, `fetch` and undici clients instead, batches of 4,096 instead of 512, and the
 * exporter with no serialization and no HTTP (what converting and batching alone cost).
 *
 * Each variant runs three times (`ROUNDS`), in turn with the others (every other round in reverse
 * order); the best of its rounds is printed (on a busy machine, take more rounds).
 *
 * Run: `node --conditions=source bench/spanCost.ts` in packages/http (`SPANS` changes the count).
 * Figures: root README, Performance, HTTP, "Telemetry".
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Duration, Effect, Layer } from "effect"
import { FetchHttpClient, HttpBody, HttpClient, HttpClientResponse } from "effect/http"
import { OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"
import { Worker } from "node:worker_threads"

const spans = Number(process.env.SPANS ?? 200_000)
const rounds = Number(process.env.ROUNDS ?? 3)

const receiver = new Worker(
  `const { parentPort } = require("node:worker_threads")
  const server = require("node:http").createServer((req, res) => { req.resume(); req.on("end", () => res.end("{}")) })
  server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port))`,
  { eval: true }
)
const port: number = await new Promise((resolve) => receiver.once("message", resolve))

const attributes = {
  "http.route": "/api/v1/partners/me",
  "ratelock.partner_id": "01a211ac-e13a-740f-8f75-70691caf92a5",
  "ratelock.environment": "sandbox",
  "http.request.method": "GET",
  "url.full": "http://localhost:8080/api/v1/partners/me",
  "url.path": "/api/v1/partners/me",
  "url.scheme": "http",
  "server.address": "localhost",
  "server.port": 8080,
  "user_agent.original": "autocannon",
  "client.address": "::ffff:127.0.0.1",
  "http.response.status_code": 200
}

const work = Effect.gen(function* () {
  for (let i = 0; i < spans; i++) {
    yield* Effect.withSpan(Effect.void, "GET /api/v1/partners/me", { kind: "server", attributes })
  }
})

/** An HTTP client that answers 200 without sending anything. */
const noHttp = Layer.succeed(
  HttpClient.HttpClient,
  HttpClient.make((request) => Effect.succeed(HttpClientResponse.fromWeb(request, new Response("{}"))))
)
const noSerialization = Layer.succeed(OtlpSerialization.OtlpSerialization, {
  traces: () => HttpBody.empty,
  metrics: () => HttpBody.empty,
  logs: () => HttpBody.empty
})

const otlp = (options: {
  readonly serialization?: Layer.Layer<OtlpSerialization.OtlpSerialization>
  readonly client?: Layer.Layer<HttpClient.HttpClient>
  readonly compression?: "gzip"
  readonly batch?: number
}) =>
  OtlpTracer.layer({
    url: `http://127.0.0.1:${port}/v1/traces`,
    resource: { serviceName: "span-cost" },
    exportInterval: Duration.seconds(5),
    maxBatchSize: options.batch ?? 512,
    compression: options.compression ?? "none"
  }).pipe(
    Layer.provide(options.serialization ?? OtlpSerialization.layerJson),
    Layer.provide(options.client ?? NodeHttpClient.layerNodeHttp)
  )

const variants: ReadonlyArray<readonly [string, Layer.Layer<OtlpExporter.Flusher>]> = [
  ["built-in tracer (exports nothing)", OtlpExporter.layerFlusher],
  ["OTLP, no serialization, no HTTP", otlp({ serialization: noSerialization, client: noHttp })],
  ["OTLP JSON, no HTTP", otlp({ client: noHttp })],
  ["OTLP JSON over node:http (the service's)", otlp({})],
  ["OTLP JSON, gzip", otlp({ compression: "gzip" })],
  ["OTLP JSON over fetch", otlp({ client: FetchHttpClient.layer })],
  ["OTLP JSON over undici", otlp({ client: NodeHttpClient.layerUndici })],
  ["OTLP JSON, batches of 4,096", otlp({ batch: 4_096 })],
  ["OTLP protobuf", otlp({ serialization: OtlpSerialization.layerProtobuf })]
]

/** Main-thread CPU per span of `work` under `tracer`, its last batch sent (the layer's close flushes it). */
const measure = (tracer: Layer.Layer<OtlpExporter.Flusher>) =>
  Effect.gen(function* () {
    const before = process.threadCpuUsage()
    yield* Effect.scoped(Effect.flatMap(Layer.build(tracer), (context) => Effect.provide(work, context)))
    const cpu = process.threadCpuUsage(before)
    return (cpu.user + cpu.system) / spans
  })

console.log(
  `One exported span: main-thread CPU, ${spans.toLocaleString("en-US")} spans per variant, the best of ${rounds} rounds (node ${process.version})`
)
// rounds in turn, so no variant is the only one to run on a cold JIT or in a busy moment
const best = new Map<string, number>()
for (let round = 0; round < rounds; round++) {
  // every other round backwards: no variant always runs right after the same one
  for (const [name, tracer] of round % 2 === 0 ? variants : [...variants].reverse()) {
    const micros = await Effect.runPromise(measure(tracer))
    best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, micros))
  }
}
for (const [name] of variants) console.log(`  ${name.padEnd(42)} ${best.get(name)!.toFixed(1).padStart(6)} µs/span`)
await receiver.terminate()
