/**
 * OpenTelemetry export over OTLP/HTTP (Effect's `OtlpTracer`, `OtlpMetrics`, `OtlpLogger`), set
 * up from the standard `OTEL_*` variables as every OpenTelemetry SDK reads them: setting
 * `OTEL_EXPORTER_OTLP_ENDPOINT` alone turns traces, metrics and logs on, as service `ratelock`.
 * (Effect's own `Otlp.layerFromConfig` also wants `OTEL_TRACES_EXPORTER=otlp` and
 * `OTEL_SERVICE_NAME`; this module is built on its per-signal layers instead, with our defaults.)
 *
 * - Endpoints: `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, `/v1/metrics`, `/v1/logs`; a
 *   signal's own `OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT` is used as written.
 * - A signal is off with `OTEL_<SIGNAL>_EXPORTER=none`; all are off with `OTEL_SDK_DISABLED=true`.
 * - `OTEL_SERVICE_NAME` (else `service.name` of `OTEL_RESOURCE_ATTRIBUTES`, else `ratelock`),
 *   `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS` (and per signal),
 *   `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/json`, the default, or `http/protobuf`),
 *   `OTEL_EXPORTER_OTLP_COMPRESSION`, `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`,
 *   `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_BLRP_SCHEDULE_DELAY`, `OTEL_TRACES_SAMPLER` and
 *   `OTEL_TRACES_SAMPLER_ARG` (every trace by default; `internal/traceSampler.ts`).
 *
 * With no endpoint nothing is installed, and the HTTP server makes no request span
 * (`server/Tracing.ts`).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Config, Duration, Effect, Layer, Option, Schema, Tracer } from "effect"
import { OtlpExporter, OtlpLogger, OtlpMetrics, OtlpSerialization, OtlpTracer } from "effect/observability"
import * as TraceSampler from "./internal/traceSampler.ts"
import * as WorkerTraces from "./internal/workerTraces.ts"
import { version } from "./Version.ts"

export type Signal = "traces" | "metrics" | "logs"

const signals: ReadonlyArray<Signal> = ["traces", "metrics", "logs"]

export interface Settings {
  /** Where each signal on goes: a full OTLP/HTTP URL. */
  readonly endpoints: Partial<Record<Signal, string>>
  readonly protocol: "http/json" | "http/protobuf"
  /** Per signal, the headers sent with each export (authentication for a vendor's endpoint). */
  readonly headers: Record<Signal, Record<string, string>>
  readonly compression: "gzip" | "none"
  readonly serviceName: string
  readonly serviceVersion: string
  /** Batching: how often spans, logs and metrics are sent; spans at most this many per export. */
  readonly tracesInterval: Duration.Duration
  readonly logsInterval: Duration.Duration
  readonly metricsInterval: Duration.Duration
  readonly maxBatchSize: number
  /** Which traces are recorded (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`): all by default. */
  readonly sampler: TraceSampler.Sampler
}

const upper = (signal: Signal) => signal.toUpperCase()

/** An OTLP/HTTP endpoint: an absolute http or https URL. */
const HttpUrl = Schema.URL.check(
  Schema.makeFilter((url) => url.protocol === "http:" || url.protocol === "https:" || "an http:// or https:// URL")
)

/** A signal's endpoint: its own variable as written, else the base endpoint with `/v1/<signal>`. */
const endpoint = (signal: Signal) =>
  Effect.gen(function* () {
    const own = yield* Config.option(Config.schema(HttpUrl, `OTEL_EXPORTER_OTLP_${upper(signal)}_ENDPOINT`))
    if (Option.isSome(own)) return Option.some(own.value.href)
    const base = yield* Config.option(Config.schema(HttpUrl, "OTEL_EXPORTER_OTLP_ENDPOINT"))
    return Option.map(base, (url) => {
      url.pathname = `${url.pathname.replace(/\/$/, "")}/v1/${signal}`
      return url.href
    })
  })

/** `OTEL_<SIGNAL>_EXPORTER`: the signal is exported unless its list leaves out `otlp` (`none`). */
const exported = (signal: Signal) =>
  Config.String(`OTEL_${upper(signal)}_EXPORTER`).pipe(
    Config.map((list) => list.split(",").some((name) => name.trim().toLowerCase() === "otlp")),
    Config.withDefault(true)
  )

/** `k1=v1,k2=v2`, values percent-decoded, as the specification writes headers and attributes; none is `{}`. */
const keyValues = (name: string) =>
  Config.Record(Schema.String, Schema.StringFromUriComponent, name, { trim: true }).pipe(
    Config.map((record): Record<string, string> => ({ ...record })),
    Config.withDefault<Record<string, string>>({})
  )

const headers = (signal: Signal) =>
  Effect.gen(function* () {
    const base = yield* keyValues("OTEL_EXPORTER_OTLP_HEADERS")
    const own = yield* keyValues(`OTEL_EXPORTER_OTLP_${upper(signal)}_HEADERS`)
    return { ...base, ...own }
  })

const millis = (name: string, fallback: Duration.Duration) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), name).pipe(
    Config.map(Duration.millis),
    Config.withDefault(fallback)
  )

/** `OTEL_SERVICE_NAME`, else the resource attributes' `service.name`, else ours (and so for the version). */
const serviceIdentity = Effect.gen(function* () {
  // read (and checked) even when both are named, as Effect's exporters read it again
  const resource = yield* keyValues("OTEL_RESOURCE_ATTRIBUTES")
  const name = yield* Config.option(Config.NonEmptyString("OTEL_SERVICE_NAME"))
  const given = yield* Config.option(Config.NonEmptyString("OTEL_SERVICE_VERSION"))
  return {
    serviceName: Option.getOrElse(name, () => resource["service.name"] || "ratelock"),
    serviceVersion: Option.getOrElse(given, () => resource["service.version"] || version)
  }
})

/** The settings from the environment; none when nothing is to be exported. */
export const settings: Effect.Effect<Option.Option<Settings>, Config.ConfigError> = Effect.gen(function* () {
  if (yield* Config.Boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false))) return Option.none()
  const endpoints: Partial<Record<Signal, string>> = {}
  for (const signal of signals) {
    const url = yield* endpoint(signal)
    if (Option.isSome(url) && (yield* exported(signal))) endpoints[signal] = url.value
  }
  if (Object.keys(endpoints).length === 0) return Option.none()
  return Option.some<Settings>({
    endpoints,
    protocol: yield* Config.Literals(["http/json", "http/protobuf"], "OTEL_EXPORTER_OTLP_PROTOCOL").pipe(
      Config.withDefault("http/json" as const)
    ),
    headers: { traces: yield* headers("traces"), metrics: yield* headers("metrics"), logs: yield* headers("logs") },
    compression: yield* Config.Literals(["gzip", "none"], "OTEL_EXPORTER_OTLP_COMPRESSION").pipe(
      Config.withDefault("none" as const)
    ),
    ...(yield* serviceIdentity),
    tracesInterval: yield* millis("OTEL_BSP_SCHEDULE_DELAY", Duration.seconds(5)),
    logsInterval: yield* millis("OTEL_BLRP_SCHEDULE_DELAY", Duration.seconds(1)),
    metricsInterval: yield* millis("OTEL_METRIC_EXPORT_INTERVAL", Duration.seconds(60)),
    sampler: {
      name: yield* Config.Literals(TraceSampler.names, "OTEL_TRACES_SAMPLER").pipe(
        Config.withDefault("parentbased_always_on" as const)
      ),
      ratio: yield* Config.schema(
        Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })),
        "OTEL_TRACES_SAMPLER_ARG"
      ).pipe(Config.withDefault(1))
    },
    maxBatchSize: yield* Config.schema(
      Schema.Int.check(Schema.isGreaterThan(0)),
      "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"
    ).pipe(Config.withDefault(512))
  })
})

/**
 * `OtlpTracer.layer`, without the traces of idle worker passes (`internal/workerTraces.ts`),
 * behind the sampler unless every trace is kept.
 */
const tracer = (options: {
  readonly url: string
  readonly resource: { readonly serviceName: string; readonly serviceVersion: string }
  readonly compression: "gzip" | "none"
  readonly settings: Settings
}) =>
  Layer.effect(
    Tracer.Tracer,
    Effect.map(
      OtlpTracer.make({
        url: options.url,
        resource: options.resource,
        compression: options.compression,
        headers: options.settings.headers.traces,
        exportInterval: options.settings.tracesInterval,
        maxBatchSize: options.settings.maxBatchSize
      }),
      (otlp) => {
        const working = WorkerTraces.withoutIdlePasses(otlp)
        return TraceSampler.isAlwaysOn(options.settings.sampler)
          ? working
          : TraceSampler.sampled(working, options.settings.sampler)
      }
    )
  ).pipe(Layer.provideMerge(OtlpExporter.layerFlusher))

/**
 * The exporters of `settings`: the tracer every span goes to, the logger added beside the
 * console's (each log line carries the trace and span of the fiber that wrote it), and the
 * metrics of the default registry (every `Metric` the service defines) sent on an interval.
 * Each flushes what it holds when the layer closes (the service's last layer to close); the
 * `Flusher` sends everything now.
 */
export const layer = (settings: Settings): Layer.Layer<OtlpExporter.Flusher> => {
  // the service name and version win over the attributes' (read again by Effect from the environment)
  const resource = { serviceName: settings.serviceName, serviceVersion: settings.serviceVersion }
  const common = { resource, compression: settings.compression }
  const { traces, metrics, logs } = settings.endpoints
  return Layer.mergeAll(
    traces === undefined ? OtlpExporter.layerFlusher : tracer({ ...common, url: traces, settings }),
    metrics === undefined
      ? OtlpExporter.layerFlusher
      : OtlpMetrics.layer({
          ...common,
          url: metrics,
          headers: settings.headers.metrics,
          exportInterval: settings.metricsInterval
        }),
    logs === undefined
      ? OtlpExporter.layerFlusher
      : OtlpLogger.layer({
          ...common,
          url: logs,
          headers: settings.headers.logs,
          exportInterval: settings.logsInterval,
          maxBatchSize: settings.maxBatchSize
        })
  ).pipe(
    Layer.provide(
      settings.protocol === "http/protobuf" ? OtlpSerialization.layerProtobuf : OtlpSerialization.layerJson
    ),
    // Node's `http` client (keep-alive agent) writes each batch as it is, where `fetch` first
    // copies it into a web stream: main-thread work paid once per 512 spans (`bench/spanCost.ts`)
    Layer.provide(NodeHttpClient.layerNodeHttp)
  )
}

/** What is exported where, for the start-up log. */
export const describe = (settings: Settings): string => {
  const on = signals.filter((signal) => settings.endpoints[signal] !== undefined)
  const where = [...new Set(on.map((signal) => new URL(settings.endpoints[signal]!).origin))].join(", ")
  const sampled = TraceSampler.isAlwaysOn(settings.sampler)
    ? ""
    : `; traces sampled ${settings.sampler.name}${settings.sampler.name.endsWith("ratio") ? ` ${settings.sampler.ratio}` : ""}`
  return `OpenTelemetry: ${on.join(", ")} to ${where} as ${settings.serviceName} (${settings.protocol}${sampled})`
}

/** `layer` from the environment, with its start-up line; nothing (a flusher with nothing to flush) when no endpoint is set. */
export const layerConfig: Layer.Layer<OtlpExporter.Flusher, Config.ConfigError> = Layer.unwrap(
  Effect.map(
    settings,
    Option.match({
      onNone: () => OtlpExporter.layerFlusher,
      onSome: (s) => Layer.merge(layer(s), Layer.effectDiscard(Effect.logInfo(describe(s))))
    })
  )
)
