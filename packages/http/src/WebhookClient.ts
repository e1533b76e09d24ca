/**
 * The live `WebhookTransport`: one POST over node's http/https, no redirects followed, with the
 * reply time limit, and the SSRF rule enforced on the address actually connected to (the DNS
 * answer at connect time, so a host re-pointed after its URL was checked is still refused).
 */
import { WebhookTransport } from "@ratelock/core"
import type { Partner } from "@ratelock/core"
import { Duration, Effect, Layer } from "effect"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { request as httpRequest, type RequestOptions } from "node:http"
import { request as httpsRequest } from "node:https"
import { isIP, type LookupFunction } from "node:net"
import { classify } from "./WebhookUrl.ts"

const allowed = (address: string, environment: Partner.Environment) => {
  const kind = classify(address)
  return kind === "public" || (kind === "loopback" && environment === "sandbox")
}

/** A resolver for the socket that refuses private, link-local and (outside the sandbox) loopback answers. */
const guardedLookup =
  (environment: Partner.Environment): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: ReadonlyArray<LookupAddress>) => {
      if (error) return callback(error, "", 0)
      const refused = addresses.find((a) => !allowed(a.address, environment))
      if (refused !== undefined || addresses.length === 0) {
        return callback(new Error(`refused: ${hostname} resolves to a non-public address`), "", 0)
      }
      if (options.all)
        return (callback as unknown as (e: null, a: ReadonlyArray<LookupAddress>) => void)(null, addresses)
      const first = addresses[0]!
      callback(null, first.address, first.family)
    })
  }

const refuse = (message: string) => Effect.fail(new WebhookTransport.TransportError({ message }))

const post = (request: WebhookTransport.WebhookRequest) =>
  Effect.suspend(() => {
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return refuse("the webhook URL is not an absolute URL")
    }
    const https = url.protocol === "https:"
    if (!https && !(url.protocol === "http:" && request.environment === "sandbox")) {
      return refuse(`${request.environment} webhooks must use https`)
    }
    const literal = url.hostname.replace(/^\[(.*)\]$/, "$1")
    if (isIP(literal) !== 0 && !allowed(literal, request.environment)) {
      return refuse(`refused: ${literal} is not a public address`)
    }
    const options: RequestOptions = {
      method: "POST",
      headers: { ...request.headers, "content-length": Buffer.byteLength(request.body).toString() },
      lookup: guardedLookup(request.environment)
    }
    return Effect.callback<{ readonly status: number }, WebhookTransport.TransportError>((resume, signal) => {
      const req = (https ? httpsRequest : httpRequest)(url, { ...options, signal }, (res) => {
        res.resume() // the body is not needed; drain it so the socket is released
        res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0 })))
        res.on("error", (e) => resume(refuse(e.message)))
      })
      req.on("error", (e) => resume(refuse(e.message)))
      req.end(request.body)
    }).pipe(
      Effect.timeoutOrElse({
        duration: request.timeout,
        orElse: () => refuse(`no reply within ${Duration.format(request.timeout)}`)
      })
    )
  })

export const layer = Layer.succeed(WebhookTransport.WebhookTransport, WebhookTransport.WebhookTransport.of({ post }))
