/**
 * A local OpenTelemetry collector for tests: a plain `node:http` server on 127.0.0.1 that takes
 * OTLP/HTTP JSON exports (`/v1/traces`, `/v1/metrics`, `/v1/logs`), answers 200 and keeps every
 * request as it arrived (path, headers, raw body), decoded into spans, log records and metrics.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"

// biome-ignore lint/suspicious/noExplicitAny: OTLP JSON is inspected field by field in tests
type Json = any

export interface Export {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** An OTLP attribute list as a plain object (string, int, double and bool values). */
export const attributes = (list: ReadonlyArray<Json> | undefined): Record<string, unknown> =>
  Object.fromEntries(
    (list ?? []).map((a: Json) => {
      const v = a.value ?? {}
      const value =
        v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue
      return [a.key, value]
    })
  )

export interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: number
  readonly attributes: Record<string, unknown>
  readonly links: ReadonlyArray<{
    readonly traceId: string
    readonly spanId: string
    readonly attributes: Record<string, unknown>
  }>
  readonly status: { readonly code: number }
  readonly resource: Record<string, unknown>
}

export interface LogRecord {
  readonly body: string
  readonly traceId: string | undefined
  readonly spanId: string | undefined
  readonly severityText: string | undefined
  readonly resource: Record<string, unknown>
}

export interface OtlpReceiver {
  /** The base URL to set as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly url: string
  readonly exports: () => ReadonlyArray<Export>
  readonly spans: () => ReadonlyArray<Span>
  readonly logs: () => ReadonlyArray<LogRecord>
  /** Every `resourceMetrics` entry received, with its resource attributes and metric names. */
  readonly metrics: () => ReadonlyArray<{ readonly resource: Record<string, unknown>; readonly names: Array<string> }>
  readonly close: () => Promise<void>
}

const parse = (e: Export): Json => JSON.parse(e.body)

export const start = (): Promise<OtlpReceiver> =>
  new Promise((resolve) => {
    const received: Array<Export> = []
    const server: Server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
        res.writeHead(200, { "content-type": "application/json" })
        res.end("{}")
      })
    })
    const of = (path: string) => received.filter((e) => e.path === path).map(parse)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        url: `http://127.0.0.1:${port}`,
        exports: () => [...received],
        spans: () =>
          of("/v1/traces").flatMap((data: Json) =>
            data.resourceSpans.flatMap((rs: Json) =>
              rs.scopeSpans.flatMap((ss: Json) =>
                ss.spans.map(
                  (s: Json): Span => ({
                    traceId: s.traceId,
                    spanId: s.spanId,
                    parentSpanId: s.parentSpanId ?? undefined,
                    name: s.name,
                    kind: s.kind,
                    attributes: attributes(s.attributes),
                    links: (s.links ?? []).map((l: Json) => ({
                      traceId: l.traceId,
                      spanId: l.spanId,
                      attributes: attributes(l.attributes)
                    })),
                    status: s.status,
                    resource: attributes(rs.resource.attributes)
                  })
                )
              )
            )
          ),
        logs: () =>
          of("/v1/logs").flatMap((data: Json) =>
            data.resourceLogs.flatMap((rl: Json) =>
              rl.scopeLogs.flatMap((sl: Json) =>
                sl.logRecords.map(
                  (r: Json): LogRecord => ({
                    body: JSON.stringify(r.body),
                    traceId: r.traceId || undefined,
                    spanId: r.spanId || undefined,
                    severityText: r.severityText,
                    resource: attributes(rl.resource.attributes)
                  })
                )
              )
            )
          ),
        metrics: () =>
          of("/v1/metrics").flatMap((data: Json) =>
            data.resourceMetrics.map((rm: Json) => ({
              resource: attributes(rm.resource.attributes),
              names: rm.scopeMetrics.flatMap((sm: Json) => sm.metrics.map((m: Json) => m.name))
            }))
          ),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
