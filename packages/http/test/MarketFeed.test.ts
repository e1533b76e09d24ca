/**
 * The market feed against a real local HTTP server that serves a snapshot, answers 304 to its ETag,
 * changes, breaks (500, not JSON, a refused document) and recovers; on the memory store.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryStore } from "@ratelock/adapters-store"
import { MarketSnapshotRepo } from "@ratelock/core"
import { Duration, Effect, Layer, Metric, Option, Ref } from "effect"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import * as MarketFeed from "../src/MarketFeed.ts"
import * as Services from "../src/Services.ts"

const example = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../../docs/market/example-snapshot.json"), "utf8")
)
const observed = (minutesAgo: number) => ({
  ...example,
  as_of: new Date(Date.now() - minutesAgo * 60_000).toISOString()
})

/** What the feed serves next: a body with its ETag, or a failure. */
type Serving = { readonly etag: string; readonly body: string } | { readonly status: number; readonly body: string }

const feedServer = Effect.acquireRelease(
  Effect.promise(async () => {
    let serving: Serving = { status: 503, body: "" }
    const requests: Array<string | undefined> = []
    const server = createServer((req, res) => {
      const ifNoneMatch = req.headers["if-none-match"]
      requests.push(ifNoneMatch)
      if ("etag" in serving) {
        if (ifNoneMatch === serving.etag) return res.writeHead(304).end()
        return res.writeHead(200, { etag: serving.etag, "content-type": "application/json" }).end(serving.body)
      }
      res.writeHead(serving.status).end(serving.body)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    return {
      server,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/snapshot.json`,
      serve: (next: Serving) => {
        serving = next
      },
      requests
    }
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
)

const store = Layer.merge(MemoryStore.layerMemory, Services.crypto)

describe("MarketFeed", () => {
  it.live("imports what it serves, once per ETag; keeps the last good snapshot through failures", () =>
    Effect.gen(function* () {
      const feed = yield* feedServer
      const etag = yield* Ref.make<string | undefined>(undefined)
      const poll = MarketFeed.poll(feed.url, etag)
      const latestAsOf = Effect.gen(function* () {
        const latest = yield* (yield* MarketSnapshotRepo.MarketSnapshotRepo).latest()
        return Option.map(latest, (s) => s.asOf.epochMilliseconds)
      })

      const first = observed(10)
      feed.serve({ etag: '"a"', body: JSON.stringify(first) })
      assert.strictEqual(yield* poll, "imported")
      assert.strictEqual(yield* poll, "unchanged") // 304 to If-None-Match "a"
      assert.deepStrictEqual(feed.requests.slice(-2), [undefined, '"a"'])
      const firstAsOf = Date.parse(first.as_of)
      assert.deepStrictEqual(yield* latestAsOf, Option.some(firstAsOf))

      const second = observed(5)
      feed.serve({ etag: '"b"', body: JSON.stringify(second) })
      assert.strictEqual(yield* poll, "imported")
      assert.deepStrictEqual(yield* latestAsOf, Option.some(Date.parse(second.as_of)))

      // breaks: an HTTP error, something not JSON, a document refused; the last good one stays
      feed.serve({ status: 500, body: "upstream down" })
      assert.match((yield* Effect.flip(poll)).message, /answered HTTP 500/)
      feed.serve({ etag: '"c"', body: "{ not json" })
      assert.match((yield* Effect.flip(poll)).message, /refused: \(document\): not JSON: .*\[json_invalid\]/)
      feed.serve({ etag: '"d"', body: JSON.stringify({ ...observed(1), spot: {} }) })
      const refused = yield* Effect.flip(poll)
      assert.match(refused.message, /refused: .*spot\.USD\/BRL/)
      assert.deepStrictEqual(yield* latestAsOf, Option.some(Date.parse(second.as_of)))

      // recovers
      const third = observed(0)
      feed.serve({ etag: '"e"', body: JSON.stringify(third) })
      assert.strictEqual(yield* poll, "imported")
      assert.deepStrictEqual(yield* latestAsOf, Option.some(Date.parse(third.as_of)))
    }).pipe(Effect.provide(store), Effect.scoped)
  )

  it.live("the worker loop counts failed polls and goes on", () =>
    Effect.gen(function* () {
      const feed = yield* feedServer
      feed.serve({ status: 502, body: "" })
      const before = (yield* Metric.value(MarketFeed.failures)).count
      yield* Layer.build(MarketFeed.layer({ url: feed.url, interval: Duration.millis(20) }))
      yield* Effect.sleep(Duration.millis(200))
      const after = (yield* Metric.value(MarketFeed.failures)).count
      assert.isAtLeast(after - before, 2)
    }).pipe(Effect.provide(store), Effect.scoped)
  )
})
