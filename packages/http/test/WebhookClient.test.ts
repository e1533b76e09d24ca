/**
 * The live webhook transport against a real local receiver: status passed through, the SSRF rule
 * on the connected address (loopback only in the sandbox), https only in production, the timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import { WebhookTransport } from "@ratelock/core"
import { Duration, Effect } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as WebhookClient from "../src/WebhookClient.ts"

const listen = (handler: Parameters<typeof createServer>[1]) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<Server>((resolve) => {
          const server = createServer(handler)
          server.listen(0, "127.0.0.1", () => resolve(server))
        })
    ),
    (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

const post = (request: Partial<WebhookTransport.WebhookRequest> & { url: string }) =>
  Effect.flatMap(WebhookTransport.WebhookTransport, (t) =>
    t.post({ environment: "sandbox", headers: {}, body: "{}", timeout: Duration.seconds(2), ...request })
  ).pipe(Effect.provide(WebhookClient.layer))

describe("WebhookClient", () => {
  it.live("posts the body with its headers and returns the receiver's status", () =>
    Effect.gen(function* () {
      const seen: Array<{ body: string; signature: string | undefined }> = []
      const server = yield* listen((req, res) => {
        let body = ""
        req.on("data", (c) => (body += c))
        req.on("end", () => {
          seen.push({ body, signature: req.headers["x-partner-signature"] as string | undefined })
          res.statusCode = seen.length === 1 ? 500 : 204
          res.end("ignored")
        })
      })
      const url = `http://localhost:${(server.address() as AddressInfo).port}/hook`
      const first = yield* post({ url, body: '{"a":1}', headers: { "x-partner-signature": "abc" } })
      const second = yield* post({ url })
      assert.deepStrictEqual([first.status, second.status], [500, 204])
      assert.deepStrictEqual(seen[0], { body: '{"a":1}', signature: "abc" })
    }).pipe(Effect.scoped)
  )

  it.live("refuses loopback and private destinations in production, and plain http", () =>
    Effect.gen(function* () {
      const server = yield* listen((_req, res) => res.end())
      const port = (server.address() as AddressInfo).port
      const byName = yield* Effect.flip(post({ url: `https://localhost:${port}/`, environment: "production" }))
      assert.include(byName.message, "non-public")
      const literal = yield* Effect.flip(post({ url: "https://10.1.2.3/hook", environment: "production" }))
      assert.include(literal.message, "not a public address")
      const metadata = yield* Effect.flip(post({ url: "http://169.254.169.254/latest", environment: "sandbox" }))
      assert.include(metadata.message, "not a public address")
      const plain = yield* Effect.flip(post({ url: "http://example.com/hook", environment: "production" }))
      assert.include(plain.message, "https")
    }).pipe(Effect.scoped)
  )

  it.live("gives up when the receiver does not answer in time", () =>
    Effect.gen(function* () {
      const server = yield* listen(() => {}) // never answers
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
      const error = yield* Effect.flip(post({ url, timeout: Duration.millis(200) }))
      assert.include(error.message, "no reply within")
    }).pipe(Effect.scoped)
  )
})
