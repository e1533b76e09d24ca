/**
 * The in-memory Ratelock: the whole service in one layer, for integrators' tests and ours.
 *
 * - the stores in memory (`MemoryStore.layerMemory`), the simulated chain confirming at once,
 *   core's market-data defaults, deterministic ids (`IdGenerator.layerTest`);
 * - Effect's `TestClock`, started at a fixed instant: nothing moves until a test moves it
 *   (`Simulation.advance`), and the lifecycle workers run when a test runs them
 *   (`Simulation.runWorkers`, or waiting for a webhook with `WebhookInbox.awaitEvent`);
 * - a partner with credentials already made (`TestPartner`), its webhooks captured by the
 *   `WebhookInbox`;
 * - the real Partner API served in process: `fetch`, a web `handler`, an Effect `HttpClient`
 *   and the typed client of `@ratelock/http/client`, no port.
 *
 * The layer also provides core's ports and the `TestClock`, so core's own programs run on the
 * same store and time as the API.
 */
import { SimulatedChain } from "@ratelock/adapters-chain"
import { MemoryStore } from "@ratelock/adapters-store"
import {
  type ChainGateway,
  type ContractRepo,
  type CorridorLimitRepo,
  type EventRepo,
  type IdempotencyRepo,
  DailyCloses,
  IdGenerator,
  MarketData,
  type MarketSnapshot,
  type MarketSnapshotRepo,
  type PartnerRepo,
  PayoutRepo,
  QuotePolicy,
  type QuoteRepo,
  RetryPolicy,
  type WebhookTransport
} from "@ratelock/core"
import { ChainAvailability, RateLimiter, Readiness, Server } from "@ratelock/http"
import { type Client, type Credentials, makeClient } from "@ratelock/http/client"
import { Context, DateTime, Duration, Effect, Layer, Option, Random, Ref } from "effect"
import { type Digest, Mac, type SecureRandom } from "effect/crypto"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import * as InProcess from "./internal/inProcess.ts"
import * as Simulation from "./Simulation.ts"
import * as TestPartner from "./TestPartner.ts"
import * as WebhookInbox from "./WebhookInbox.ts"

export type { FetchLike } from "./internal/inProcess.ts"

export interface Options {
  /** Where the clock starts (default `2026-01-05T09:00:00Z`, a Monday). */
  readonly start?: DateTime.DateTime.Input
  /** The name of the partner made with the layer (default "Testkit Partner"). */
  readonly partnerName?: string
  /** Quote TTL, funding window and the other numbers of pricing (default core's). */
  readonly quotePolicy?: Partial<QuotePolicy.QuotePolicyShape>
  /** Payout and webhook retry schedules (default core's: the production schedules). */
  readonly retryPolicy?: RetryPolicy.RetryPolicyShape
  /** Per-key request budget (default: out of the way, 1,000,000 a second). */
  readonly rateLimit?: RateLimiter.RateLimitShape
  /** Which environments the deployment serves (default both; a disabled one answers 403). */
  readonly environments?: ChainAvailability.ChainAvailabilityShape
  /**
   * The market snapshot every environment prices from, whatever its age (default: core's illustrative snapshot
   * observed at the test clock's now, pricing.md's table).
   */
  readonly marketData?: MarketSnapshot.MarketSnapshot
  /** Seed of the random generator behind webhook retry jitter (default "ratelock-testkit"). */
  readonly seed?: string
  /** `false`: `GET /ready` answers 503 `not_ready`, as when the service's database is unreachable. */
  readonly ready?: boolean
}

export interface RatelockShape {
  /** The partner made with the layer: its keys, webhook secret and webhook URLs. */
  readonly partner: TestPartner.TestPartner
  /** The origin of in-process URLs (`http://ratelock.test`). */
  readonly baseUrl: string
  /** `fetch` against the API, in process; a path alone is resolved against `baseUrl`. */
  readonly fetch: InProcess.FetchLike
  /** The API as a web handler: `Request` in, `Response` out. */
  readonly handler: (request: Request) => Promise<Response>
  /** An Effect `HttpClient` whose requests reach the API in process. */
  readonly httpClient: HttpClient.HttpClient
  /** The typed client of `@ratelock/http/client`, with the partner's sandbox key. */
  readonly client: Client
  /** A typed client with other credentials. */
  readonly clientFor: (credentials: Credentials) => Effect.Effect<Client>
  /** A fresh Idempotency-Key (`testkit-000001`, `testkit-000002`, …). */
  readonly idempotencyKey: Effect.Effect<string>
}

export class Ratelock extends Context.Service<Ratelock, RatelockShape>()("@ratelock/testkit/Ratelock") {}

/** Core's ports the layer provides, on the same memory store, chain and clock as the API. */
export type Ports =
  | QuoteRepo.QuoteRepo
  | ContractRepo.ContractRepo
  | EventRepo.EventRepo
  | IdempotencyRepo.IdempotencyRepo
  | PayoutRepo.PayoutRepo
  | PartnerRepo.PartnerRepo
  | MarketSnapshotRepo.MarketSnapshotRepo
  | CorridorLimitRepo.CorridorLimitRepo
  | ChainGateway.ChainGateway
  | SimulatedChain.SimulatedChain
  | MarketData.MarketData
  | IdGenerator.IdGenerator
  | WebhookTransport.WebhookTransport
  | Digest.Digest
  | Mac.Mac
  | SecureRandom.SecureRandom
  | Readiness.Readiness

/** Everything `layer` provides. */
export type Services = Ratelock | Simulation.Simulation | WebhookInbox.WebhookInbox | TestClock.TestClock | Ports

export const defaultStart = "2026-01-05T09:00:00.000Z"

/** The id of a contract's payout once it has one: how the simulated chain fails a contract's next payout. */
const payoutIdOf = (contractId: string) =>
  PayoutRepo.PayoutRepo.use((repo) => repo.findByContract(contractId)).pipe(
    Effect.map(Option.map((payout) => payout.id))
  )

const notReady = Layer.succeed(
  Readiness.Readiness,
  Readiness.Readiness.of({
    check: Effect.fail(new Readiness.NotReady({ message: "database unreachable" })),
    migrations: Effect.fail(new Readiness.NotReady({ message: "database unreachable" }))
  })
)

const settings = (options: Options) =>
  Layer.mergeAll(
    Layer.succeed(QuotePolicy.QuotePolicy, { ...QuotePolicy.defaults, ...options.quotePolicy }),
    Layer.succeed(RetryPolicy.RetryPolicy, options.retryPolicy ?? RetryPolicy.defaults),
    // the close waits for no concurrent commit here, and a sleep would wait for the test to move the clock
    Layer.succeed(DailyCloses.Settle, Duration.zero),
    Layer.succeed(RateLimiter.RateLimitConfig, options.rateLimit ?? { ratePerSecond: 1_000_000, burst: 1_000_000 }),
    Layer.succeed(ChainAvailability.ChainAvailability, options.environments ?? { sandbox: true, production: true }),
    Layer.effect(
      Random.Random,
      Effect.gen(function* () {
        return yield* Random.Random
      }).pipe(Random.withSeed(options.seed ?? "ratelock-testkit"))
    )
  )

const ports = (options: Options) => {
  const store = MemoryStore.layerMemory
  const crypto = Mac.layerWebCrypto.pipe(Layer.provideMerge(Server.layerCrypto))
  const chain = SimulatedChain.layerWith({ payoutIdOf }).pipe(Layer.provide(store))
  return WebhookInbox.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        store,
        chain,
        crypto,
        IdGenerator.IdGenerator.layerTest,
        options.marketData === undefined
          ? MarketData.MarketData.layerDefaults
          : // the testkit's clock is the test's: a fixed snapshot prices whatever its age, as documented above
            MarketData.MarketData.layerSnapshot(options.marketData, { maxAge: Duration.infinity }),
        options.ready === false ? notReady : Readiness.Readiness.layerAlways
      )
    )
  )
}

const make = (options: Options) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(DateTime.toUtc(DateTime.makeUnsafe(options.start ?? defaultStart)).epochMilliseconds)
    const partner = yield* TestPartner.make(options.partnerName ?? "Testkit Partner").pipe(Effect.orDie)
    const api = yield* InProcess.make
    const clientFor = (credentials: Credentials) =>
      makeClient(InProcess.baseUrl, credentials).pipe(Effect.provideService(HttpClient.HttpClient, api.httpClient))
    const keys = yield* Ref.make(0)
    return Ratelock.of({
      partner,
      baseUrl: InProcess.baseUrl,
      fetch: api.fetch,
      handler: api.handler,
      httpClient: api.httpClient,
      client: yield* clientFor(partner.sandbox),
      clientFor,
      idempotencyKey: Effect.map(
        Ref.updateAndGet(keys, (n) => n + 1),
        (n) => `testkit-${String(n).padStart(6, "0")}`
      )
    })
  })

/** The in-memory Ratelock with `options`. */
export const layerWith = (options: Options = {}): Layer.Layer<Services> =>
  Layer.effect(Ratelock, make(options)).pipe(
    Layer.provideMerge(Simulation.layer),
    Layer.provideMerge(ports(options)),
    Layer.provideMerge(settings(options)),
    Layer.provideMerge(TestClock.layer())
  )

/** The in-memory Ratelock with the defaults. */
export const layer: Layer.Layer<Services> = layerWith()

/** The partner made with the layer. */
export const partner: Effect.Effect<TestPartner.TestPartner, never, Ratelock> = Ratelock.useSync((r) => r.partner)

/** The typed client with the partner's sandbox key. */
export const client: Effect.Effect<Client, never, Ratelock> = Ratelock.useSync((r) => r.client)

/** An Effect `HttpClient` reaching the API in process, for code written against `HttpClient`. */
export const layerHttpClient: Layer.Layer<HttpClient.HttpClient, never, Ratelock> = Layer.effect(
  HttpClient.HttpClient,
  Ratelock.useSync((r) => r.httpClient)
)

/** `fetch` against the API in process. */
export const fetch = (input: string | URL | Request, init?: RequestInit): Effect.Effect<Response, never, Ratelock> =>
  Ratelock.use((r) => Effect.promise(() => r.fetch(input, init)))

/** A new partner with keys and webhook endpoints in both environments. */
export const makePartner = (name: string): Effect.Effect<TestPartner.TestPartner, never, Services> =>
  Effect.orDie(TestPartner.make(name))
