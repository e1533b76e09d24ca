/**
 * A hedging worker process for the crash tests: core's `Hedging.pass` on a loop, as the host's
 * workers run it (`RATELOCK_WORKER_POLL_MS`, `RATELOCK_WORKER_LEASE_MS`), on the PostgreSQL of
 * `DATABASE_URL`, sending to the SQL simulated venue (`RATELOCK_HEDGE_SPREAD_BPS`). The book's
 * delta, which the host will take from the risk revaluation, is the test's input here: a table
 * the test writes, `test_book_delta (environment, pair, delta)`.
 *
 * `node --conditions=source test/support/hedge/hedger.ts`; prints `hedger running` once it runs.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { PgStore, SimulatedHedgeVenue } from "@ratelock/adapters-store"
import { BookDelta, Hedging, IdGenerator, Lease, MarketData, Money, type Partner, StoreError } from "@ratelock/core"
import { Console, DateTime, Duration, Effect, Layer, Schedule } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"

const env = (name: string, fallback: string) => process.env[name] ?? fallback

const book = Layer.effect(
  BookDelta.BookDelta,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return BookDelta.BookDelta.of({
      deltas: (environment: Partner.Environment) =>
        Effect.gen(function* () {
          const rows = yield* sql<{ readonly pair: string; readonly delta: string }>`
            SELECT pair, delta::text AS delta FROM test_book_delta WHERE environment = ${environment}`
          const asOf = yield* DateTime.now
          return rows.map((r) => ({ pair: r.pair, delta: Money.unsafe(r.delta), snapshotId: null, asOf }))
        }).pipe(Effect.mapError((cause) => new StoreError.StoreError({ message: "test_book_delta", cause })))
    })
  })
)

const services = Layer.mergeAll(
  SimulatedHedgeVenue.layerSql({ spreadBps: Money.unsafe(env("RATELOCK_HEDGE_SPREAD_BPS", "5")) }),
  book,
  IdGenerator.IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto))
).pipe(Layer.provideMerge(MarketData.MarketData.layerDefaults), Layer.provideMerge(PgStore.layerConfig))

const worker: Lease.WorkerShape = {
  owner: `hedger:${process.pid}`,
  leaseFor: Duration.millis(Number(env("RATELOCK_WORKER_LEASE_MS", "2000"))),
  batch: 100,
  concurrency: 4
}

const loop = Hedging.pass().pipe(
  Effect.catchCause((cause) => Effect.logError("hedging pass failed", cause)),
  Effect.repeat(Schedule.spaced(Duration.millis(Number(env("RATELOCK_WORKER_POLL_MS", "100")))))
)

Effect.gen(function* () {
  yield* Console.log("hedger running")
  yield* loop
}).pipe(Effect.provideService(Lease.Worker, worker), Effect.provide(services), NodeRuntime.runMain)
