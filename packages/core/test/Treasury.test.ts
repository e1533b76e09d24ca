/**
 * The treasury: the hot-wallet pass stores what the gateway answers (exactly, once a minute, a
 * chain that fails skipped, a chain without a hot wallet storing nothing); the view's arithmetic
 * of payouts due against balances is exact; a wallet under its threshold or payouts stuck make
 * the status degraded, with the reason. On adapters-store's memory store and the fake chain; the
 * payouts due come from a `PayoutRepo` whose `list` answers the records given.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { MemoryStore } from "@ratelock/adapters-store"
import {
  ChainGateway,
  HotWalletRepo,
  HotWallets,
  Money,
  OperatorStatus,
  PayoutRepo,
  SettlementRails,
  Treasury,
  WorkerPasses
} from "@ratelock/core"
import { FakeChain } from "./fakes/FakeChain.ts"

const start = Date.parse("2026-11-23T12:00:00Z")
const at = (offsetMs: number) => DateTime.makeUnsafe(start + offsetMs)
const dec = Money.unsafe

/** Production settles on polygon and ethereum; the sandbox everywhere (on chains without a hot wallet). */
const rails: SettlementRails.SettlementRailsShape = {
  supports: (environment, chain, token) =>
    environment === "sandbox"
      ? SettlementRails.everyIssuedToken.supports(environment, chain, token)
      : chain !== "solana"
}

let payoutSeq = 0

/** A payout due (pending unless told), created at the start. */
const payout = (overrides: Partial<PayoutRepo.PayoutRecord> = {}): PayoutRepo.PayoutRecord => {
  const id = `00000000-0000-4000-8000-${String(++payoutSeq).padStart(12, "0")}`
  return {
    id,
    contractId: id,
    partnerId: "0b7f5c1e-2f4a-4c55-9d3e-3f1f7b0a0001",
    environment: "production",
    chain: "polygon",
    currency: "USDC",
    destination: "0x1111111111111111111111111111111111111111",
    amount: dec("1.000000"),
    fxDeltaInQuoteCurrency: dec("5.00"),
    status: "pending",
    prepared: null,
    transactionHash: null,
    nonce: null,
    waiting: null,
    replacements: 0,
    blockNumber: null,
    attempts: 0,
    lastError: null,
    nextAttemptAt: at(0),
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides
  }
}

/** A `PayoutRepo` whose `list` answers `records` as a store would (statuses, environment, limit); nothing else is called. */
const payoutsListing = (records: ReadonlyArray<PayoutRepo.PayoutRecord>) =>
  Layer.succeed(PayoutRepo.PayoutRepo, {
    list: (query) =>
      Effect.succeed(
        records
          .filter(
            (p) =>
              query.statuses.includes(p.status) &&
              (query.environment === undefined || p.environment === query.environment)
          )
          .slice(0, query.limit)
      )
  } as Partial<PayoutRepo.PayoutRepoShape> as PayoutRepo.PayoutRepoShape)

const harness = (payouts: ReadonlyArray<PayoutRepo.PayoutRecord> = []) => {
  const chain = new FakeChain()
  const layer = Layer.mergeAll(
    MemoryStore.layerMemory,
    Layer.succeed(ChainGateway.ChainGateway, chain.gateway),
    Layer.succeed(SettlementRails.SettlementRails, rails),
    // after the memory store's: this one answers
    payoutsListing(payouts)
  )
  return { chain, layer }
}

const stored = HotWalletRepo.HotWalletRepo.use((repo) => repo.list()).pipe(Effect.orDie)

const polygonWallet = (native: string, usdc: string): ChainGateway.HotWallet => ({
  address: "0x00000000000000000000000000000000000000a2",
  balances: [
    { asset: "NATIVE", amount: dec(native) },
    { asset: "USDC", amount: dec(usdc) }
  ]
})

describe("hot-wallet pass", () => {
  it("is one of the worker passes, run at most once a minute", () => {
    const pass = WorkerPasses.passes.find((p) => p.name === "hot-wallets")
    assert.isDefined(pass)
    assert.strictEqual(Duration.toMillis(pass!.atLeast), 60_000)
  })

  it.effect(
    "stores each served chain's balances as the gateway answers them, exactly; nothing for a chain without a hot wallet",
    () => {
      const { chain, layer } = harness()
      chain.hotWallets.set("production|polygon", polygonWallet("12.345678901234567891", "10000.000001"))
      // a wallet answered on a chain production does not serve is never asked for
      chain.hotWallets.set("production|solana", {
        address: "So1ana",
        balances: [{ asset: "NATIVE", amount: dec("1") }]
      })
      return Effect.gen(function* () {
        yield* TestClock.setTime(start)
        assert.strictEqual(yield* HotWallets.watch(), 1)
        const readings = yield* stored
        assert.deepStrictEqual(
          readings.map((r) => [
            r.environment,
            r.chain,
            r.asset,
            r.address,
            Money.format(r.amount),
            DateTime.formatIso(r.readAt)
          ]),
          [
            [
              "production",
              "polygon",
              "NATIVE",
              "0x00000000000000000000000000000000000000a2",
              "12.345678901234567891",
              "2026-11-23T12:00:00.000Z"
            ],
            [
              "production",
              "polygon",
              "USDC",
              "0x00000000000000000000000000000000000000a2",
              "10000.000001",
              "2026-11-23T12:00:00.000Z"
            ]
          ]
        )
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect(
    "reads a wallet again once its reading is a minute old; a chain that fails is skipped, its last reading kept",
    () => {
      const { chain, layer } = harness()
      chain.hotWallets.set("production|polygon", polygonWallet("5", "100"))
      chain.hotWallets.set("production|ethereum", {
        address: "0x00000000000000000000000000000000000000e1",
        balances: [{ asset: "NATIVE", amount: dec("0.5") }]
      })
      const amounts = Effect.map(stored, (all) => all.map((r) => `${r.chain} ${r.asset} ${Money.format(r.amount)}`))
      return Effect.gen(function* () {
        yield* TestClock.setTime(start)
        assert.strictEqual(yield* HotWallets.watch(), 2)
        chain.hotWallets.set("production|polygon", polygonWallet("4.9", "90.5"))
        chain.hotWallets.set("production|ethereum", {
          address: "0x00000000000000000000000000000000000000e1",
          balances: [{ asset: "NATIVE", amount: dec("0.4") }]
        })
        chain.unreachable.add("ethereum")
        // not a minute yet: nothing is asked
        yield* TestClock.adjust("59 seconds")
        assert.strictEqual(yield* HotWallets.watch(), 0)
        assert.deepStrictEqual(yield* amounts, ["ethereum NATIVE 0.5", "polygon NATIVE 5", "polygon USDC 100"])
        // a minute: polygon read again; ethereum's RPC is down, its reading stays as it was
        yield* TestClock.adjust("1 second")
        assert.strictEqual(yield* HotWallets.watch(), 1)
        assert.deepStrictEqual(yield* amounts, ["ethereum NATIVE 0.5", "polygon NATIVE 4.9", "polygon USDC 90.5"])
        const ethereum = (yield* stored).find((r) => r.chain === "ethereum")!
        assert.strictEqual(DateTime.formatIso(ethereum.readAt), DateTime.formatIso(at(0)))
        // back: read at once (its reading is over a minute old)
        chain.unreachable.delete("ethereum")
        yield* TestClock.adjust("1 second")
        assert.strictEqual(yield* HotWallets.watch(), 1)
        assert.deepStrictEqual(yield* amounts, ["ethereum NATIVE 0.4", "polygon NATIVE 4.9", "polygon USDC 90.5"])
      }).pipe(Effect.provide(layer))
    }
  )
})

describe("treasury view", () => {
  it.effect(
    "payouts due against the balance, to the last unit: can_pay while they add up to it, not one unit past",
    () => {
      const due = [
        payout({ amount: dec("4000.000001") }),
        payout({ amount: dec("5999.999999"), status: "prepared" }),
        // settled or given up: not due
        payout({ amount: dec("1"), status: "confirmed" }),
        payout({ amount: dec("1"), status: "failed" }),
        // another token and the sandbox: rows of their own
        payout({ amount: dec("3.5"), currency: "USDT" }),
        payout({ amount: dec("7.25"), environment: "sandbox" })
      ]
      const { chain, layer } = harness(due)
      chain.hotWallets.set("production|polygon", polygonWallet("0.000000000000000001", "10000.000000"))
      return Effect.gen(function* () {
        yield* TestClock.setTime(start)
        yield* HotWallets.watch()
        yield* TestClock.adjust("42 seconds")
        const view = yield* Treasury.view()
        assert.deepStrictEqual(
          view.wallets.map((w) => ({ ...w })),
          [
            {
              environment: "production",
              chain: "polygon",
              asset: "NATIVE",
              address: "0x00000000000000000000000000000000000000a2",
              balance: "0.000000000000000001",
              read_at: "2026-11-23T12:00:00.000Z",
              age_seconds: 42,
              min_balance: null,
              below_min: null,
              payouts_due: 3,
              payouts_due_amount: "0",
              can_pay: true
            },
            {
              environment: "production",
              chain: "polygon",
              asset: "USDC",
              address: "0x00000000000000000000000000000000000000a2",
              balance: "10000.000000",
              read_at: "2026-11-23T12:00:00.000Z",
              age_seconds: 42,
              min_balance: null,
              below_min: null,
              payouts_due: 2,
              payouts_due_amount: "10000.000000",
              can_pay: true
            },
            {
              environment: "production",
              chain: "polygon",
              asset: "USDT",
              address: null,
              balance: null,
              read_at: null,
              age_seconds: null,
              min_balance: null,
              below_min: null,
              payouts_due: 1,
              payouts_due_amount: "3.5",
              can_pay: null
            },
            {
              environment: "sandbox",
              chain: "polygon",
              asset: "USDC",
              address: null,
              balance: null,
              read_at: null,
              age_seconds: null,
              min_balance: null,
              below_min: null,
              payouts_due: 1,
              payouts_due_amount: "7.25",
              can_pay: null
            }
          ]
        )
        assert.deepStrictEqual(view.stuck_payouts, [])
        // one environment only
        const sandbox = yield* Treasury.view({ environment: "sandbox" })
        assert.deepStrictEqual(
          sandbox.wallets.map((w) => `${w.environment} ${w.asset}`),
          ["sandbox USDC"]
        )
      }).pipe(Effect.provide(layer))
    }
  )

  it("one unit more than the balance cannot be paid; a native balance of zero pays no fee", () => {
    const now = at(0)
    const readings: ReadonlyArray<HotWalletRepo.HotWalletReading> = [
      { environment: "production", chain: "ethereum", asset: "NATIVE", address: "0xe", amount: dec("0"), readAt: now },
      {
        environment: "production",
        chain: "ethereum",
        asset: "USDC",
        address: "0xe",
        amount: dec("10.000000"),
        readAt: now
      }
    ]
    const view = Treasury.build({
      now,
      readings,
      thresholds: {},
      payouts: [
        payout({ chain: "ethereum", amount: dec("0.000001") }),
        payout({ chain: "ethereum", amount: dec("10.000000") })
      ]
    })
    assert.deepStrictEqual(
      view.wallets.map((w) => [w.asset, w.payouts_due, w.payouts_due_amount, w.can_pay]),
      [
        ["NATIVE", 2, "0", false],
        ["USDC", 2, "10.000001", false]
      ]
    )
    // with nothing due, an empty wallet owes nothing
    const idle = Treasury.build({ now, readings, thresholds: {}, payouts: [] })
    assert.deepStrictEqual(
      idle.wallets.map((w) => w.can_pay),
      [true, true]
    )
  })

  it("stuck payouts (over the fee cap, short of funds) are counted per environment and chain; mining or behind a nonce is not stuck", () => {
    const view = Treasury.build({
      now: at(90_000),
      readings: [],
      thresholds: {},
      payouts: [
        payout({ status: "prepared", waiting: "fee_cap", createdAt: at(0) }),
        payout({ status: "prepared", waiting: "fee_cap", createdAt: at(30_000) }),
        payout({ status: "pending", waiting: "insufficient_funds", createdAt: at(60_000) }),
        payout({ status: "prepared", waiting: "mining" }),
        payout({ status: "prepared", waiting: "behind_nonce" }),
        payout({ status: "prepared", waiting: "insufficient_funds", chain: "ethereum", environment: "sandbox" })
      ]
    })
    assert.deepStrictEqual(view.stuck_payouts, [
      {
        environment: "production",
        chain: "polygon",
        stuck: 3,
        fee_cap: 2,
        insufficient_funds: 1,
        oldest_stuck_age_seconds: 90
      },
      {
        environment: "sandbox",
        chain: "ethereum",
        stuck: 1,
        fee_cap: 0,
        insufficient_funds: 1,
        oldest_stuck_age_seconds: 90
      }
    ])
  })
})

describe("status with the treasury", () => {
  const thresholds: Treasury.ThresholdsShape = { polygon: { NATIVE: dec("5"), USDC: dec("10000") } }

  it.effect(
    "a wallet under its threshold makes the status degraded, saying which and by how much; at the threshold it is not",
    () => {
      const { chain, layer } = harness()
      chain.hotWallets.set("production|polygon", polygonWallet("4.999999999999999999", "10000"))
      return Effect.gen(function* () {
        yield* TestClock.setTime(start)
        const before = yield* OperatorStatus.status({ marketMaxAge: Duration.minutes(15) })
        assert.isFalse(before.degraded, "nothing read yet: nothing to alert on")
        assert.deepStrictEqual(before.alerts, [])
        yield* HotWallets.watch()
        const low = yield* OperatorStatus.status({ marketMaxAge: Duration.minutes(15) })
        assert.isTrue(low.degraded)
        assert.deepStrictEqual(low.alerts, [
          {
            kind: "hot_wallet_low",
            environment: "production",
            chain: "polygon",
            asset: "NATIVE",
            message:
              "The production polygon hot wallet holds 4.999999999999999999 NATIVE, under its minimum of 5 (RATELOCK_POLYGON_HOT_WALLET_MIN_NATIVE): fund it."
          }
        ])
        // every field the status had is still there
        assert.includeMembers(Object.keys(low), ["checked_at", "market", "environments", "workers"])
        const view = yield* Treasury.view()
        assert.deepStrictEqual(
          view.wallets.map((w) => [w.asset, w.min_balance, w.below_min]),
          [
            ["NATIVE", "5", true],
            ["USDC", "10000", false]
          ]
        )
        // funded: healthy again at the next reading
        chain.hotWallets.set("production|polygon", polygonWallet("5", "10000"))
        yield* TestClock.adjust("1 minute")
        yield* HotWallets.watch()
        const funded = yield* OperatorStatus.status({ marketMaxAge: Duration.minutes(15) })
        assert.isFalse(funded.degraded)
        assert.deepStrictEqual(funded.alerts, [])
      }).pipe(Effect.provide(layer), Effect.provideService(Treasury.Thresholds, thresholds))
    }
  )

  it.effect("payouts stuck on the fee cap or on funds make the status degraded", () => {
    const { layer } = harness([
      payout({ status: "prepared", waiting: "fee_cap", createdAt: at(0) }),
      payout({ status: "prepared", waiting: "insufficient_funds", createdAt: at(0) })
    ])
    return Effect.gen(function* () {
      yield* TestClock.setTime(start + 120_000)
      const status = yield* OperatorStatus.status({ marketMaxAge: Duration.minutes(15) })
      assert.isTrue(status.degraded)
      assert.deepStrictEqual(status.alerts, [
        {
          kind: "payouts_stuck",
          environment: "production",
          chain: "polygon",
          message:
            "2 payouts stuck on production polygon (1 over the fee cap, 1 short of funds), the oldest created 120 s ago."
        }
      ])
    }).pipe(Effect.provide(layer), Effect.provideService(Treasury.Thresholds, thresholds))
  })
})
