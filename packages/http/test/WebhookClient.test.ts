/**
 * The live webhook transport against a real local receiver: status passed through, the SSRF rule
 * (WebhookUrl's, the same as when the URL is set) on the address resolved at delivery and
 * connected to (loopback only in the sandbox), https only in production, the timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import { WebhookTransport } from "@ratelock/core"
import { Duration, Effect } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as WebhookClient from "../src/WebhookClient.ts"
import * as WebhookUrl from "../src/WebhookUrl.ts"

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
      assert.match(byName.message, /^refused: localhost resolves to .*, which is loopback/)
      const literal = yield* Effect.flip(post({ url: "https://10.1.2.3/hook", environment: "production" }))
      assert.strictEqual(literal.message, "refused: 10.1.2.3 is private (10.0.0.0/8)")
      const metadata = yield* Effect.flip(post({ url: "http://169.254.169.254/latest", environment: "sandbox" }))
      assert.include(metadata.message, "is link-local")
      const nat64 = yield* Effect.flip(post({ url: "https://[64:ff9b::a9fe:a9fe]/", environment: "production" }))
      assert.include(nat64.message, "64:ff9b::a9fe:a9fe embeds 169.254.169.254, which is link-local")
      const plain = yield* Effect.flip(post({ url: "http://example.com/hook", environment: "production" }))
      assert.include(plain.message, "https")
    }).pipe(Effect.scoped)
  )

  it.live("judges the host's addresses again at delivery, and connects only to those it judged", () =>
    Effect.gen(function* () {
      const url = "https://hooks.rebind.test/h"
      const answer = (addresses: ReadonlyArray<string>) => () => Effect.succeed(addresses)
      // public when the URL is set …
      const set = yield* Effect.provideService(
        WebhookUrl.validate(url, "production"),
        WebhookUrl.Resolver,
        answer(["93.184.215.14"])
      )
      assert.strictEqual(set, url)
      // … re-pointed at the metadata service (through NAT64) by delivery time
      const rebound = yield* Effect.flip(
        Effect.provideService(
          post({ url, environment: "production" }),
          WebhookUrl.Resolver,
          answer(["64:ff9b::a9fe:a9fe"])
        )
      )
      assert.strictEqual(
        rebound.message,
        "refused: hooks.rebind.test resolves to 64:ff9b::a9fe:a9fe, which embeds 169.254.169.254, which is link-local (169.254.0.0/16)"
      )
      // a name only the resolver knows reaches the receiver: the socket uses the judged answer
      const server = yield* listen((_req, res) => {
        res.statusCode = 202
        res.end()
      })
      const local = `http://receiver.test:${(server.address() as AddressInfo).port}/`
      const reached = yield* Effect.provideService(post({ url: local }), WebhookUrl.Resolver, answer(["127.0.0.1"]))
      assert.strictEqual(reached.status, 202)
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
