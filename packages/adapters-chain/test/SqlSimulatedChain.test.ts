/**
 * The SQL simulated chain: the behaviour of the in-memory one (`ChainContract.ts`, run on both) on
 * PGlite and on Postgres, the same addresses and hashes as the in-memory chain, the confirmation delay, and
 * what several processes on one Postgres database do at once (separate clients, real concurrency):
 * share one chain, record a transaction broadcast from everywhere once, number concurrent blocks
 * without gaps and without hiding one from an observer, and create the tables once.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgliteClient } from "@ratelock/adapters-store"
import { type ChainGateway, Money } from "@ratelock/core"
import * as PgliteTemplate from "@ratelock/test-support/PgliteTemplate"
import * as Postgres from "@ratelock/test-support/Postgres"
import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import * as SimulatedChain from "../src/SimulatedChain.ts"
import * as SqlSimulatedChain from "../src/SqlSimulatedChain.ts"
import { freshIndex, freshPayoutId, rail, suite } from "./ChainContract.ts"
import * as SweepContract from "./SweepContract.ts"

const amount = Money.unsafe

// the same contracts on the in-memory chain: the reference the SQL one must match
suite("SimulatedChain (in memory)", SimulatedChain.layer)
suite(
  "SqlSimulatedChain (PGlite)",
  SqlSimulatedChain.layer.pipe(Layer.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() })))
)
SweepContract.suite("SimulatedChain sweeps (in memory)", SimulatedChain.layer)
SweepContract.suite(
  "SqlSimulatedChain sweeps (PGlite)",
  SqlSimulatedChain.layer.pipe(Layer.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() })))
)

describe("SqlSimulatedChain", () => {
  it.effect("derives the in-memory chain's addresses and payout hashes", () =>
    Effect.gen(function* () {
      const sql = yield* Effect.provide(
        SimulatedChain.SimulatedChain.useSync((c) => c),
        SqlSimulatedChain.layer
      )
      const memory = yield* Effect.provide(
        SimulatedChain.SimulatedChain.useSync((c) => c),
        SimulatedChain.layer
      )
      for (const r of [rail("ethereum"), rail("solana", "production"), rail("polygon")]) {
        assert.strictEqual(yield* sql.fundingAddress(r, 5), yield* memory.fundingAddress(r, 5))
        const order = {
          payoutId: "p-1",
          rail: r,
          destination: yield* memory.fundingAddress(r, 9),
          amount: amount("3"),
          committed: Money.zero
        }
        assert.deepStrictEqual(yield* sql.preparePayout(order), yield* memory.preparePayout(order))
        const sweep = {
          sweepId: "s-1",
          rail: r,
          source: yield* memory.fundingAddress(r, 11),
          fundingIndex: 11,
          destination: null,
          amount: amount("3")
        }
        yield* Effect.forEach([sql, memory], (chain) => chain.fund(r, sweep.source, amount("3")), { discard: true })
        const signed = (chain: SimulatedChain.SimulatedChainShape) =>
          Effect.flatMap(chain.draftSweep(sweep), (draft) => draft.sign(null))
        assert.deepStrictEqual(yield* signed(sql), yield* signed(memory))
      }
    }).pipe(Effect.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() })))
  )

  it.effect("transfers and payouts confirm once the delay has passed; the funding cursor waits for them", () =>
    Effect.gen(function* () {
      const chain = yield* SimulatedChain.SimulatedChain
      const pol = rail("polygon")
      const address = yield* chain.fundingAddress(pol, 1)
      const early = yield* chain.fund(pol, address, amount("7"))
      yield* TestClock.adjust("1 second")
      const late = yield* chain.fund(pol, address, amount("8"))

      const before = yield* chain.observeFunding(pol, address, null)
      assert.deepStrictEqual(before, { transfers: [], cursor: String(early.blockNumber - 1) })

      yield* TestClock.adjust("1 second")
      const first = yield* chain.observeFunding(pol, address, before.cursor)
      assert.deepStrictEqual(
        first.transfers.map((t) => t.transactionHash),
        [early.transactionHash]
      )
      assert.strictEqual(first.cursor, String(late.blockNumber - 1))

      yield* TestClock.adjust("1 second")
      const second = yield* chain.observeFunding(pol, address, first.cursor)
      assert.deepStrictEqual(
        second.transfers.map((t) => t.transactionHash),
        [late.transactionHash]
      )
      assert.strictEqual(second.cursor, String(late.blockNumber))

      const order = {
        payoutId: freshPayoutId(),
        rail: pol,
        destination: address,
        amount: amount("2"),
        committed: Money.zero
      }
      const prepared = yield* chain.preparePayout(order)
      yield* chain.broadcastPayout(pol, prepared)
      assert.deepStrictEqual(yield* chain.lookupPayout(pol, prepared), { _tag: "Pending" })
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual((yield* chain.lookupPayout(pol, prepared))._tag, "Confirmed")
    }).pipe(
      Effect.provide(
        SqlSimulatedChain.layerWith({ confirmDelay: "2 seconds" }).pipe(
          Layer.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() }))
        )
      )
    )
  )

  it.effect("a sweep confirms once the delay has passed, and moves the balances then", () =>
    SweepContract.confirmsAfterTheDelay.pipe(
      Effect.provide(
        SqlSimulatedChain.layerWith({ confirmDelay: "2 seconds" }).pipe(
          Layer.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() }))
        )
      )
    )
  )

  it.effect("failNextPayoutOf rejects the next broadcast of that contract's payout, once", () => {
    const payoutId = freshPayoutId()
    const payoutIdOf = (contractId: string) =>
      Effect.succeed(contractId === "contract-7" ? Option.some(payoutId) : Option.none())
    return Effect.gen(function* () {
      const chain = yield* SimulatedChain.SimulatedChain
      const sol = rail("solana")
      const destination = yield* chain.fundingAddress(sol, 2)
      yield* chain.failNextPayoutOf("contract-7")
      // someone else's payout goes through
      const other = yield* chain.preparePayout({
        payoutId: freshPayoutId(),
        rail: sol,
        destination,
        amount: amount("1"),
        committed: Money.zero
      })
      yield* chain.broadcastPayout(sol, other)
      assert.strictEqual((yield* chain.lookupPayout(sol, other))._tag, "Confirmed")

      const order = { payoutId, rail: sol, destination, amount: amount("4"), committed: Money.zero }
      const first = yield* chain.preparePayout(order)
      yield* chain.broadcastPayout(sol, first)
      assert.strictEqual((yield* chain.lookupPayout(sol, first))._tag, "Failed")
      const second = yield* chain.preparePayout(order)
      assert.notStrictEqual(second.transactionHash, first.transactionHash)
      yield* chain.broadcastPayout(sol, second)
      assert.strictEqual((yield* chain.lookupPayout(sol, second))._tag, "Confirmed")
    }).pipe(
      Effect.provide(
        SqlSimulatedChain.layerWith({ payoutIdOf }).pipe(
          Layer.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() }))
        )
      )
    )
  })

  it.effect("failNextPayoutOf needs payoutIdOf", () =>
    Effect.gen(function* () {
      const chain = yield* SimulatedChain.SimulatedChain
      assert.strictEqual((yield* Effect.flip(chain.failNextPayoutOf("contract-1"))).reason, "unsupported")
    }).pipe(
      Effect.provide(
        SqlSimulatedChain.layer.pipe(Layer.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() })))
      )
    )
  )
})

describe.skipIf(Postgres.databaseUrl === undefined)("SqlSimulatedChain on Postgres", () => {
  suite(
    "SqlSimulatedChain (Postgres)",
    SqlSimulatedChain.layer.pipe(
      Layer.provide(Postgres.layerFresh(Postgres.databaseUrl!, { prefix: "ratelock_sim_test" }))
    )
  )
  SweepContract.suite(
    "SqlSimulatedChain sweeps (Postgres)",
    SqlSimulatedChain.layer.pipe(
      Layer.provide(Postgres.layerFresh(Postgres.databaseUrl!, { prefix: "ratelock_sim_test" }))
    )
  )

  /** `n` processes' worth of chains on one fresh database, each with its own connections. */
  const processes = (n: number) =>
    Effect.gen(function* () {
      const { url } = yield* Postgres.fresh(Postgres.databaseUrl!, { prefix: "ratelock_sim_test" })
      const contexts = yield* Effect.all(
        Array.from({ length: n }, () =>
          Layer.build(SqlSimulatedChain.layer.pipe(Layer.provideMerge(Postgres.client(url)))).pipe(Effect.orDie)
        ),
        { concurrency: "unbounded" }
      )
      return contexts.map((c) => ({
        chain: Context.get(c, SimulatedChain.SimulatedChain),
        sql: Context.get(c, SqlClient.SqlClient)
      }))
    })

  it.live(
    "processes on one database share transfers, payouts and the reject switch",
    () =>
      Effect.gen(function* () {
        const [a, b] = yield* processes(2)
        const eth = rail("ethereum")
        const address = yield* a!.chain.fundingAddress(eth, 3)
        const transfer = yield* a!.chain.fund(eth, address, amount("25"))
        const seen = yield* b!.chain.observeFunding(eth, address, null)
        assert.deepStrictEqual(
          seen.transfers.map((t) => [t.transactionHash, t.blockNumber]),
          [[transfer.transactionHash, transfer.blockNumber]]
        )

        const order = {
          payoutId: freshPayoutId(),
          rail: eth,
          destination: address,
          amount: amount("1.5"),
          committed: Money.zero
        }
        const prepared = yield* a!.chain.preparePayout(order)
        assert.deepStrictEqual(yield* b!.chain.preparePayout(order), prepared)
        yield* a!.chain.broadcastPayout(eth, prepared)
        assert.strictEqual((yield* b!.chain.lookupPayout(eth, prepared))._tag, "Confirmed")

        yield* b!.chain.failNextPayout
        const other = yield* a!.chain.preparePayout({ ...order, payoutId: freshPayoutId() })
        yield* a!.chain.broadcastPayout(eth, other)
        assert.strictEqual((yield* b!.chain.lookupPayout(eth, other))._tag, "Failed")
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "processes on one database share balances and sweeps: a job broadcast everywhere moves once, and of sweeps racing for one source's funds one moves them",
    () =>
      Effect.gen(function* () {
        const [a, b] = yield* processes(2)
        const eth = rail("ethereum")
        const fundingIndex = freshIndex()
        const source = yield* a!.chain.fundingAddress(eth, fundingIndex)
        const treasury = yield* a!.chain.fundingAddress(eth, freshIndex())
        yield* a!.chain.fund(eth, source, amount("40"))
        assert.deepStrictEqual((yield* b!.chain.balances(eth, [source])).map(Money.format), ["40"])

        const sweep = (destination: string | null) => ({
          sweepId: `sweep-${crypto.randomUUID()}`,
          rail: eth,
          source,
          fundingIndex,
          destination,
          amount: amount("40")
        })
        const signed = (chain: SimulatedChain.SimulatedChainShape, order: ChainGateway.SweepOrder) =>
          Effect.flatMap(chain.draftSweep(order), (draft) => draft.sign(null))
        // eight sweeps of the same funds, to the treasury or the hot wallet, each drafted by one
        // process (any passes: nothing has moved yet) and broadcast by both, five times, all at once
        const orders = Array.from({ length: 8 }, (_, i) => sweep(i % 2 === 0 ? treasury : null))
        const jobs = yield* Effect.forEach(orders, (order, i) => signed([a!, b!][i % 2]!.chain, order))
        assert.deepStrictEqual(yield* signed(a!.chain, orders[1]!), jobs[1])
        const hot = SweepContract.hotWallets.sandbox.ethereum
        const [hotBefore] = yield* b!.chain.balances(eth, [hot])
        // every connection of both pools open, so the broadcasts below do run at once
        yield* Effect.all(
          [a!, b!].flatMap((p) => Array.from({ length: 10 }, () => p.sql`SELECT pg_sleep(0.05)`)),
          { concurrency: "unbounded", discard: true }
        )
        yield* Effect.all(
          jobs.flatMap((job) =>
            [a!, b!].flatMap((p) => Array.from({ length: 5 }, () => p.chain.broadcastPayout(eth, job)))
          ),
          { concurrency: "unbounded", discard: true }
        )
        const rows = yield* a!.sql<{ readonly n: string }>`SELECT count(*) AS n FROM sim_sweeps
          WHERE sweep_id IN ${a!.sql.in(orders.map((o) => o.sweepId))}`
        assert.strictEqual(Number(rows[0]!.n), 8)
        const outcomes = yield* Effect.forEach(jobs, (job, i) => [b!, a!][i % 2]!.chain.lookupPayout(eth, job))
        const tags = outcomes.map((o) => (o._tag === "Failed" ? o.reason : o._tag))
        assert.strictEqual(tags.filter((t) => t === "Confirmed").length, 1, tags.join())
        assert.strictEqual(tags.filter((t) => t === "insufficient_funds").length, 7, tags.join())
        const [sourceHeld, treasuryHeld, hotHeld] = yield* a!.chain.balances(eth, [source, treasury, hot])
        assert.strictEqual(Money.format(sourceHeld!), "0")
        assert.strictEqual(Money.format(Money.sum(treasuryHeld!, Money.subtract(hotHeld!, hotBefore!))), "40")
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "a transaction broadcast from four processes at once is recorded once",
    () =>
      Effect.gen(function* () {
        const all = yield* processes(4)
        const first = all[0]!
        const pol = rail("polygon")
        const address = yield* first.chain.fundingAddress(pol, 4)
        const order = {
          payoutId: freshPayoutId(),
          rail: pol,
          destination: address,
          amount: amount("9"),
          committed: Money.zero
        }
        const prepared = yield* first.chain.preparePayout(order)
        yield* first.chain.failNextPayout
        yield* Effect.all(
          all.flatMap((p) => Array.from({ length: 10 }, () => p.chain.broadcastPayout(pol, prepared))),
          { concurrency: "unbounded", discard: true }
        )
        const rows = yield* first.sql<{ readonly n: string }>`SELECT count(*) AS n FROM sim_broadcasts
          WHERE payout_id = ${order.payoutId}`
        assert.strictEqual(Number(rows[0]!.n), 1)
        // every process sees the one outcome, and the rejection was used up by it alone
        const lookups = yield* Effect.forEach(all, (p) => p.chain.lookupPayout(pol, prepared))
        assert.deepStrictEqual(new Set(lookups.map((l) => l._tag)), new Set(["Failed"]))
        const next = yield* first.chain.preparePayout(order)
        yield* all[2]!.chain.broadcastPayout(pol, next)
        assert.strictEqual((yield* all[3]!.chain.lookupPayout(pol, next))._tag, "Confirmed")
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "concurrent transfers take consecutive blocks, and an observer running meanwhile misses none",
    () =>
      Effect.gen(function* () {
        const all = yield* processes(4)
        const sol = rail("solana")
        const address = yield* all[0]!.chain.fundingAddress(sol, freshIndex())
        const seen: Array<string> = []
        let cursor: string | null = null
        const observe = Effect.gen(function* () {
          const o: ChainGateway.FundingObservation = yield* all[1]!.chain.observeFunding(sol, address, cursor)
          seen.push(...o.transfers.map((t) => t.transactionHash))
          cursor = o.cursor
        })
        const funded = yield* Effect.all(
          all.flatMap((p) => Array.from({ length: 25 }, () => p.chain.fund(sol, address, amount("1")))),
          { concurrency: 20 }
        ).pipe(Effect.raceFirst(Effect.forever(observe)))
        yield* observe
        const blocks = funded.map((t) => t.blockNumber).sort((x, y) => x - y)
        assert.deepStrictEqual(
          blocks,
          blocks.map((_, i) => blocks[0]! + i)
        )
        assert.strictEqual(seen.length, 100)
        assert.sameMembers(
          seen,
          funded.map((t) => t.transactionHash)
        )
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "six processes starting at once create the tables once",
    () =>
      Effect.gen(function* () {
        const all = yield* processes(6)
        const rows = yield* all[0]!.sql<{ readonly n: string }>`SELECT count(*) AS n FROM pg_tables
          WHERE tablename LIKE 'sim\\_%'`
        assert.strictEqual(Number(rows[0]!.n), 5)
      }).pipe(Effect.scoped),
    30_000
  )
})
