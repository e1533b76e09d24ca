/**
 * The service as `Host.ts` composes it, for whole lifecycles over real HTTP: `Server.layer` on an
 * ephemeral port, the lifecycle workers (`Workers.layer`, polling every 50 ms) delivering through
 * the live `WebhookClient`, the embedded store (PGlite in memory), and the sandbox's simulated
 * chain built as the host builds it (`SandboxChain.options`) with a short confirmation delay.
 * The retry schedules are shortened (core's `RetryPolicy`) so retries happen within a test.
 *
 * One partner is seeded with a sandbox and a production key; its sandbox webhook URL points at
 * a real local receiver (`receiver.ts`) with a `whsec_` secret.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { SimulatedChain } from "@ratelock/adapters-chain"
import * as PgliteTemplate from "@ratelock/test-support/PgliteTemplate"
import { EmbeddedStore, type PgStore } from "@ratelock/adapters-store"
import {
  type ChainGateway,
  ApiKeySecret,
  IdGenerator,
  MarketData,
  type Partner,
  PartnerRepo,
  QuotePolicy,
  RetryPolicy
} from "@ratelock/core"
import { Context, DateTime, Duration, Effect, Layer, References } from "effect"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import * as Chains from "../../src/Chains.ts"
import * as SandboxChain from "../../src/sandbox/SandboxChain.ts"
import { ChainAvailability } from "../../src/server/ChainAvailability.ts"
import { RateLimitConfig } from "../../src/server/RateLimiter.ts"
import { Readiness } from "../../src/server/Readiness.ts"
import * as Server from "../../src/server/Server.ts"
import * as Services from "../../src/Services.ts"
import * as WebhookClient from "../../src/WebhookClient.ts"
import * as Workers from "../../src/Workers.ts"
import * as Receiver from "./webhookReceiver.ts"
import type { Key } from "./server.ts"

export class Lifecycle extends Context.Service<
  Lifecycle,
  {
    readonly baseUrl: string
    readonly partnerId: string
    readonly sandbox: Key
    readonly production: Key
  }
>()("test/Lifecycle") {}

export interface Options {
  /**
   * The simulated chain's confirmation delay (`RATELOCK_SANDBOX_CONFIRM_MS`); default 20 ms.
   */
  readonly confirmDelay?: Duration.Input
}

/** Short retry schedules: a failed payout is retried after 200 ms, a failed delivery after 100 ms. */
export const retryPolicy: RetryPolicy.RetryPolicyShape = {
  payoutRetries: [Duration.millis(200), Duration.millis(400), Duration.millis(800)],
  deliveryRetries: [Duration.millis(100), Duration.millis(200), Duration.millis(400), Duration.seconds(1)],
  deliveryHorizon: Duration.minutes(5)
}

const seed = Effect.gen(function* () {
  const partners = yield* PartnerRepo.PartnerRepo
  const ids = yield* IdGenerator.IdGenerator
  const receiver = yield* Receiver.Receiver
  const now = yield* DateTime.now
  const partnerId = yield* ids.uuid
  yield* partners.insertPartner({ id: partnerId, name: "Lifecycle Pay", createdAt: now })
  const key = Effect.fnUntraced(function* (environment: Partner.Environment) {
    const keyId = yield* ids.uuid
    const secret = yield* ApiKeySecret.newSecret
    yield* partners.insertApiKey({
      id: keyId,
      partnerId,
      environment,
      secretHash: yield* ApiKeySecret.hashSecret(secret),
      createdAt: now,
      revokedAt: null
    })
    return { keyId, secret, environment } satisfies Key
  })
  yield* partners.saveWebhookEndpoint({
    partnerId,
    environment: "sandbox",
    url: receiver.url,
    secrets: [{ secret: receiver.secret, validUntil: null }]
  })
  const address = (yield* HttpServer.HttpServer).address
  return Lifecycle.of({
    baseUrl: `http://127.0.0.1:${address._tag === "UnixPathAddress" ? 0 : address.port}`,
    partnerId,
    sandbox: yield* key("sandbox"),
    production: yield* key("production")
  })
})

/**
 * What the tests reach besides HTTP: the store (to read a contract's ledger), its readiness, the
 * market data, and the crypto and ids (an operator listener beside the server runs on them).
 */
export type Provided =
  | Lifecycle
  | Receiver.Receiver
  | PgStore.Repos
  | Readiness
  | MarketData.MarketData
  | Layer.Success<typeof Services.layer>
  | ChainGateway.ChainGateway

export const layer = (options: Options = {}): Layer.Layer<Provided> => {
  const store = Readiness.layerSql.pipe(Layer.provideMerge(EmbeddedStore.layer({ loadDataDir: PgliteTemplate.dump() })))
  const chainOptions = SandboxChain.options({
    sandboxConfirmDelay: Duration.fromInputUnsafe(options.confirmDelay ?? "20 millis")
  })
  const ports = Layer.mergeAll(
    store,
    // every chain call timed, as the host's `Chains.layer` does
    Chains.measured.pipe(Layer.provideMerge(SimulatedChain.layerWith(chainOptions)), Layer.provide(store)),
    MarketData.MarketData.layerDefaults,
    // crypto and the webhook URL rules, as the host has them
    Services.layer
  )
  const settings = Layer.mergeAll(
    Layer.succeed(QuotePolicy.QuotePolicy, QuotePolicy.defaults),
    Layer.succeed(RateLimitConfig, { ratePerSecond: 1000, burst: 1000 }),
    Layer.succeed(ChainAvailability, { sandbox: true, production: true }),
    Layer.succeed(RetryPolicy.RetryPolicy, retryPolicy),
    // request logs off; an unexpected 500 still shows its cause
    Layer.succeed(References.MinimumLogLevel, "Error")
  )
  const workers = Workers.layer({ pollInterval: Duration.millis(50), owner: "lifecycle-test" }).pipe(
    Layer.provide(WebhookClient.layer)
  )
  return Layer.effect(Lifecycle, seed).pipe(
    Layer.provideMerge(Server.layer),
    Layer.provideMerge(workers),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(Receiver.layer),
    Layer.provideMerge(ports),
    Layer.provide(settings),
    Layer.orDie
  )
}
