/**
 * The whole server on a real socket for end-to-end tests: `Server.layer` on an ephemeral port,
 * over the embedded Postgres (PGlite in memory) or the memory store, on the simulated chain. Two
 * partners are seeded with keys in both environments (and one revoked key) through `PartnerRepo`.
 * The memory store here serves the concurrency suite, which runs the same requests over sockets
 * against every store, and tests that need only a store (or one whose readiness they replace).
 * Tests on the test clock, without a socket, run on the testkit's in-memory Ratelock, in the
 * testkit's own tests (it depends on this package, so this package's tests cannot import it).
 *
 * The layer also exposes the ports, so a test can run core's worker programs (funding, payouts)
 * against the same store the server uses.
 */
import { NodeHttpServer } from "@effect/platform-node"
import type { SimulatedChain } from "@ratelock/adapters-chain"
import * as PgliteTemplate from "@ratelock/test-support/PgliteTemplate"
import { EmbeddedStore, MemoryStore, type PgStore } from "@ratelock/adapters-store"
import {
  ApiKeySecret,
  IdGenerator,
  MarketData,
  type Partner,
  PartnerRepo,
  QuotePolicy,
  type WebhookUrlCheck
} from "@ratelock/core"
import { Context, DateTime, Duration, Effect, Layer, References } from "effect"
import type { SecureRandom } from "effect/crypto"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import { ChainAvailability, type ChainAvailabilityShape } from "../../src/server/ChainAvailability.ts"
import { RateLimitConfig, type RateLimitShape } from "../../src/server/RateLimiter.ts"
import { Readiness } from "../../src/server/Readiness.ts"
import * as Server from "../../src/server/Server.ts"
import * as WebhookUrl from "../../src/WebhookUrl.ts"
import * as Chain from "./chain.ts"

export interface Key {
  readonly keyId: string
  readonly secret: string
  readonly environment: Partner.Environment
}

export interface SeededPartner {
  readonly id: string
  readonly name: string
  readonly sandbox: Key
  readonly production: Key
  /** A sandbox key revoked at seeding. */
  readonly revoked: Key
}

export class TestServer extends Context.Service<
  TestServer,
  { readonly baseUrl: string; readonly a: SeededPartner; readonly b: SeededPartner }
>()("test/TestServer") {}

/** A store for the server: the repositories and their readiness check. */
export type StoreLayer = Layer.Layer<PgStore.Repos | Readiness>

export interface Options {
  /** The embedded Postgres (default), the memory store, or a store layer of the caller's. */
  readonly store?: "embedded" | "memory" | StoreLayer
  readonly quoteTtl?: Duration.Input
  readonly rateLimit?: RateLimitShape
  readonly chains?: ChainAvailabilityShape
}

const seedPartner = Effect.fnUntraced(function* (name: string) {
  const partners = yield* PartnerRepo.PartnerRepo
  const ids = yield* IdGenerator.IdGenerator
  const now = yield* DateTime.now
  const id = yield* ids.uuid
  yield* partners.insertPartner({ id, name, createdAt: now })
  const key = Effect.fnUntraced(function* (environment: Partner.Environment, revoked = false) {
    const keyId = yield* ids.uuid
    const secret = yield* ApiKeySecret.newSecret
    const secretHash = yield* ApiKeySecret.hashSecret(secret)
    yield* partners.insertApiKey({
      id: keyId,
      partnerId: id,
      environment,
      secretHash,
      createdAt: now,
      revokedAt: revoked ? now : null
    })
    return { keyId, secret, environment } satisfies Key
  })
  return {
    id,
    name,
    sandbox: yield* key("sandbox"),
    production: yield* key("production"),
    revoked: yield* key("sandbox", true)
  } satisfies SeededPartner
})

const store = (options: Options): StoreLayer =>
  options.store === "memory"
    ? Layer.merge(MemoryStore.layerMemory, Readiness.layerAlways)
    : options.store === undefined || options.store === "embedded"
      ? Readiness.layerSql.pipe(
          Layer.provideMerge(EmbeddedStore.layer({ loadDataDir: PgliteTemplate.dump() })),
          Layer.orDie
        )
      : options.store

/** The server, and the ports it runs on for tests that drive the workers' programs. */
export type Provided =
  | TestServer
  | Chain.ChainHooks
  | SimulatedChain.SimulatedChain
  | Server.Ports
  | PgStore.Repos
  | SecureRandom.SecureRandom
  | WebhookUrlCheck.WebhookUrlCheck

export const layer = (options: Options = {}): Layer.Layer<Provided> => {
  const ports = Layer.mergeAll(
    store(options),
    Chain.layer,
    MarketData.MarketData.layerDefaults,
    IdGenerator.IdGenerator.layer.pipe(Layer.provideMerge(Server.layerCrypto)),
    // the webhook URL rules, as the host has them (the operator's partner routes check URLs)
    WebhookUrl.layer
  )
  const settings = Layer.mergeAll(
    Layer.succeed(QuotePolicy.QuotePolicy, {
      ...QuotePolicy.defaults,
      quoteTtl: Duration.fromInputUnsafe(options.quoteTtl ?? "90 seconds")
    }),
    Layer.succeed(RateLimitConfig, options.rateLimit ?? { ratePerSecond: 1000, burst: 1000 }),
    Layer.succeed(ChainAvailability, options.chains ?? { sandbox: true, production: true }),
    // request logs off; an unexpected 500 still shows its cause
    Layer.succeed(References.MinimumLogLevel, "Error")
  )
  const testServer = Layer.effect(
    TestServer,
    Effect.gen(function* () {
      const address = (yield* HttpServer.HttpServer).address
      const port = address._tag === "UnixPathAddress" ? 0 : address.port
      return TestServer.of({
        baseUrl: `http://127.0.0.1:${port}`,
        a: yield* seedPartner("Acme Pay"),
        b: yield* seedPartner("Beta Remit")
      })
    })
  )
  return testServer.pipe(
    Layer.provideMerge(Server.layer),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0 })),
    Layer.provideMerge(ports),
    Layer.provide(settings),
    Layer.orDie
  )
}
