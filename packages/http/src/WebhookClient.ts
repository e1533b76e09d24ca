/**
 * The live `WebhookTransport`: one POST over node's http/https, no redirects followed, with the
 * reply time limit, and the SSRF rule enforced on the address actually connected to: the host is
 * resolved and judged by `WebhookUrl.destinations` (the same rules as `webhook set`) right before
 * connecting, and the socket connects only to those judged addresses, so a host re-pointed after
 * its URL was checked is still refused.
 *
 * Traced, each POST is a client span (`webhook POST`: method, host, port, status; never the URL's
 * path or query, which may carry the partner's token) and carries its W3C `traceparent` header,
 * so a partner's tracing can continue the delivery's trace. Untraced, no header is added.
 */
import { TraceContext, WebhookTransport } from "@ratelock/core"
import { Duration, Effect, Layer } from "effect"
import { request as httpRequest, type RequestOptions } from "node:http"
import { request as httpsRequest } from "node:https"
import { isIP, type LookupFunction } from "node:net"
import * as WebhookUrl from "./WebhookUrl.ts"

/** A resolver for the socket that answers with the addresses already judged, never asking DNS again. */
const pinned =
  (addresses: ReadonlyArray<string>): LookupFunction =>
  (_hostname, options, callback) => {
    const entries = addresses.map((address) => ({ address, family: isIP(address) }))
    if (options.all) return (callback as unknown as (e: null, a: typeof entries) => void)(null, entries)
    callback(null, entries[0]!.address, entries[0]!.family)
  }

const refuse = (message: string) => Effect.fail(new WebhookTransport.TransportError({ message }))

const post = (request: WebhookTransport.WebhookRequest) =>
  Effect.gen(function* () {
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return yield* refuse("the webhook URL is not an absolute URL")
    }
    yield* Effect.annotateCurrentSpan({
      "server.address": url.hostname,
      "server.port": Number(url.port === "" ? (url.protocol === "https:" ? 443 : 80) : url.port)
    })
    const https = url.protocol === "https:"
    if (!https && !(url.protocol === "http:" && request.environment === "sandbox")) {
      return yield* refuse(`${request.environment} webhooks must use https`)
    }
    const addresses = yield* WebhookUrl.destinations(WebhookUrl.hostOf(url), request.environment).pipe(
      Effect.catch((refused) => refuse(`refused: ${refused.reason}`))
    )
    const traceparent = yield* TraceContext.current
    const options: RequestOptions = {
      method: "POST",
      headers: {
        ...request.headers,
        ...(traceparent === null ? {} : { traceparent }),
        "content-length": Buffer.byteLength(request.body).toString()
      },
      lookup: pinned(addresses)
    }
    const reply = yield* Effect.callback<{ readonly status: number }, WebhookTransport.TransportError>(
      (resume, signal) => {
        const req = (https ? httpsRequest : httpRequest)(url, { ...options, signal }, (res) => {
          res.resume() // the body is not needed; drain it so the socket is released
          res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0 })))
          res.on("error", (e) => resume(refuse(e.message)))
        })
        req.on("error", (e) => resume(refuse(e.message)))
        req.end(request.body)
      }
    )
    yield* Effect.annotateCurrentSpan("http.response.status_code", reply.status)
    return reply
  }).pipe(
    // the time limit covers resolving the host too
    Effect.timeoutOrElse({
      duration: request.timeout,
      orElse: () => refuse(`no reply within ${Duration.format(request.timeout)}`)
    }),
    Effect.withSpan("webhook POST", { kind: "client", attributes: { "http.request.method": "POST" } })
  )

export const layer = Layer.succeed(WebhookTransport.WebhookTransport, WebhookTransport.WebhookTransport.of({ post }))
