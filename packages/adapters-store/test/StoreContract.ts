/**
 * The contract every store keeps (memory, Postgres, embedded PGlite): the behaviour in the package
 * README, checked through the ports only.
 *
 * The tests share one store (a real one needs the real clock and one database), so each keeps to
 * itself: a fresh partner per test, and for the unscoped worker methods (claims, `listByStatus`,
 * `listPayoutWork`, `PayoutRepo.list`) a private span of time (`workerEpoch`); a test that signs
 * payouts with the store's nonces signs for a hot wallet of its own (`freshSigner`). Tests run one after another; every instant is explicit.
 * The first-partner race needs an empty store: it builds a fresh one of the same layer.
 */
import { assert, describe, layer } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import { BigDecimal, DateTime, Duration, Effect, Exit, Layer, Option, Schema } from "effect"
import {
  AuditRepo,
  BacklogRepo,
  type ChainGateway,
  type Contract,
  ContractRepo,
  Corridor,
  CorridorLimit,
  CorridorLimitRepo,
  type DailyClose,
  DailyCloseRepo,
  EventRepo,
  HedgeLedger,
  type HedgeOrder,
  HedgeOrderRepo,
  type HedgePolicy,
  HedgePolicyRepo,
  HotWalletRepo,
  IdempotencyRepo,
  type Lease,
  Ledger,
  MarketSnapshot,
  MarketSnapshotRepo,
  Money,
  MovementRepo,
  OperatorRole,
  OperatorTokenRepo,
  type Partner,
  PartnerRepo,
  PayoutRepo,
  type Quote,
  QuoteRepo,
  type Rail,
  ReconciliationRepo,
  Risk,
  RiskRevaluationRepo,
  RiskScenario,
  RiskScenarioRepo,
  type StoreError,
  StoreTransaction,
  TreasuryLedger,
  WebhookInboxRepo,
  WorkerHeartbeatRepo
} from "@ratelock/core"
import * as R from "./support/records.ts"

export type Repos =
  | QuoteRepo.QuoteRepo
  | OperatorTokenRepo.OperatorTokenRepo
  | WorkerHeartbeatRepo.WorkerHeartbeatRepo
  | BacklogRepo.BacklogRepo
  | ContractRepo.ContractRepo
  | EventRepo.EventRepo
  | IdempotencyRepo.IdempotencyRepo
  | PayoutRepo.PayoutRepo
  | MovementRepo.MovementRepo
  | ReconciliationRepo.ReconciliationRepo
  | PartnerRepo.PartnerRepo
  | WebhookInboxRepo.WebhookInboxRepo
  | MarketSnapshotRepo.MarketSnapshotRepo
  | CorridorLimitRepo.CorridorLimitRepo
  | HedgePolicyRepo.HedgePolicyRepo
  | HedgeOrderRepo.HedgeOrderRepo
  | RiskScenarioRepo.RiskScenarioRepo
  | RiskRevaluationRepo.RiskRevaluationRepo
  | HotWalletRepo.HotWalletRepo
  | AuditRepo.AuditRepo
  | DailyCloseRepo.DailyCloseRepo
  | StoreTransaction.StoreTransaction

type It = Vitest.MethodsNonLive<Repos>

// ---------------------------------------------------------------------------------------------
// Set-up helpers (ports only)
// ---------------------------------------------------------------------------------------------

/** A new partner (stored, in case a store keys rows to it) and its scope in `environment`. */
const newScope = (environment: Partner.Environment = "sandbox") =>
  Effect.gen(function* () {
    const scope = R.freshScope(environment)
    yield* (yield* PartnerRepo.PartnerRepo).insertPartner({ id: scope.partnerId, name: "Acme", createdAt: R.base })
    return scope
  })

/** Stores a quote and a new contract from it. */
const seedContract = (
  scope: Partner.PartnerScope,
  quote: Parameters<typeof R.quote>[1] = {},
  contract: Parameters<typeof R.contract>[1] = {}
) =>
  Effect.gen(function* () {
    const q = R.quote(scope, quote)
    yield* (yield* QuoteRepo.QuoteRepo).insert(q)
    const c = R.contract(q, contract)
    yield* (yield* ContractRepo.ContractRepo).insert(c)
    return c
  })

/** Commits one transition of `before` to `status` at `when`; returns the contract after it. */
/** `count` contracts of `scope` created a second apart from `t`, oldest first. */
const seedInOrder = (scope: Partner.PartnerScope, t: DateTime.Utc, count: number) =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    (i) => seedContract(scope, { createdAt: R.plus(t, Duration.seconds(i)) }, {})
  )

const commitMove = (
  before: Contract.ContractRecord,
  status: Contract.ContractStatus,
  when: DateTime.Utc,
  patch: Partial<Contract.ContractRecord> = {}
) =>
  Effect.gen(function* () {
    const after = R.moved(before, status, when, patch)
    yield* (yield* ContractRepo.ContractRepo).commit(R.change(before, after))
    return after
  })

/** Commits a transition of `before` (same status) that emits one outgoing event at `when`. */
const emit = (before: Contract.ContractRecord, when: DateTime.Utc, overrides: Partial<EventRepo.OutgoingEvent> = {}) =>
  Effect.gen(function* () {
    const after = R.moved(before, before.status, when, { eventSequence: before.eventSequence + 1 })
    const event = R.outgoing(after, { createdAt: when, nextAttemptAt: when, ...overrides })
    yield* (yield* ContractRepo.ContractRepo).commit(R.change(before, after, { outgoing: event }))
    return [after, event] as const
  })

const claimAt = (now: DateTime.Utc, owner: string, limit = 1_000, leaseFor = Duration.minutes(1)): Lease.Claim => ({
  now,
  owner,
  limit,
  leaseFor
})

/** The tag of the typed failure of an exit, or null. */
const errorTag = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
  Exit.findErrorOption(exit).pipe(
    Option.map((e) => e._tag),
    Option.getOrNull
  )

const idsOf = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((row) => row.id)

const sorted = (ids: Iterable<string>) => [...ids].sort()

type ClaimFn = (claim: Lease.Claim) => Effect.Effect<ReadonlyArray<{ readonly id: string }>, StoreError.StoreError>

/**
 * 8 claimers with different owners claim (4 at a time) until they find nothing, concurrently;
 * a last claim sweeps anything left. Returns every id each claim returned, repeats included.
 */
const claimConcurrently = (claim: ClaimFn, now: DateTime.Utc) =>
  Effect.gen(function* () {
    const claimer = (owner: string) =>
      Effect.gen(function* () {
        const taken: Array<string> = []
        for (let round = 0; round < 100; round++) {
          const batch = yield* claim(claimAt(now, owner, 4))
          if (batch.length === 0) break
          taken.push(...idsOf(batch))
          yield* Effect.yieldNow
        }
        return taken
      })
    const owners = Array.from({ length: 8 }, (_, i) => `worker-${i}`)
    const batches = yield* Effect.forEach(owners, claimer, { concurrency: "unbounded" })
    const sweep = yield* claim(claimAt(now, "worker-sweep"))
    return [...batches.flat(), ...idsOf(sweep)]
  })

/** Each of `jobs` was claimed exactly once, whatever else was claimed too. */
const assertEachOnce = (claimed: ReadonlyArray<string>, jobs: ReadonlyArray<string>) => {
  const wanted = new Set(jobs)
  assert.deepStrictEqual(sorted(claimed.filter((id) => wanted.has(id))), sorted(jobs))
}

/** A job claimed at `now` under a one-minute lease is not reclaimed before the lease ends, and is after. */
const assertLeaseRules = (claim: ClaimFn, job: string, now: DateTime.Utc) =>
  Effect.gen(function* () {
    assert.include(idsOf(yield* claim(claimAt(now, "first"))), job)
    assert.notInclude(idsOf(yield* claim(claimAt(R.plus(now, Duration.seconds(30)), "second"))), job)
    assert.include(idsOf(yield* claim(claimAt(R.plus(now, Duration.seconds(61)), "second"))), job)
  })

/** Pages through a list with `limit`, chaining positions; returns the pages' ids. */
const pages = <A>(
  list: (
    after: { createdAt: string; id: string } | undefined
  ) => Effect.Effect<ReadonlyArray<A>, StoreError.StoreError>,
  keyOf: (row: A) => { readonly createdAt: DateTime.Utc; readonly id: string }
) =>
  Effect.gen(function* () {
    const result: Array<Array<string>> = []
    let after: { createdAt: string; id: string } | undefined
    for (let i = 0; i < 20; i++) {
      const rows = yield* list(after)
      result.push(rows.map((row) => keyOf(row).id))
      const last = rows.at(-1)
      if (last === undefined) break
      after = R.positionOf(keyOf(last))
    }
    return result
  })

/** 7 instants for 7 rows, with 4 in the same millisecond, so ties fall across a page boundary. */
const instantsWithTies = (t: DateTime.Utc) => [R.plusMillis(t, 2), R.plusMillis(t, 1), t, t, t, t, R.plusMillis(t, -1)]

/** The ids in 3 + 3 + 1 pages of limit 3, newest first by (createdAt, id). */
const expectedPages = (rows: ReadonlyArray<{ readonly createdAt: DateTime.Utc; readonly id: string }>) => {
  const ids = [...rows].sort(R.byNewest).map((row) => row.id)
  return [ids.slice(0, 3), ids.slice(3, 6), ids.slice(6), []]
}

// ---------------------------------------------------------------------------------------------
// Quotes
// ---------------------------------------------------------------------------------------------

const quoteTests = (it: It) =>
  describe("QuoteRepo", () => {
    it.effect("insert and find keep every field: decimals with their scale, instants to the millisecond", () =>
      Effect.gen(function* () {
        const quotes = yield* QuoteRepo.QuoteRepo
        const scope = yield* newScope()
        const priced = R.quote(scope, { depositAmount: R.dec("0.000001"), providerRate: R.dec("5.4400") })
        const failed = R.failedQuote(scope, { targetStrike: null, createdAt: R.at("2024-05-01T12:00:00.999Z") })
        yield* quotes.insert(priced)
        yield* quotes.insert(failed)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* quotes.find(scope, priced.id))), R.plain(priced))
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* quotes.find(scope, failed.id))), R.plain(failed))
        assert.isTrue(Option.isNone(yield* quotes.find(scope, R.uuid())))
      })
    )

    it.effect("another partner or the other environment never sees a quote", () =>
      Effect.gen(function* () {
        const quotes = yield* QuoteRepo.QuoteRepo
        const scope = yield* newScope()
        const other = yield* newScope()
        const q = R.quote(scope)
        yield* quotes.insert(q)
        yield* quotes.insert(R.quote(other))
        yield* quotes.insert(R.quote(R.otherEnvironment(scope)))
        assert.isTrue(Option.isNone(yield* quotes.find(other, q.id)))
        assert.isTrue(Option.isNone(yield* quotes.find(R.otherEnvironment(scope), q.id)))
        assert.deepStrictEqual(idsOf(yield* quotes.list(scope, { limit: 100, now: R.base })), [q.id])
      })
    )

    it.effect("the operator finds any partner's quote by id; an unknown or malformed id finds nothing", () =>
      Effect.gen(function* () {
        const quotes = yield* QuoteRepo.QuoteRepo
        const q = R.quote(yield* newScope())
        yield* quotes.insert(q)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* quotes.findForOperator(q.id))), R.plain(q))
        assert.isTrue(Option.isNone(yield* quotes.findForOperator(R.uuid())))
        assert.isTrue(Option.isNone(yield* quotes.findForOperator("not-a-uuid")))
      })
    )

    it.effect("list: newest first by (created_at, id), ties by id; chained pages never skip or repeat", () =>
      Effect.gen(function* () {
        const quotes = yield* QuoteRepo.QuoteRepo
        const scope = yield* newScope()
        const rows = instantsWithTies(R.base).map((createdAt) => R.quote(scope, { createdAt }))
        for (const q of rows) yield* quotes.insert(q)
        const got = yield* pages(
          (after) => quotes.list(scope, { limit: 3, after, now: R.base }),
          (q) => q
        )
        assert.deepStrictEqual(got, expectedPages(rows))
      })
    )

    it.effect("list filters by status at `now` (expiry at now, accepted, failed) and by customer", () =>
      Effect.gen(function* () {
        const quotes = yield* QuoteRepo.QuoteRepo
        const scope = yield* newScope()
        const now = R.plus(R.base, Duration.minutes(10))
        const live = R.quote(scope, { expiresAt: R.plusMillis(now, 1) })
        const expiredAtNow = R.quote(scope, { expiresAt: now })
        const failed = R.failedQuote(scope)
        const otherCustomer = R.quote(scope, { customerReferenceId: "customer-2", expiresAt: R.plusMillis(now, 1) })
        for (const q of [live, expiredAtNow, failed, otherCustomer]) yield* quotes.insert(q)
        // expired long before `now`, but accepted: still `created`
        const accepted = yield* seedContract(scope)
        const list = (filter: Partial<QuoteRepo.QuoteFilter>) =>
          Effect.map(quotes.list(scope, { limit: 100, now, ...filter }), (rows) => sorted(idsOf(rows)))

        assert.deepStrictEqual(
          yield* list({ status: "created" }),
          sorted([live.id, otherCustomer.id, accepted.quoteId])
        )
        assert.deepStrictEqual(yield* list({ status: "failed" }), sorted([expiredAtNow.id, failed.id]))
        assert.deepStrictEqual(
          yield* list({ status: "created", customerReferenceId: "customer-1" }),
          sorted([live.id, accepted.quoteId])
        )
        assert.deepStrictEqual(yield* list({ customerReferenceId: "customer-2" }), [otherCustomer.id])
        assert.strictEqual((yield* list({})).length, 5)
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Contracts: insert and reads
// ---------------------------------------------------------------------------------------------

const contractTests = (it: It) =>
  describe("ContractRepo: insert and reads", () => {
    it.effect("insert and find / findById / findByQuote keep every field", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const c = yield* seedContract(
          scope,
          { contractType: "forward", depositAmount: R.dec("250.500000") },
          { partnerTransactionReference: "ptr-1" }
        )
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* contracts.find(scope, c.id))), R.plain(c))
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* contracts.findById(c.id))), R.plain(c))
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* contracts.findByQuote(scope, c.quoteId))), R.plain(c))
        assert.isTrue(Option.isNone(yield* contracts.findById(R.uuid())))
      })
    )

    it.effect("insert marks the quote accepted; a second contract for it fails with QuoteAlreadyAccepted", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const quotes = yield* QuoteRepo.QuoteRepo
        const scope = yield* newScope()
        const q = R.quote(scope)
        yield* quotes.insert(q)
        const first = R.contract(q)
        yield* contracts.insert(first)
        assert.isNotNull(Option.getOrThrow(yield* quotes.find(scope, q.id)).acceptedAt)

        const second = R.contract(q)
        const error = yield* Effect.flip(contracts.insert(second))
        assert.strictEqual(error._tag, "QuoteAlreadyAccepted")
        assert.isTrue(Option.isNone(yield* contracts.findById(second.id)))
        assert.strictEqual(Option.getOrThrow(yield* contracts.findByQuote(scope, q.id)).id, first.id)
      })
    )

    it.effect("insert for a quote that is not stored fails with StoreError and writes nothing", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const orphan = R.contract(R.quote(scope))
        const error = yield* Effect.flip(contracts.insert(orphan))
        assert.strictEqual(error._tag, "StoreError")
        assert.isTrue(Option.isNone(yield* contracts.findById(orphan.id)))
      })
    )

    it.effect("two concurrent contracts for one quote: exactly one is stored", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const quotes = yield* QuoteRepo.QuoteRepo
        const scope = yield* newScope()
        const q = R.quote(scope)
        yield* quotes.insert(q)
        const candidates = [R.contract(q), R.contract(q)]
        const exits = yield* Effect.forEach(candidates, (c) => Effect.exit(contracts.insert(c)), {
          concurrency: "unbounded"
        })
        assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
        assert.deepStrictEqual(
          exits.map(errorTag),
          exits.map((e) => (Exit.isSuccess(e) ? null : "QuoteAlreadyAccepted"))
        )
        const winner = exits.findIndex(Exit.isSuccess)
        const stored = Option.getOrThrow(yield* contracts.findByQuote(scope, q.id))
        assert.strictEqual(stored.id, candidates[winner]!.id)
      })
    )

    it.effect("another partner or the other environment never sees a contract", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const other = yield* newScope()
        const c = yield* seedContract(scope)
        yield* seedContract(other)
        yield* seedContract(R.otherEnvironment(scope))
        for (const outsider of [other, R.otherEnvironment(scope)]) {
          assert.isTrue(Option.isNone(yield* contracts.find(outsider, c.id)))
          assert.isTrue(Option.isNone(yield* contracts.findByQuote(outsider, c.quoteId)))
        }
        assert.deepStrictEqual(idsOf(yield* contracts.listByCustomer(scope, "customer-1", { limit: 100 })), [c.id])
      })
    )

    it.effect("listByCustomer: newest first with ties, chained pages, status and customer filters", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const rows: Array<Contract.ContractRecord> = []
        for (const createdAt of instantsWithTies(R.base)) rows.push(yield* seedContract(scope, {}, { createdAt }))
        yield* seedContract(scope, { customerReferenceId: "customer-2" })
        const got = yield* pages(
          (after) => contracts.listByCustomer(scope, "customer-1", { limit: 3, after }),
          (c) => c
        )
        assert.deepStrictEqual(got, expectedPages(rows))

        const [a, b] = [rows[0]!, rows[3]!]
        yield* commitMove(a, "funds_in_route", R.plus(R.base, Duration.minutes(1)))
        yield* commitMove(b, "funds_in_route", R.plus(R.base, Duration.minutes(1)))
        const inRoute = yield* contracts.listByCustomer(scope, "customer-1", { limit: 100, status: "funds_in_route" })
        assert.deepStrictEqual(sorted(idsOf(inRoute)), sorted([a.id, b.id]))
        assert.strictEqual(
          (yield* contracts.listByCustomer(scope, "customer-1", { limit: 100, status: "quote_created" })).length,
          5
        )
        assert.strictEqual((yield* contracts.listByCustomer(scope, "customer-2", { limit: 100 })).length, 1)
      })
    )

    it.effect(
      "listByStatus: only those statuses, oldest first by (created_at, id), at most `limit`, after a position",
      () =>
        Effect.gen(function* () {
          const contracts = yield* ContractRepo.ContractRepo
          const scope = yield* newScope()
          const t = R.workerEpoch()
          const rows = yield* seedInOrder(scope, t, 5)
          const active = yield* commitMove(rows[1]!, "active", R.plus(t, Duration.minutes(5)))
          const exercised = yield* commitMove(rows[3]!, "exercised", R.plus(t, Duration.minutes(5)))
          const got = yield* contracts.listByStatus(["active", "exercised"], 2)
          assert.deepStrictEqual(idsOf(got), [active.id, exercised.id])
          assert.deepStrictEqual(idsOf(yield* contracts.listByStatus(["quote_created"], 3)), [
            rows[0]!.id,
            rows[2]!.id,
            rows[4]!.id
          ])
          assert.deepStrictEqual(idsOf(yield* contracts.listByStatus(["quote_created", "active"], 1)), [rows[0]!.id])
          // paging on: strictly after a position, so a worker reaches every row
          assert.deepStrictEqual(idsOf(yield* contracts.listByStatus(["quote_created"], 1, R.positionOf(rows[2]!))), [
            rows[4]!.id
          ])
        })
    )

    it.effect("listPayoutWork: exercised contracts with no payout or a confirmed one, oldest first, paged", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const payouts = yield* PayoutRepo.PayoutRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const rows = yield* seedInOrder(scope, t, 6)
        const exercised = yield* Effect.forEach(rows.slice(0, 5), (c) =>
          commitMove(c, "exercised", R.plus(t, Duration.minutes(5)))
        )
        const [none, confirmed, pending, prepared, failed] = exercised
        yield* payouts.insert(R.payout(confirmed!, { status: "confirmed" }))
        yield* payouts.insert(R.payout(pending!, { status: "pending" }))
        yield* payouts.insert(R.payout(prepared!, { status: "prepared" }))
        yield* payouts.insert(R.payout(failed!, { status: "failed" }))
        // rows[5] is not exercised at all; rows of tests that ran before are newer (`workerEpoch`)
        const ours = new Set(rows.map((c) => c.id))
        const listed = (page: ReadonlyArray<Contract.ContractRecord>) => idsOf(page).filter((id) => ours.has(id))
        assert.deepStrictEqual(listed(yield* contracts.listPayoutWork(1_000)), [none!.id, confirmed!.id])
        assert.deepStrictEqual(idsOf(yield* contracts.listPayoutWork(1)), [none!.id])
        assert.deepStrictEqual(idsOf(yield* contracts.listPayoutWork(1, R.positionOf(none!))), [confirmed!.id])
      })
    )

    it.effect("listLateFundingWatches: contracts past funding whose last transition is recent enough", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const rows = yield* seedInOrder(scope, t, 4)
        // 0 stays awaiting; 1 failed long ago; 2 active and 3 failed recently
        yield* commitMove(rows[1]!, "failed", R.plus(t, Duration.minutes(1)))
        yield* commitMove(rows[2]!, "active", R.plus(t, Duration.days(9)))
        yield* commitMove(rows[3]!, "failed", R.plus(t, Duration.days(10)))
        yield* contracts.saveFundingCursor(rows[2]!.id, "block-9")
        const ours = new Set(rows.map((r) => r.id))
        const since = R.plus(t, Duration.days(8))

        const late = (yield* contracts.listLateFundingWatches(since, 1000)).filter((w) => ours.has(w.contractId))
        assert.deepStrictEqual(
          late.map((w) => [w.contractId, w.status, w.cursor]),
          [
            [rows[2]!.id, "active", "block-9"],
            [rows[3]!.id, "failed", null]
          ]
        )
        const next = (yield* contracts.listLateFundingWatches(since, 1000, R.positionOf(rows[2]!))).filter((w) =>
          ours.has(w.contractId)
        )
        assert.deepStrictEqual(
          next.map((w) => w.contractId),
          [rows[3]!.id]
        )
      })
    )

    it.effect("listFundingWatches: contracts awaiting funds, oldest first, with their funding cursor, paged", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const rows = yield* seedInOrder(scope, t, 4)
        yield* commitMove(rows[1]!, "funds_in_route", R.plus(t, Duration.minutes(1)))
        yield* commitMove(rows[2]!, "active", R.plus(t, Duration.minutes(1)))
        yield* contracts.saveFundingCursor(rows[0]!.id, "block-7")

        const watches = yield* contracts.listFundingWatches(3)
        assert.deepStrictEqual(
          watches.map((w) => [w.contractId, w.status, w.cursor]),
          [
            [rows[0]!.id, "quote_created", "block-7"],
            [rows[1]!.id, "funds_in_route", null],
            [rows[3]!.id, "quote_created", null]
          ]
        )
        assert.deepStrictEqual(watches[0], ContractRepo.fundingWatch(rows[0]!, "block-7"))
        // paging on: strictly after a position
        const next = yield* contracts.listFundingWatches(1, R.positionOf(rows[1]!))
        assert.deepStrictEqual(
          next.map((w) => w.contractId),
          [rows[3]!.id]
        )
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Contracts: commit and ledger
// ---------------------------------------------------------------------------------------------

const commitTests = (it: It) =>
  describe("ContractRepo.commit", () => {
    it.effect("writes the contract, one more history entry, and its outgoing and incoming events", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const c = yield* seedContract(scope)
        const t1 = R.plus(c.createdAt, Duration.minutes(1))
        const funded = R.moved(c, "active", t1, { fundedAmount: R.dec("12.345678"), eventSequence: 1 })
        const out = R.outgoing(funded, { createdAt: t1, nextAttemptAt: t1 })
        const inc = R.incoming(funded, { createdAt: t1, processedAt: t1 })
        yield* contracts.commit(R.change(c, funded, { outgoing: out, incoming: inc, transfer: R.transfer(c.chain) }))

        const t2 = R.plus(t1, Duration.minutes(1))
        const exercised = R.moved(funded, "exercised", R.plusMillis(t2, 7), {
          exercise: {
            executedAt: R.at("2024-05-03T09:30:00.456Z"),
            liveExecutionRate: R.dec("5.3100"),
            payoutWalletAddress: "0x00000000000000000000000000000000000000bb",
            payoutCurrency: "BRLA"
          }
        })
        yield* contracts.commit(R.change(funded, exercised))

        const stored = Option.getOrThrow(yield* contracts.find(scope, c.id))
        assert.strictEqual(ContractRepo.version(stored), 3)
        assert.deepStrictEqual(R.plain(stored), R.plain(exercised))
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* events.findOutgoing(scope, out.id))), R.plain(out))
        assert.deepStrictEqual(
          R.plain(Option.getOrNull(yield* events.findIncoming(scope, inc.idempotencyKey))),
          R.plain(inc)
        )
        const listed = yield* events.list(scope, { limit: 10, contractId: c.id })
        assert.deepStrictEqual(
          sorted(listed.map((v) => `${v._tag} ${v.event.id}`)),
          sorted([`outgoing ${out.id}`, `incoming ${inc.id}`])
        )
      })
    )

    it.effect("a stale expectedVersion fails with StaleContract and writes nothing", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const c = yield* seedContract(scope)
        const t1 = R.plus(c.createdAt, Duration.minutes(1))
        const moved = yield* commitMove(c, "funds_in_route", t1)

        // computed from `c` again: the stored contract moved on
        const late = R.moved(c, "active", t1, { eventSequence: 1 })
        const out = R.outgoing(late)
        const inc = R.incoming(late)
        const fresh = R.transfer(c.chain)
        const error = yield* Effect.flip(
          contracts.commit(
            R.change(c, late, {
              outgoing: out,
              incoming: inc,
              transfer: fresh,
              ledger: R.ledgerPair(late, "funds_received", "funding_wallet", "partner_prepayment", "1.000000", t1),
              fundingCursor: "block:999"
            })
          )
        )
        assert.strictEqual(error._tag, "StaleContract")
        assert.deepStrictEqual(R.plain(Option.getOrThrow(yield* contracts.findById(c.id))), R.plain(moved))
        assert.isTrue(Option.isNone(yield* events.findOutgoing(scope, out.id)))
        assert.isTrue(Option.isNone(yield* events.findIncoming(scope, inc.idempotencyKey)))
        assert.deepStrictEqual(yield* contracts.ledgerEntries(c.id), [])
        assert.isTrue(Option.isNone(yield* contracts.fundingCursor(c.id)))
        // nor was the transfer counted; a commit that lands saves the cursor it carries
        yield* contracts.commit(
          R.change(moved, R.moved(moved, "funds_in_route", t1), { transfer: fresh, fundingCursor: "block:5" })
        )
        assert.deepStrictEqual(yield* contracts.fundingCursor(c.id), Option.some("block:5"))
      })
    )

    it.effect("concurrent commits from the same version: exactly one wins", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const c = yield* seedContract(scope)
        const t1 = R.plus(c.createdAt, Duration.minutes(1))
        const candidates = Array.from({ length: 5 }, (_, i) =>
          R.moved(c, "funds_in_route", t1, { partnerTransactionReference: `attempt-${i}` })
        )
        const exits = yield* Effect.forEach(candidates, (after) => Effect.exit(contracts.commit(R.change(c, after))), {
          concurrency: "unbounded"
        })
        const winner = exits.findIndex(Exit.isSuccess)
        assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
        for (const exit of exits.filter(Exit.isFailure)) assert.strictEqual(errorTag(exit), "StaleContract")
        const stored = Option.getOrThrow(yield* contracts.findById(c.id))
        assert.strictEqual(ContractRepo.version(stored), 2)
        assert.strictEqual(stored.partnerTransactionReference, `attempt-${winner}`)
      })
    )

    it.effect("a transfer counted before fails with StaleContract and rolls the whole commit back", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const c = yield* seedContract(scope)
        const t1 = R.plus(c.createdAt, Duration.minutes(1))
        const counted = R.transfer(c.chain, { index: 3 })
        const first = R.moved(c, "funds_in_route", t1, { fundedAmount: R.dec("1.000000") })
        const booked = R.ledgerPair(first, "funds_received", "funding_wallet", "partner_prepayment", "1.000000", t1)
        yield* contracts.commit(R.change(c, first, { transfer: counted, ledger: booked }))

        const t2 = R.plus(t1, Duration.minutes(1))
        const again = R.moved(first, "active", t2, { fundedAmount: R.dec("2.000000"), eventSequence: 1 })
        const out = R.outgoing(again)
        const inc = R.incoming(again)
        const error = yield* Effect.flip(
          contracts.commit(
            R.change(first, again, {
              transfer: { ...R.transfer(c.chain), transactionHash: counted.transactionHash, index: 3 },
              outgoing: out,
              incoming: inc,
              ledger: R.ledgerPair(again, "funds_received", "funding_wallet", "partner_prepayment", "1.000000", t2)
            })
          )
        )
        assert.strictEqual(error._tag, "StaleContract")
        assert.deepStrictEqual(R.plain(Option.getOrThrow(yield* contracts.findById(c.id))), R.plain(first))
        assert.isTrue(Option.isNone(yield* events.findOutgoing(scope, out.id)))
        assert.isTrue(Option.isNone(yield* events.findIncoming(scope, inc.idempotencyKey)))
        assert.deepStrictEqual(R.plain(yield* contracts.ledgerEntries(c.id)), R.plain(booked))

        // the same hash with another index, or on another chain, is another transfer
        const other = R.moved(first, "funds_in_route", t2)
        yield* contracts.commit(R.change(first, other, { transfer: { ...counted, index: 4 } }))
        const third = R.moved(other, "funds_in_route", t2)
        yield* contracts.commit(R.change(other, third, { transfer: { ...counted, chain: "ethereum" } }))
        assert.strictEqual(ContractRepo.version(Option.getOrThrow(yield* contracts.findById(c.id))), 4)

        // an operator names them by hash (any case), and by index to tell them apart
        const named = yield* contracts.fundingTransfersByHash(counted.transactionHash.toUpperCase())
        assert.deepStrictEqual(
          named.map((t) => [t.contractId, t.chain, t.index]).sort(),
          [
            [c.id, c.chain, 3],
            [c.id, c.chain, 4],
            [c.id, "ethereum", 3]
          ].sort()
        )
        assert.lengthOf(yield* contracts.fundingTransfersByHash(counted.transactionHash, 4), 1)
        assert.deepStrictEqual(yield* contracts.fundingTransfersByHash("0xnothing"), [])
      })
    )

    it.effect("an incoming Idempotency-Key recorded before fails with StaleContract and rolls back", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const c = yield* seedContract(scope)
        const sibling = yield* seedContract(scope)
        const t1 = R.plus(c.createdAt, Duration.minutes(1))
        const first = R.moved(c, "funds_in_route", t1)
        const inc = R.incoming(first)
        yield* contracts.commit(R.change(c, first, { incoming: inc }))

        // the key is unique per partner and environment, not per contract
        const replay = R.moved(sibling, "funds_in_route", t1, { eventSequence: 1 })
        const out = R.outgoing(replay)
        const fresh = R.transfer(c.chain)
        const error = yield* Effect.flip(
          contracts.commit(
            R.change(sibling, replay, {
              incoming: R.incoming(replay, { idempotencyKey: inc.idempotencyKey }),
              outgoing: out,
              transfer: fresh,
              ledger: R.ledgerPair(replay, "funds_received", "funding_wallet", "partner_prepayment", "1.000000", t1)
            })
          )
        )
        assert.strictEqual(error._tag, "StaleContract")
        assert.deepStrictEqual(R.plain(Option.getOrThrow(yield* contracts.findById(sibling.id))), R.plain(sibling))
        assert.isTrue(Option.isNone(yield* events.findOutgoing(scope, out.id)))
        assert.deepStrictEqual(yield* contracts.ledgerEntries(sibling.id), [])
        assert.strictEqual(Option.getOrThrow(yield* events.findIncoming(scope, inc.idempotencyKey)).id, inc.id)
        // nor was the transfer counted
        yield* contracts.commit(R.change(sibling, R.moved(sibling, "funds_in_route", t1), { transfer: fresh }))

        // another partner, or the other environment, may use the same key
        for (const outsider of [yield* newScope(), R.otherEnvironment(scope)]) {
          const theirs = yield* seedContract(outsider)
          const moved = R.moved(theirs, "funds_in_route", t1)
          const own = R.incoming(moved, { idempotencyKey: inc.idempotencyKey })
          yield* contracts.commit(R.change(theirs, moved, { incoming: own }))
          assert.strictEqual(Option.getOrThrow(yield* events.findIncoming(outsider, inc.idempotencyKey)).id, own.id)
        }
      })
    )

    it.effect("ledger: entries in booking order, each commit balanced per currency", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const c = yield* seedContract(scope, { contractType: "forward", depositAmount: R.dec("100.000000") })
        const t1 = R.plus(c.createdAt, Duration.minutes(1))
        const active = R.moved(c, "active", t1, { fundedAmount: R.dec("112.345678"), eventSequence: 1 })
        const funding = [
          ...R.ledgerPair(active, "funds_received", "funding_wallet", "partner_prepayment", "112.345678", t1),
          ...R.ledgerPair(active, "premium_received", "partner_prepayment", "premium_income", "12.345678", t1),
          ...R.ledgerPair(active, "deposit_held", "partner_prepayment", "deposits_held", "100.000000", t1)
        ]
        yield* contracts.commit(R.change(c, active, { ledger: funding, outgoing: R.outgoing(active) }))
        const t2 = R.plus(t1, Duration.days(2))
        const settled = R.moved(active, "settled", t2)
        const settlement = [
          ...R.ledgerPair(settled, "payout_paid", "payout_expense", "payout_wallet", "29.600000", t2, "BRLA"),
          ...R.ledgerPair(settled, "deposit_released", "deposits_held", "refunds_payable", "100.000000", t2)
        ]
        yield* contracts.commit(R.change(active, settled, { ledger: settlement }))

        const entries = yield* contracts.ledgerEntries(c.id)
        assert.deepStrictEqual(R.plain(entries), R.plain([...funding, ...settlement]))
        const balances = Ledger.balances(entries)
        assert.deepStrictEqual(sorted(balances.keys()), ["BRLA", "USDC"])
        for (const total of balances.values()) assert.isTrue(Money.isZero(total))
      })
    )

    it.effect("an unbalanced ledger is a defect and writes nothing", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const c = yield* seedContract(scope)
        const t1 = R.plus(c.createdAt, Duration.minutes(1))
        const after = R.moved(c, "funds_in_route", t1)
        const [debit] = R.ledgerPair(after, "funds_received", "funding_wallet", "partner_prepayment", "1.000000", t1)
        const exit = yield* Effect.exit(contracts.commit(R.change(c, after, { ledger: [debit!] })))
        assert.isTrue(Exit.hasDies(exit))
        assert.strictEqual(ContractRepo.version(Option.getOrThrow(yield* contracts.findById(c.id))), 1)
        assert.deepStrictEqual(yield* contracts.ledgerEntries(c.id), [])
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Contracts: funding indexes and cursors
// ---------------------------------------------------------------------------------------------

const fundingTests = (it: It) =>
  describe("ContractRepo: funding", () => {
    it.effect("funding indexes are distinct and increasing per (chain, environment), independent across them", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const polygon = { chain: "polygon", environment: "sandbox" } as const
        const a = yield* contracts.allocateFundingIndex(polygon)
        const b = yield* contracts.allocateFundingIndex(polygon)
        assert.isTrue(Number.isInteger(a) && a >= 0)
        assert.isTrue(b > a)
        // others' counters move on their own
        for (const other of [
          { chain: "solana", environment: "sandbox" },
          { chain: "polygon", environment: "production" }
        ] as const) {
          const x = yield* contracts.allocateFundingIndex(other)
          assert.isTrue((yield* contracts.allocateFundingIndex(other)) > x)
        }
        assert.strictEqual(yield* contracts.allocateFundingIndex(polygon), b + 1)
      })
    )

    it.effect("20 concurrent allocations get 20 distinct indexes", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const rail = { chain: "ethereum", environment: "production" } as const
        const indexes = yield* Effect.forEach(Array.from({ length: 20 }), () => contracts.allocateFundingIndex(rail), {
          concurrency: "unbounded"
        })
        assert.strictEqual(new Set(indexes).size, 20)
        assert.isTrue((yield* contracts.allocateFundingIndex(rail)) > Math.max(...indexes))
      })
    )

    it.effect("funding cursors: none, saved, overwritten", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const c = yield* seedContract(yield* newScope())
        assert.isTrue(Option.isNone(yield* contracts.fundingCursor(c.id)))
        yield* contracts.saveFundingCursor(c.id, "block:100")
        assert.deepStrictEqual(yield* contracts.fundingCursor(c.id), Option.some("block:100"))
        yield* contracts.saveFundingCursor(c.id, "block:164")
        assert.deepStrictEqual(yield* contracts.fundingCursor(c.id), Option.some("block:164"))
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Contracts: unmatched transfers
// ---------------------------------------------------------------------------------------------

/** A transfer into `c`'s address that did not fund it: by default 1.5 tokens after it went active. */
const unmatched = (
  c: Contract.ContractRecord,
  overrides: Partial<ContractRepo.UnmatchedTransfer> = {}
): ContractRepo.UnmatchedTransfer => ({
  contractId: c.id,
  partnerId: c.partnerId,
  environment: c.environment,
  chain: c.chain,
  transactionHash: R.transfer(c.chain).transactionHash,
  index: 0,
  blockNumber: 123_456,
  token: c.settlementCurrency,
  amount: "1.500000",
  unit: "token",
  reason: "not_awaiting_funds",
  contractStatus: "active",
  observedAt: R.base,
  ...overrides
})

const unmatchedTests = (it: It) =>
  describe("ContractRepo: unmatched transfers", () => {
    it.effect("every field kept (decimal scale, base units past a double); recorded twice is one row, the first", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const c = yield* seedContract(yield* newScope())
        const late = unmatched(c)
        const stray = unmatched(c, {
          index: 7,
          blockNumber: 9_007_199_254,
          token: "0x7ceb23fd6bc0add59e62ac25578270cff1b9f619",
          amount: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
          unit: "base_units",
          reason: "wrong_token",
          contractStatus: "quote_created",
          observedAt: R.plusMillis(R.base, 1)
        })
        yield* contracts.recordUnmatchedTransfer(late)
        yield* contracts.recordUnmatchedTransfer(stray)
        // the same chain identity again, even observed later: no error, and still the first row
        yield* contracts.recordUnmatchedTransfer(late)
        yield* contracts.recordUnmatchedTransfer({
          ...stray,
          amount: "1",
          observedAt: R.plus(R.base, Duration.hours(1))
        })
        const listed = yield* contracts.unmatchedTransfers({ contractId: c.id, limit: 10 })
        assert.deepStrictEqual(R.plain(listed), R.plain([late, stray]))

        // the same hash with another index, or on another chain, is another transfer
        yield* contracts.recordUnmatchedTransfer({ ...late, index: 1 })
        yield* contracts.recordUnmatchedTransfer({ ...late, chain: "ethereum" })
        assert.strictEqual((yield* contracts.unmatchedTransfers({ contractId: c.id, limit: 10 })).length, 4)
      })
    )

    it.effect("listed per contract or all, oldest first by (observedAt, block, index), at most `limit`", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        // a span of its own: these rows are the oldest in the store, so the unfiltered list starts with them
        const t = R.workerEpoch()
        const [a, b] = [yield* seedContract(scope), yield* seedContract(scope)]
        const rows = [
          unmatched(a, { observedAt: R.plusMillis(t, 3), blockNumber: 9 }),
          unmatched(a, { observedAt: t }),
          unmatched(b, { observedAt: R.plusMillis(t, 1) }),
          unmatched(a, { observedAt: R.plusMillis(t, 3), blockNumber: 8, index: 2 }),
          unmatched(a, { observedAt: R.plusMillis(t, 3), blockNumber: 8, index: 1 }),
          unmatched(a, { observedAt: R.plusMillis(t, 2) })
        ]
        for (const row of rows) yield* contracts.recordUnmatchedTransfer(row)
        const hashes = (list: ReadonlyArray<ContractRepo.UnmatchedTransfer>) => list.map((u) => u.transactionHash)
        const ofA = [rows[1]!, rows[5]!, rows[4]!, rows[3]!, rows[0]!]
        assert.deepStrictEqual(
          hashes(yield* contracts.unmatchedTransfers({ contractId: a.id, limit: 10 })),
          hashes(ofA)
        )
        assert.deepStrictEqual(
          hashes(yield* contracts.unmatchedTransfers({ contractId: a.id, limit: 2 })),
          hashes(ofA.slice(0, 2))
        )
        assert.deepStrictEqual(hashes(yield* contracts.unmatchedTransfers({ contractId: b.id, limit: 10 })), [
          rows[2]!.transactionHash
        ])
        assert.deepStrictEqual(
          hashes(yield* contracts.unmatchedTransfers({ limit: 3 })),
          hashes([rows[1]!, rows[2]!, rows[5]!])
        )
        assert.deepStrictEqual(yield* contracts.unmatchedTransfers({ contractId: R.uuid(), limit: 10 }), [])
      })
    )

    it.effect(
      "one of the settlement token is booked in the treasury ledger as it is recorded, once; another token is not",
      () =>
        Effect.gen(function* () {
          const contracts = yield* ContractRepo.ContractRepo
          const movements = yield* MovementRepo.MovementRepo
          const c = yield* seedContract(yield* newScope())
          const late = unmatched(c, { amount: "1.500000", observedAt: R.plusMillis(R.base, 7) })
          yield* contracts.recordUnmatchedTransfer(late)
          yield* contracts.recordUnmatchedTransfer(late)
          const source = `unmatched:${late.chain}:${late.transactionHash}:${late.index}`
          const entry = {
            source,
            environment: c.environment,
            chain: c.chain,
            contractId: c.id,
            partnerId: c.partnerId,
            kind: "unmatched_received",
            currency: "USDC",
            at: late.observedAt
          } as const
          assert.deepStrictEqual(
            R.plain(yield* movements.entriesOf(source)),
            R.plain([
              { ...entry, address: c.fundingWalletAddress, account: "funding_wallet", amount: R.dec("1.500000") },
              { ...entry, address: null, account: "unmatched_funds", amount: R.dec("-1.500000") }
            ])
          )
          // another token (raw base units), nothing at all: no booking
          for (const other of [
            unmatched(c, { index: 1, token: "0x7ceb23fd6bc0add59e62ac25578270cff1b9f619", unit: "base_units" }),
            unmatched(c, { index: 2, amount: "0.000000" })
          ]) {
            yield* contracts.recordUnmatchedTransfer(other)
            assert.deepStrictEqual(yield* movements.entriesOf(TreasuryLedger.unmatchedSource(other)), [])
          }
        })
    )

    it.effect("a transfer a commit counted is funding, never recorded as unmatched; an unknown contract fails", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const c = yield* seedContract(yield* newScope())
        const counted = R.transfer(c.chain, { index: 2 })
        const t1 = R.plus(c.createdAt, Duration.minutes(1))
        yield* contracts.commit(R.change(c, R.moved(c, "funds_in_route", t1), { transfer: counted }))
        // seen again once the contract stopped awaiting funds
        yield* contracts.recordUnmatchedTransfer(
          unmatched(c, { transactionHash: counted.transactionHash, index: 2, amount: "12.345678" })
        )
        assert.deepStrictEqual(yield* contracts.unmatchedTransfers({ contractId: c.id, limit: 10 }), [])

        const orphan = unmatched({ ...c, id: R.uuid() })
        assert.strictEqual((yield* Effect.flip(contracts.recordUnmatchedTransfer(orphan)))._tag, "StoreError")
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Contracts: the workers' claims
// ---------------------------------------------------------------------------------------------

/** An active contract whose window ends 8 days after `t` (funding deadline `t` + 1 h 10 s). */
const seedActive = (scope: Partner.PartnerScope, t: DateTime.Utc) =>
  Effect.gen(function* () {
    const c = yield* seedContract(scope, { createdAt: t })
    return yield* commitMove(c, "active", R.plus(t, Duration.minutes(30)))
  })

const contractClaimTests = (it: It) =>
  describe("ContractRepo: claims", () => {
    it.effect("claimDueForExpiry: 8 concurrent claimers take each of 30 due contracts exactly once", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const due: Array<string> = []
        for (let i = 0; i < 30; i++) due.push((yield* seedActive(scope, R.plusMillis(t, i))).id)
        const now = R.plus(t, Duration.days(9))
        // not due: window not ended yet; ended but not active
        const running = yield* seedActive(scope, R.plus(t, Duration.days(2)))
        const unfunded = yield* seedContract(scope, { createdAt: t })

        const claimed = yield* claimConcurrently(contracts.claimDueForExpiry, now)
        assertEachOnce(claimed, due)
        assert.notInclude(claimed, running.id)
        assert.notInclude(claimed, unfunded.id)
      })
    )

    it.effect("claimDueForExpiry: oldest first, leased until it expires, released by a commit", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const older = yield* seedActive(scope, t)
        const newer = yield* seedActive(scope, R.plus(t, Duration.seconds(1)))
        const now = R.plus(t, Duration.days(9))
        assert.deepStrictEqual(idsOf(yield* contracts.claimDueForExpiry(claimAt(now, "a", 1))), [older.id])
        assert.deepStrictEqual(idsOf(yield* contracts.claimDueForExpiry(claimAt(now, "b", 1))), [newer.id])
        assert.deepStrictEqual(idsOf(yield* contracts.claimDueForExpiry(claimAt(now, "c"))), [])

        const later = R.plus(now, Duration.minutes(5))
        yield* assertLeaseRules(contracts.claimDueForExpiry, older.id, later)
        // a commit releases the lease: still active and due, it is claimable again at once
        const touched = yield* commitMove(older, "active", later)
        assert.include(idsOf(yield* contracts.claimDueForExpiry(claimAt(later, "d"))), touched.id)
      })
    )

    it.effect("claimDueForFundingDeadline: unfunded contracts past their deadline, each claimed once", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const due: Array<string> = []
        for (let i = 0; i < 15; i++) due.push((yield* seedContract(scope, { createdAt: R.plusMillis(t, i) })).id)
        for (let i = 0; i < 15; i++) {
          const c = yield* seedContract(scope, { createdAt: R.plusMillis(t, 100 + i) })
          due.push((yield* commitMove(c, "funds_in_route", R.plus(t, Duration.minutes(1)))).id)
        }
        const now = R.plus(t, Duration.hours(2))
        // not due: deadline ahead; funded already
        const later = yield* seedContract(scope, { createdAt: t }, { fundingDeadline: R.plus(t, Duration.hours(3)) })
        const active = yield* seedActive(scope, t)

        const claimed = yield* claimConcurrently(contracts.claimDueForFundingDeadline, now)
        assertEachOnce(claimed, due)
        assert.notInclude(claimed, later.id)
        assert.notInclude(claimed, active.id)
      })
    )

    it.effect("claimDueForFundingDeadline: leased until it expires, released by a commit", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const c = yield* seedContract(scope, { createdAt: t })
        const now = R.plus(t, Duration.hours(2))
        yield* assertLeaseRules(contracts.claimDueForFundingDeadline, c.id, now)
        const touched = yield* commitMove(c, "funds_in_route", now)
        assert.include(idsOf(yield* contracts.claimDueForFundingDeadline(claimAt(now, "d"))), touched.id)
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

const eventTests = (it: It) =>
  describe("EventRepo", () => {
    it.effect("incoming events: insert, find by key, update; scoped", () =>
      Effect.gen(function* () {
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const c = yield* seedContract(scope)
        const queued = R.incoming(c, { eventType: "contract_exercised", status: "queued", processedAt: null })
        yield* events.insertIncoming(queued)
        assert.deepStrictEqual(
          R.plain(Option.getOrNull(yield* events.findIncoming(scope, queued.idempotencyKey))),
          R.plain(queued)
        )

        const processed = {
          ...queued,
          status: "processed" as const,
          processedAt: R.plusMillis(queued.createdAt, 1_234)
        }
        yield* events.updateIncoming(processed)
        assert.deepStrictEqual(
          R.plain(Option.getOrNull(yield* events.findIncoming(scope, queued.idempotencyKey))),
          R.plain(processed)
        )
        for (const outsider of [yield* newScope(), R.otherEnvironment(scope)]) {
          assert.isTrue(Option.isNone(yield* events.findIncoming(outsider, queued.idempotencyKey)))
        }
        assert.isTrue(Option.isNone(yield* events.findIncoming(scope, "never-sent")))
      })
    )

    it.effect("trace contexts are kept as written, through claims and delivery updates; none stays none", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const c = yield* seedContract(scope, { createdAt: t })
        const t1 = R.plus(t, Duration.minutes(1))
        const request = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        const commit = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
        const funded = R.moved(c, "active", t1, { eventSequence: 1 })
        const out = R.outgoing(funded, { createdAt: t1, nextAttemptAt: t1, traceContext: commit })
        const inc = R.incoming(funded, { createdAt: t1, processedAt: t1, traceContext: request })
        yield* contracts.commit(R.change(c, funded, { outgoing: out, incoming: inc }))
        const [, untraced] = yield* emit(funded, R.plus(t1, Duration.seconds(1)))

        const claimed = (yield* events.claimOutgoing(claimAt(R.plus(t1, Duration.minutes(1)), "tracer"))).filter(
          (e) => e.contractId === c.id
        )
        assert.deepStrictEqual(
          claimed.map((e) => e.traceContext),
          [commit]
        )
        // a delivery (or a redelivery) never rewrites where the event came from
        yield* events.updateOutgoing([{ ...claimed[0]!, status: "delivered", attempts: 1, traceContext: null }])
        yield* events.updateIncoming({ ...inc, status: "queued", traceContext: null })
        assert.strictEqual(Option.getOrThrow(yield* events.findOutgoing(scope, out.id)).traceContext, commit)
        assert.strictEqual(
          Option.getOrThrow(yield* events.findIncoming(scope, inc.idempotencyKey)).traceContext,
          request
        )
        assert.isNull(Option.getOrThrow(yield* events.findOutgoing(scope, untraced.id)).traceContext)
        const listed = yield* events.list(scope, { limit: 10, contractId: c.id })
        assert.deepStrictEqual(
          sorted(listed.map((v) => `${v._tag} ${v.event.traceContext}`)),
          sorted([`outgoing ${commit}`, "outgoing null", `incoming ${request}`])
        )
      })
    )

    it.effect(
      "list: both directions newest first with ties, chained pages, direction and contract filters, scoped",
      () =>
        Effect.gen(function* () {
          const events = yield* EventRepo.EventRepo
          const scope = yield* newScope()
          const first = yield* seedContract(scope)
          const second = yield* seedContract(scope)
          const [t0, t1, t2, t3, t4, t5, t6] = instantsWithTies(R.plus(R.base, Duration.hours(1)))
          let current = first
          const outgoing: Array<EventRepo.OutgoingEvent> = []
          for (const when of [t0!, t2!, t4!]) {
            const [after, event] = yield* emit(current, when)
            current = after
            outgoing.push(event)
          }
          const incoming = [
            R.incoming(first, { createdAt: t1! }),
            R.incoming(second, { createdAt: t3! }),
            R.incoming(first, { createdAt: t5! }),
            R.incoming(second, { createdAt: t6! })
          ]
          for (const event of incoming) yield* events.insertIncoming(event)
          // another partner's events never show
          yield* seedContract(yield* newScope()).pipe(Effect.flatMap((c) => emit(c, t0!)))

          const all = [...outgoing, ...incoming]
          const got = yield* pages(
            (after) => events.list(scope, { limit: 3, after }),
            (view) => view.event
          )
          assert.deepStrictEqual(got, expectedPages(all))

          const list = (filter: Partial<EventRepo.EventFilter>) =>
            Effect.map(events.list(scope, { limit: 100, ...filter }), (views) => views.map((v) => v.event.id))
          const newest = (rows: ReadonlyArray<{ createdAt: DateTime.Utc; id: string }>) =>
            [...rows].sort(R.byNewest).map((r) => r.id)
          assert.deepStrictEqual(yield* list({ direction: "outgoing" }), newest(outgoing))
          assert.deepStrictEqual(yield* list({ direction: "incoming" }), newest(incoming))
          assert.deepStrictEqual(
            yield* list({ contractId: second.id }),
            newest(incoming.filter((e) => e.contractId === second.id))
          )
          assert.deepStrictEqual(
            yield* list({ contractId: first.id, direction: "incoming" }),
            newest(incoming.filter((e) => e.contractId === first.id))
          )
          const views = yield* events.list(scope, { limit: 100, direction: "outgoing" })
          assert.isTrue(views.every((v) => v._tag === "outgoing"))
          assert.deepStrictEqual(yield* events.list(R.otherEnvironment(scope), { limit: 100 }), [])
        })
    )

    it.effect("findOutgoing keeps every field and is scoped", () =>
      Effect.gen(function* () {
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const [, event] = yield* emit(yield* seedContract(scope), R.at("2024-05-01T12:30:00.001Z"), {
          eventType: "payout_failed"
        })
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* events.findOutgoing(scope, event.id))), R.plain(event))
        for (const outsider of [yield* newScope(), R.otherEnvironment(scope)]) {
          assert.isTrue(Option.isNone(yield* events.findOutgoing(outsider, event.id)))
        }
      })
    )

    it.effect("payout feed: payout_settled and payout_failed only, oldest first, from `since`, chained", () =>
      Effect.gen(function* () {
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const t = R.plus(R.base, Duration.hours(2))
        const feed: Array<EventRepo.OutgoingEvent> = []
        let current = yield* seedContract(scope)
        const [afterFunding] = yield* emit(current, R.plusMillis(t, -5), { eventType: "funds_received" })
        current = afterFunding
        for (const [i, eventType] of (
          ["payout_failed", "payout_failed", "payout_settled", "payout_failed", "payout_settled"] as const
        ).entries()) {
          const [after, event] = yield* emit(current, R.plusMillis(t, i < 3 ? 0 : i), { eventType })
          current = after
          feed.push(event)
        }
        yield* emit(current, R.plusMillis(t, 10), { eventType: "contract_expired" })
        // another partner's payout events never show
        yield* seedContract(yield* newScope()).pipe(Effect.flatMap((c) => emit(c, t, { eventType: "payout_settled" })))

        const oldest = [...feed].sort(R.byNewest).reverse()
        const ids = oldest.map((e) => e.id)
        assert.deepStrictEqual(idsOf(yield* events.listPayoutEvents(scope, { limit: 100 })), ids)
        // chained pages of 2, strictly after the position
        const chained: Array<string> = []
        let after: { createdAt: string; id: string } | undefined
        for (let i = 0; i < 10; i++) {
          const page = yield* events.listPayoutEvents(scope, { limit: 2, after })
          if (page.length === 0) break
          assert.isAtMost(page.length, 2)
          chained.push(...idsOf(page))
          after = R.positionOf(page.at(-1)!)
        }
        assert.deepStrictEqual(chained, ids)
        // `since` includes rows created exactly then
        assert.deepStrictEqual(
          idsOf(yield* events.listPayoutEvents(scope, { limit: 100, since: R.plusMillis(t, 3) })),
          oldest.filter((e) => e.createdAt.epochMilliseconds >= t.epochMilliseconds + 3).map((e) => e.id)
        )
        assert.deepStrictEqual(yield* events.listPayoutEvents(R.otherEnvironment(scope), { limit: 100 }), [])
      })
    )
  })

const outboxTests = (it: It) =>
  describe("EventRepo: outbox claims", () => {
    it.effect("8 concurrent claimers take each of 30 due events exactly once; not due, delivered, failed stay", () =>
      Effect.gen(function* () {
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const now = R.plus(t, Duration.hours(1))
        const due: Array<string> = []
        for (let i = 0; i < 30; i++) {
          const c = yield* seedContract(scope, { createdAt: t })
          const [, event] = yield* emit(c, R.plusMillis(R.plus(t, Duration.minutes(1)), i))
          // half of them failed an attempt and are due again
          if (i % 2 === 1) {
            yield* events.updateOutgoing([
              {
                ...event,
                status: "retrying",
                attempts: 1,
                nextAttemptAt: R.plus(t, Duration.minutes(30))
              }
            ])
          }
          due.push(event.id)
        }
        const notDue: Array<string> = []
        for (const outcome of [
          { nextAttemptAt: R.plus(now, Duration.seconds(1)) },
          { status: "delivered", attempts: 1, deliveredAt: t },
          { status: "failed", attempts: 7 }
        ] as const) {
          const c = yield* seedContract(scope, { createdAt: t })
          const [, event] = yield* emit(c, R.plus(t, Duration.minutes(1)))
          yield* events.updateOutgoing([{ ...event, ...outcome }])
          notDue.push(event.id)
        }
        const claimed = yield* claimConcurrently(events.claimOutgoing, now)
        assertEachOnce(claimed, due)
        for (const id of notDue) assert.notInclude(claimed, id)
      })
    )

    it.effect("a claimed event is leased until the lease expires; updateOutgoing releases it", () =>
      Effect.gen(function* () {
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const [, event] = yield* emit(yield* seedContract(scope, { createdAt: t }), R.plus(t, Duration.minutes(1)))
        const now = R.plus(t, Duration.minutes(2))
        yield* assertLeaseRules(events.claimOutgoing, event.id, now)

        const retry = {
          ...event,
          status: "retrying" as const,
          attempts: 1,
          lastError: "HTTP 503",
          lastBody: '{"event_type":"funds_received"}',
          nextAttemptAt: now
        }
        yield* events.updateOutgoing([retry])
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* events.findOutgoing(scope, event.id))), R.plain(retry))
        assert.include(idsOf(yield* events.claimOutgoing(claimAt(now, "third"))), event.id)
      })
    )

    it.effect("updateOutgoing saves many events in one write, keeps each payload and releases the leases", () =>
      Effect.gen(function* () {
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const [, a] = yield* emit(yield* seedContract(scope, { createdAt: t }), R.plus(t, Duration.minutes(1)))
        const [, b] = yield* emit(yield* seedContract(scope, { createdAt: t }), R.plus(t, Duration.minutes(1)))
        const [, c] = yield* emit(yield* seedContract(scope, { createdAt: t }), R.plus(t, Duration.minutes(1)))
        const now = R.plus(t, Duration.minutes(2))
        const claimed = yield* events.claimOutgoing(claimAt(now, "first"))
        assert.includeMembers(idsOf(claimed), [a.id, b.id, c.id])

        const delivered = {
          ...a,
          status: "delivered" as const,
          attempts: 1,
          deliveredAt: now,
          lastBody: '{"event_type":"funds_received"}'
        }
        const retrying = {
          ...b,
          status: "retrying" as const,
          attempts: 1,
          lastError: "HTTP 503",
          lastBody: '{"event_type":"funds_received"}',
          nextAttemptAt: now
        }
        // a payload changed in memory is not what a delivery records
        yield* events.updateOutgoing([delivered, { ...retrying, payload: { changed: true } }])
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* events.findOutgoing(scope, a.id))), R.plain(delivered))
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* events.findOutgoing(scope, b.id))), R.plain(retrying))
        // the retrying one is due again at once (its lease released); the delivered one never
        const again = idsOf(yield* events.claimOutgoing(claimAt(now, "second")))
        assert.include(again, b.id)
        assert.notInclude(again, a.id)
        // a pass where everything was delivered: no event has an error
        const allDelivered = { ...c, status: "delivered" as const, attempts: 1, deliveredAt: now, lastBody: "{}" }
        yield* events.updateOutgoing([allDelivered])
        assert.deepStrictEqual(
          R.plain(Option.getOrNull(yield* events.findOutgoing(scope, c.id))),
          R.plain(allDelivered)
        )
        yield* events.updateOutgoing([])
      })
    )

    it.effect("deliveries of a contract are serialised; a stuck contract holds back only its own events", () =>
      Effect.gen(function* () {
        const events = yield* EventRepo.EventRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const twoEvents = Effect.gen(function* () {
          const c = yield* seedContract(scope, { createdAt: t })
          const [afterOne, one] = yield* emit(c, R.plus(t, Duration.minutes(1)))
          const [, two] = yield* emit(afterOne, R.plus(t, Duration.minutes(2)))
          return [one, two] as const
        })
        const [x1, x2] = yield* twoEvents
        const [y1, y2] = yield* twoEvents
        const [z1, z2] = yield* twoEvents
        assert.deepStrictEqual([x1.sequence, x2.sequence], [1, 2])
        const now = R.plus(t, Duration.minutes(10))
        const claim = (owner: string) =>
          Effect.map(events.claimOutgoing(claimAt(now, owner)), (rows) => sorted(idsOf(rows)))

        // seq 2 waits while seq 1 is pending, even while seq 1 is leased
        assert.deepStrictEqual(yield* claim("a"), sorted([x1.id, y1.id, z1.id]))
        assert.deepStrictEqual(yield* claim("b"), [])

        // x1 retries later: x2 still waits; y1 failed for good: y2 goes; z1 delivered: z2 goes
        yield* events.updateOutgoing([
          {
            ...x1,
            status: "retrying",
            attempts: 1,
            nextAttemptAt: R.plus(now, Duration.hours(1))
          }
        ])
        yield* events.updateOutgoing([{ ...y1, status: "failed", attempts: 7 }])
        yield* events.updateOutgoing([{ ...z1, status: "delivered", attempts: 1, deliveredAt: now }])
        assert.deepStrictEqual(yield* claim("c"), sorted([y2.id, z2.id]))

        yield* events.updateOutgoing([{ ...x1, status: "delivered", attempts: 2, deliveredAt: now }])
        assert.deepStrictEqual(yield* claim("d"), [x2.id])
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Idempotency keys
// ---------------------------------------------------------------------------------------------

const idempotencyTests = (it: It) =>
  describe("IdempotencyRepo", () => {
    const day = Duration.hours(24)

    it.effect("claim, in flight, complete and replay, release", () =>
      Effect.gen(function* () {
        const keys = yield* IdempotencyRepo.IdempotencyRepo
        const scope = yield* newScope()
        const now = R.base
        const expires = R.plus(now, day)
        const key = `key-${R.uuid()}`
        assert.deepStrictEqual(yield* keys.claim(scope, key, "fp-1", now, expires), { _tag: "Claimed" })
        assert.deepStrictEqual(yield* keys.claim(scope, key, "fp-2", R.plus(now, Duration.seconds(1)), expires), {
          _tag: "InFlight",
          fingerprint: "fp-1"
        })
        const response = { status: 201, body: '{"id":"q-1","amount":"5.4400"}' }
        yield* keys.complete(scope, key, response, expires)
        assert.deepStrictEqual(yield* keys.claim(scope, key, "fp-2", R.plus(now, Duration.seconds(2)), expires), {
          _tag: "Completed",
          fingerprint: "fp-1",
          response
        })

        const other = `key-${R.uuid()}`
        yield* keys.claim(scope, other, "fp-1", now, expires)
        yield* keys.release(scope, other)
        assert.deepStrictEqual(yield* keys.claim(scope, other, "fp-3", now, expires), { _tag: "Claimed" })
        assert.deepStrictEqual(yield* keys.claim(scope, other, "fp-4", now, expires), {
          _tag: "InFlight",
          fingerprint: "fp-3"
        })
      })
    )

    it.effect("an unanswered claim lasts its own lease; an answer is kept until keepUntil", () =>
      Effect.gen(function* () {
        const keys = yield* IdempotencyRepo.IdempotencyRepo
        const scope = yield* newScope()
        const lease = R.plus(R.base, Duration.minutes(1))
        const orphan = `key-${R.uuid()}`
        const answered = `key-${R.uuid()}`
        yield* keys.claim(scope, orphan, "fp-1", R.base, lease)
        yield* keys.claim(scope, answered, "fp-1", R.base, lease)
        yield* keys.complete(scope, answered, { status: 201, body: "{}" }, R.plus(R.base, day))
        const afterLease = R.plus(R.base, Duration.minutes(2))
        assert.deepStrictEqual(yield* keys.claim(scope, orphan, "fp-1", afterLease, R.plus(afterLease, day)), {
          _tag: "Claimed"
        })
        assert.strictEqual((yield* keys.claim(scope, answered, "fp-1", afterLease, afterLease))._tag, "Completed")
      })
    )

    it.effect("keys are separate per partner and environment", () =>
      Effect.gen(function* () {
        const keys = yield* IdempotencyRepo.IdempotencyRepo
        const scope = yield* newScope()
        const key = `key-${R.uuid()}`
        const expires = R.plus(R.base, day)
        yield* keys.claim(scope, key, "fp-1", R.base, expires)
        yield* keys.complete(scope, key, { status: 200, body: "{}" }, expires)
        for (const outsider of [yield* newScope(), R.otherEnvironment(scope)]) {
          assert.deepStrictEqual(yield* keys.claim(outsider, key, "fp-9", R.base, expires), { _tag: "Claimed" })
        }
        assert.strictEqual((yield* keys.claim(scope, key, "fp-1", R.base, expires))._tag, "Completed")
      })
    )

    it.effect("a key at or past its expiresAt is taken over as a fresh claim", () =>
      Effect.gen(function* () {
        const keys = yield* IdempotencyRepo.IdempotencyRepo
        const scope = yield* newScope()
        const expires = R.plus(R.base, day)
        const inFlight = `key-${R.uuid()}`
        const completed = `key-${R.uuid()}`
        yield* keys.claim(scope, inFlight, "fp-1", R.base, expires)
        yield* keys.claim(scope, completed, "fp-1", R.base, expires)
        yield* keys.complete(scope, completed, { status: 201, body: "{}" }, expires)
        const justBefore = R.plusMillis(expires, -1)
        assert.strictEqual((yield* keys.claim(scope, inFlight, "fp-2", justBefore, expires))._tag, "InFlight")
        assert.strictEqual((yield* keys.claim(scope, completed, "fp-2", justBefore, expires))._tag, "Completed")

        const renewed = R.plus(expires, day)
        for (const key of [inFlight, completed]) {
          assert.deepStrictEqual(yield* keys.claim(scope, key, "fp-2", expires, renewed), { _tag: "Claimed" })
          assert.deepStrictEqual(yield* keys.claim(scope, key, "fp-3", R.plusMillis(expires, 1), renewed), {
            _tag: "InFlight",
            fingerprint: "fp-2"
          })
        }
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Payouts
// ---------------------------------------------------------------------------------------------

/** A job the hot wallet signs (a payout, a movement) in `status`: signed unless pending, mined if confirmed. */
const signedAs = (status: PayoutRepo.PayoutStatus, id: string) => ({
  status,
  prepared: status === "pending" ? null : "AQID",
  transactionHash: status === "pending" ? null : `0x${id.replaceAll("-", "")}`,
  blockNumber: status === "confirmed" ? 7 : null
})

type Elsewhere = Partial<{
  readonly environment: Partner.Environment
  readonly chain: Rail.Chain
  readonly currency: Rail.SettlementCurrency
}>

/**
 * A rail's committed sum (`PayoutRepo.committed`, `MovementRepo.committed`) over the jobs `signed`
 * stores on it (or `elsewhere`): nothing at first; the exact sum of those signed and not
 * confirmed, none of those not signed, confirmed or failed, nor of another currency, chain or
 * environment; the first left out once it is confirmed.
 */
const assertCommitted = <J, E>(jobs: {
  readonly committed: Effect.Effect<Money.Decimal, StoreError.StoreError>
  readonly signed: (
    amount: string,
    status: PayoutRepo.PayoutStatus,
    elsewhere?: Elsewhere
  ) => Effect.Effect<J, E, Repos>
  readonly confirm: (job: J) => Effect.Effect<boolean, StoreError.StoreError>
}) =>
  Effect.gen(function* () {
    const committed = Effect.map(jobs.committed, (sum) => Money.format(BigDecimal.normalize(sum)))
    assert.strictEqual(yield* committed, "0")
    const first = yield* jobs.signed("60.000001", "prepared")
    yield* jobs.signed("0.000002", "prepared")
    yield* jobs.signed("39.9", "prepared")
    for (const status of ["pending", "confirmed", "failed"] as const) yield* jobs.signed("1000", status)
    for (const elsewhere of [{ currency: "USDC" }, { chain: "polygon" }, { environment: "sandbox" }] as const) {
      yield* jobs.signed("2000", "prepared", elsewhere)
    }
    assert.strictEqual(yield* committed, "99.900003")
    assert.isTrue(yield* jobs.confirm(first))
    assert.strictEqual(yield* committed, "39.900002")
  })

const payoutTests = (it: It) =>
  describe("PayoutRepo", () => {
    it.effect("insert, findByContract and update keep every field, decimals and nulls included", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        const c = yield* seedContract(yield* newScope())
        const p = R.payout(c, { amount: R.dec("0.000001"), fxDeltaInQuoteCurrency: R.dec("5.4400") })
        yield* payouts.insert(p)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* payouts.findByContract(c.id))), R.plain(p))

        const prepared: PayoutRepo.PayoutRecord = {
          ...p,
          status: "prepared",
          prepared: "AQIDBAUGBwg=",
          transactionHash: `0x${"ab".repeat(32)}`,
          nonce: 9_007_199_254_740_991,
          waiting: "fee_cap",
          replacements: 2,
          blockNumber: 19_000_001,
          attempts: 2,
          lastError: "rpc_unavailable: timeout",
          nextAttemptAt: R.at("2024-05-02T00:05:00.321Z"),
          updatedAt: R.at("2024-05-02T00:00:00.321Z")
        }
        assert.isTrue(yield* payouts.update(prepared, p))
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* payouts.findByContract(c.id))), R.plain(prepared))
        assert.isTrue(Option.isNone(yield* payouts.findByContract(R.uuid())))

        // compare-and-set: an update over a row that moved on is refused and writes nothing
        const stale = { ...p, status: "failed" as const, attempts: 9, updatedAt: R.at("2024-05-02T00:09:00.000Z") }
        assert.isFalse(yield* payouts.update(stale, p))
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* payouts.findByContract(c.id))), R.plain(prepared))
      })
    )

    it.effect("findByContracts: the payouts of those contracts that have one, in one read", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        const scope = yield* newScope()
        const [a, b, none] = [yield* seedContract(scope), yield* seedContract(scope), yield* seedContract(scope)]
        const [pa, pb] = [R.payout(a), R.payout(b, { amount: R.dec("12.5") })]
        yield* payouts.insert(pa)
        yield* payouts.insert(pb)
        const found = yield* payouts.findByContracts([a.id, none.id, b.id, "not-a-uuid"])
        assert.deepStrictEqual(
          R.plain([...found].sort((x, y) => x.contractId.localeCompare(y.contractId))),
          R.plain([pa, pb].sort((x, y) => x.contractId.localeCompare(y.contractId)))
        )
        assert.deepStrictEqual(yield* payouts.findByContracts([]), [])
      })
    )

    it.effect("committed: the exact sum of a rail's payouts signed and not yet confirmed, no other", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        // a rail no other test signs payouts on
        const rail = { environment: "production", chain: "solana", currency: "EURC" } as const
        const scopes = { production: yield* newScope("production"), sandbox: yield* newScope("sandbox") }
        yield* assertCommitted({
          committed: payouts.committed(rail),
          signed: (amount, status, elsewhere) =>
            Effect.gen(function* () {
              const on = { ...rail, ...elsewhere }
              const c = yield* seedContract(scopes[on.environment])
              const p = R.payout(c, { ...on, amount: R.dec(amount), ...signedAs(status, c.id) })
              yield* payouts.insert(p)
              return p
            }),
          confirm: (p) => payouts.update({ ...p, status: "confirmed", updatedAt: R.plusMillis(p.updatedAt, 1) }, p)
        })
      })
    )

    it.effect("one payout per contract: a second fails with PayoutExists and the first stands", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        const c = yield* seedContract(yield* newScope())
        const first = R.payout(c)
        yield* payouts.insert(first)
        const error = yield* Effect.flip(payouts.insert(R.payout(c, { amount: R.dec("9.000000") })))
        assert.strictEqual(error._tag, "PayoutExists")
        assert.strictEqual(Option.getOrThrow(yield* payouts.findByContract(c.id)).id, first.id)
      })
    )

    it.effect("claimDue: 8 concurrent claimers take each of 30 due payouts exactly once", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const now = R.plus(t, Duration.hours(1))
        const due: Array<string> = []
        for (let i = 0; i < 30; i++) {
          const c = yield* seedContract(scope, { createdAt: t })
          const p = R.payout(c, { createdAt: R.plusMillis(t, i), nextAttemptAt: R.plusMillis(t, i) })
          yield* payouts.insert(p)
          // a third of them are signed, waiting for the chain
          if (i % 3 === 0)
            yield* payouts.update({ ...p, status: "prepared", prepared: "AQID", transactionHash: `0x${i}` }, p)
          due.push(p.id)
        }
        const notDue: Array<string> = []
        for (const outcome of [
          { nextAttemptAt: R.plus(now, Duration.seconds(1)) },
          { status: "confirmed", blockNumber: 7 },
          { status: "failed", attempts: 6 }
        ] as const) {
          const p = R.payout(yield* seedContract(scope, { createdAt: t }), { createdAt: t, nextAttemptAt: t })
          yield* payouts.insert(p)
          yield* payouts.update({ ...p, ...outcome }, p)
          notDue.push(p.id)
        }
        const claimed = yield* claimConcurrently(payouts.claimDue, now)
        assertEachOnce(claimed, due)
        for (const id of notDue) assert.notInclude(claimed, id)
      })
    )

    it.effect("claimDue: oldest first, leased until the lease expires, released by update", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        const scope = yield* newScope()
        const t = R.workerEpoch()
        const older = R.payout(yield* seedContract(scope, { createdAt: t }), { createdAt: t, nextAttemptAt: t })
        const newer = R.payout(yield* seedContract(scope, { createdAt: t }), {
          createdAt: R.plusMillis(t, 1),
          nextAttemptAt: R.plusMillis(t, 1)
        })
        yield* payouts.insert(newer)
        yield* payouts.insert(older)
        const now = R.plus(t, Duration.minutes(1))
        assert.deepStrictEqual(idsOf(yield* payouts.claimDue(claimAt(now, "a", 1))), [older.id])
        assert.deepStrictEqual(idsOf(yield* payouts.claimDue(claimAt(now, "b", 1))), [newer.id])

        const later = R.plus(now, Duration.minutes(5))
        yield* assertLeaseRules(payouts.claimDue, older.id, later)
        yield* payouts.update(
          { ...older, attempts: 1, lastError: "x: y", nextAttemptAt: later, updatedAt: later },
          older
        )
        assert.include(idsOf(yield* payouts.claimDue(claimAt(later, "c"))), older.id)
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Payouts: signed with the store's nonces, and the operator's list
// ---------------------------------------------------------------------------------------------

/** A hot wallet of its own (a lowercase address): the nonces this test hands out are its alone. */
const freshSigner = () => `0x${R.uuid().replaceAll("-", "")}00000000`

const walletAt = (signer: string, floor: number): ChainGateway.NonceAccount => ({ signer, floor, pending: floor })

/** What a gateway's signing of `payout` (or a movement) at `nonce` answers. */
const signedAt = (payout: { readonly id: string }, nonce: number | null): ChainGateway.PreparedPayout => ({
  transactionHash: `0x${payout.id.replaceAll("-", "")}${nonce ?? "x"}`,
  persisted: JSON.stringify({ payout: payout.id, nonce })
})

/** A pending payout of a new contract of `scope`, stored. */
const storedPayout = (scope: Partner.PartnerScope, overrides: Partial<PayoutRepo.PayoutRecord> = {}) =>
  Effect.gen(function* () {
    const payout = R.payout(yield* seedContract(scope), overrides)
    yield* (yield* PayoutRepo.PayoutRepo).insert(payout)
    return payout
  })

/** The payout as the signing pass writes it over the row it read: prepared, a millisecond later. */
const preparing = (payout: PayoutRepo.PayoutRecord): PayoutRepo.PayoutRecord => ({
  ...payout,
  status: "prepared",
  updatedAt: R.plusMillis(payout.updatedAt, 1)
})

/** What `recordSigned` stores for `payout` signed at `nonce`. */
const signedRecord = (payout: PayoutRepo.PayoutRecord, nonce: number | null): PayoutRepo.PayoutRecord => {
  const prepared = signedAt(payout, nonce)
  return { ...preparing(payout), prepared: prepared.persisted, transactionHash: prepared.transactionHash, nonce }
}

/** `recordSigned` of `payout` as read, in `wallet`, signing with `signedAt`: the nonce written, or null if none was. */
const signIn = (payout: PayoutRepo.PayoutRecord, wallet: ChainGateway.NonceAccount | null) =>
  Effect.flatMap(PayoutRepo.PayoutRepo, (payouts) =>
    payouts.recordSigned(preparing(payout), payout, wallet, (nonce) => Effect.succeed(signedAt(payout, nonce)))
  ).pipe(Effect.map((written) => Option.getOrThrow(written).nonce))

const storedPayoutOf = (payout: PayoutRepo.PayoutRecord) =>
  Effect.flatMap(PayoutRepo.PayoutRepo, (payouts) => payouts.findByContract(payout.contractId)).pipe(
    Effect.map((found) => R.plain(Option.getOrNull(found)))
  )

/** Oldest first by `(createdAt, id)`. */
const compareOldest = (a: PayoutRepo.PayoutRecord, b: PayoutRepo.PayoutRecord) => R.byNewest(b, a)

class SigningRefused extends Schema.TaggedError<SigningRefused>()("SigningRefused", {}) {}

const nonceTests = (it: It) =>
  describe("PayoutRepo.recordSigned and list", () => {
    it.effect(
      "allocates the floor, then the next nonces; writes the signed payout over the row read and frees its lease",
      () =>
        Effect.gen(function* () {
          const payouts = yield* PayoutRepo.PayoutRepo
          const scope = yield* newScope()
          const t = R.workerEpoch()
          const now = R.plus(t, Duration.minutes(1))
          const wallet = walletAt(freshSigner(), 7)
          const due = [
            yield* storedPayout(scope, { createdAt: t }),
            yield* storedPayout(scope, { createdAt: R.plusMillis(t, 1) }),
            yield* storedPayout(scope, { createdAt: R.plusMillis(t, 2) })
          ]
          // leased to the signing worker, as `advance` finds them
          assert.deepStrictEqual(idsOf(yield* payouts.claimDue(claimAt(now, "signer", 3))), idsOf(due))
          const signedNonces: Array<number | null> = []
          for (const payout of due) {
            const written = yield* payouts.recordSigned(preparing(payout), payout, wallet, (nonce) =>
              Effect.sync(() => {
                signedNonces.push(nonce)
                return signedAt(payout, nonce)
              })
            )
            assert.deepStrictEqual(
              R.plain(Option.getOrNull(written)),
              R.plain(signedRecord(payout, written.pipe(Option.getOrThrow).nonce))
            )
          }
          assert.deepStrictEqual(signedNonces, [7, 8, 9])
          for (const [i, payout] of due.entries()) {
            assert.deepStrictEqual(yield* storedPayoutOf(payout), R.plain(signedRecord(payout, 7 + i)))
          }
          // the leases are released: another worker claims the signed payouts at once
          assert.deepStrictEqual(idsOf(yield* payouts.claimDue(claimAt(now, "looker", 3))), idsOf(due))
        })
    )

    it.effect("hands out the lowest free nonce at or above the floor: a gap is filled, nothing below the floor", () =>
      Effect.gen(function* () {
        const scope = yield* newScope()
        const signer = freshSigner()
        const floors = [0, 2, 0, 0, 10, 4, 9, 9, 3]
        const nonces: Array<number | null> = []
        for (const floor of floors) nonces.push(yield* signIn(yield* storedPayout(scope), walletAt(signer, floor)))
        assert.deepStrictEqual(nonces, [0, 2, 1, 3, 10, 4, 9, 11, 5])
      })
    )

    it.effect("a payout started again without a nonce frees the one it held: the next signing fills the gap", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        const scope = yield* newScope()
        const wallet = walletAt(freshSigner(), 0)
        const first = yield* storedPayout(scope)
        assert.strictEqual(yield* signIn(first, wallet), 0)
        assert.strictEqual(yield* signIn(yield* storedPayout(scope), wallet), 1)
        // a version waiting keeps its nonce
        const signed = signedRecord(first, 0)
        const waiting = { ...signed, waiting: "fee_cap" as const, updatedAt: R.plusMillis(signed.updatedAt, 1) }
        assert.isTrue(yield* payouts.update(waiting, signed))
        assert.strictEqual(yield* signIn(yield* storedPayout(scope), wallet), 2)
        // the chain failed every version for good: pending again, with no transaction and no nonce
        const restarted: PayoutRepo.PayoutRecord = {
          ...waiting,
          status: "pending",
          prepared: null,
          transactionHash: null,
          nonce: null,
          waiting: null,
          updatedAt: R.plusMillis(waiting.updatedAt, 1)
        }
        // over a row that moved on, nothing is written and nothing freed
        assert.isFalse(yield* payouts.update(restarted, signed))
        assert.strictEqual(yield* signIn(yield* storedPayout(scope), wallet), 3)
        assert.isTrue(yield* payouts.update(restarted, waiting))
        assert.strictEqual(yield* signIn(yield* storedPayout(scope), wallet), 0)
        assert.strictEqual(yield* signIn(restarted, wallet), 4)
      })
    )

    it.effect("a lost compare-and-set writes nothing and answers none: its nonce stays free", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        const scope = yield* newScope()
        const wallet = walletAt(freshSigner(), 3)
        const payout = yield* storedPayout(scope)
        // another worker moved the row on after this one read it
        const moved = { ...payout, attempts: 1, lastError: "x: y", updatedAt: R.plusMillis(payout.updatedAt, 5) }
        assert.isTrue(yield* payouts.update(moved, payout))
        const signedNonces: Array<number | null> = []
        const written = yield* payouts.recordSigned(preparing(payout), payout, wallet, (nonce) =>
          Effect.sync(() => {
            signedNonces.push(nonce)
            return signedAt(payout, nonce)
          })
        )
        assert.isTrue(Option.isNone(written))
        assert.deepStrictEqual(signedNonces, [3])
        assert.deepStrictEqual(yield* storedPayoutOf(payout), R.plain(moved))
        // over a stale row without a nonce account too
        assert.isTrue(
          Option.isNone(
            yield* payouts.recordSigned(preparing(payout), payout, null, (n) => Effect.succeed(signedAt(payout, n)))
          )
        )
        assert.deepStrictEqual(yield* storedPayoutOf(payout), R.plain(moved))
        // nonce 3 was never kept: the next signing of the wallet takes it
        assert.strictEqual(yield* signIn(yield* storedPayout(scope), wallet), 3)
        assert.strictEqual(yield* signIn(moved, wallet), 4)
      })
    )

    it.effect("a signing that fails fails recordSigned with its own error, writes nothing and keeps no nonce", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        const scope = yield* newScope()
        const wallet = walletAt(freshSigner(), 0)
        const payout = yield* storedPayout(scope)
        const refused = yield* Effect.flip(
          payouts.recordSigned(preparing(payout), payout, wallet, () => Effect.fail(new SigningRefused()))
        )
        assert.strictEqual(refused._tag, "SigningRefused")
        assert.deepStrictEqual(yield* storedPayoutOf(payout), R.plain(payout))
        const withoutWallet = yield* Effect.flip(
          payouts.recordSigned(preparing(payout), payout, null, () => Effect.fail(new SigningRefused()))
        )
        assert.strictEqual(withoutWallet._tag, "SigningRefused")
        assert.deepStrictEqual(yield* storedPayoutOf(payout), R.plain(payout))
        // the same payout signs again, at the nonce the failed signing was given
        assert.strictEqual(yield* signIn(payout, wallet), 0)
        assert.deepStrictEqual(yield* storedPayoutOf(payout), R.plain(signedRecord(payout, 0)))
      })
    )

    it.effect("8 concurrent signings of one wallet get 8 distinct nonces from the floor, one signing at a time", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        const scope = yield* newScope()
        const wallet = walletAt(freshSigner(), 40)
        const due = yield* Effect.forEach(Array.from({ length: 8 }), () => storedPayout(scope))
        let signing = 0
        let mostAtOnce = 0
        const written = yield* Effect.forEach(
          due,
          (payout) =>
            payouts.recordSigned(preparing(payout), payout, wallet, (nonce) =>
              Effect.gen(function* () {
                signing++
                mostAtOnce = Math.max(mostAtOnce, signing)
                // long enough for every other signing to be under way, were it not held back
                yield* Effect.sleep(Duration.millis(5))
                signing--
                return signedAt(payout, nonce)
              })
            ),
          { concurrency: "unbounded" }
        )
        const nonces = written.map((w) => Option.getOrThrow(w).nonce!)
        assert.deepStrictEqual(
          [...nonces].sort((a, b) => a - b),
          [40, 41, 42, 43, 44, 45, 46, 47]
        )
        assert.strictEqual(mostAtOnce, 1)
        for (const [i, payout] of due.entries()) {
          assert.deepStrictEqual(yield* storedPayoutOf(payout), R.plain(signedRecord(payout, nonces[i]!)))
        }
      })
    )

    it.effect("wallets are independent: another signer, chain or environment has nonces of its own", () =>
      Effect.gen(function* () {
        const sandbox = yield* newScope()
        const production = yield* newScope("production")
        const [signer, other] = [freshSigner(), freshSigner()]
        const at = (scope: Partner.PartnerScope, chain: Rail.Chain, address: string) =>
          Effect.flatMap(storedPayout(scope, { chain }), (payout) => signIn(payout, walletAt(address, 0)))
        assert.strictEqual(yield* at(sandbox, "ethereum", signer), 0)
        assert.strictEqual(yield* at(sandbox, "ethereum", signer), 1)
        assert.strictEqual(yield* at(production, "ethereum", signer), 0)
        assert.strictEqual(yield* at(sandbox, "polygon", signer), 0)
        assert.strictEqual(yield* at(sandbox, "ethereum", other), 0)
        assert.strictEqual(yield* at(sandbox, "ethereum", signer), 2)
      })
    )

    it.effect("without a nonce account: signed at null, written with nonce null; no wallet's nonces move", () =>
      Effect.gen(function* () {
        const scope = yield* newScope()
        const signer = freshSigner()
        assert.strictEqual(yield* signIn(yield* storedPayout(scope), walletAt(signer, 0)), 0)
        const payout = yield* storedPayout(scope, { chain: "solana" })
        assert.isNull(yield* signIn(payout, null))
        assert.deepStrictEqual(yield* storedPayoutOf(payout), R.plain(signedRecord(payout, null)))
        assert.strictEqual(yield* signIn(yield* storedPayout(scope), walletAt(signer, 0)), 1)
      })
    )

    it.effect("a nonce account that is not one (a fractional or negative floor, a mixed-case signer) is a defect", () =>
      Effect.gen(function* () {
        const payouts = yield* PayoutRepo.PayoutRepo
        const payout = yield* storedPayout(yield* newScope())
        const signer = freshSigner()
        for (const wallet of [walletAt(signer, 1.5), walletAt(signer, -1), walletAt(signer.toUpperCase(), 0)]) {
          const exit = yield* Effect.exit(
            payouts.recordSigned(preparing(payout), payout, wallet, (n) => Effect.succeed(signedAt(payout, n)))
          )
          assert.isTrue(Exit.hasDies(exit), JSON.stringify(wallet))
        }
        assert.deepStrictEqual(yield* storedPayoutOf(payout), R.plain(payout))
      })
    )

    it.effect(
      "list: the statuses asked, oldest first by (createdAt, id), one environment if asked, at most limit",
      () =>
        Effect.gen(function* () {
          const payouts = yield* PayoutRepo.PayoutRepo
          const sandbox = yield* newScope()
          const production = yield* newScope("production")
          // the oldest payouts in the store (`workerEpoch`), so the lists begin with them
          const t = R.workerEpoch()
          const stored = (scope: Partner.PartnerScope, at: DateTime.Utc, status: PayoutRepo.PayoutStatus) =>
            Effect.gen(function* () {
              const payout = yield* storedPayout(scope, { createdAt: at })
              if (status === "pending") return payout
              const moved = { ...payout, status, updatedAt: R.plusMillis(at, 10) }
              assert.isTrue(yield* payouts.update(moved, payout))
              return moved
            })
          const sandboxPending = yield* stored(sandbox, R.plusMillis(t, 2), "pending")
          const tiedA = yield* stored(sandbox, t, "prepared")
          const tiedB = yield* stored(sandbox, t, "prepared")
          const confirmed = yield* stored(sandbox, R.plusMillis(t, 1), "confirmed")
          const failed = yield* stored(sandbox, R.plusMillis(t, 3), "failed")
          const productionPending = yield* stored(production, R.plusMillis(t, 1), "pending")
          const productionPrepared = yield* stored(production, R.plusMillis(t, 4), "prepared")
          const inFlight = [tiedA, tiedB, sandboxPending, productionPending, productionPrepared].sort(compareOldest)

          const listed = (query: Parameters<PayoutRepo.PayoutRepoShape["list"]>[0]) =>
            Effect.map(payouts.list(query), idsOf)
          const inFlightRows = yield* payouts.list({ statuses: ["pending", "prepared"], limit: 5 })
          assert.deepStrictEqual(R.plain(inFlightRows), R.plain(inFlight))
          assert.deepStrictEqual(
            yield* listed({ statuses: ["prepared", "pending"], limit: 2 }),
            idsOf(inFlight.slice(0, 2))
          )
          assert.deepStrictEqual(
            yield* listed({ statuses: ["pending", "prepared"], environment: "production", limit: 2 }),
            idsOf([productionPending, productionPrepared])
          )
          assert.deepStrictEqual(
            yield* listed({ statuses: ["pending", "prepared"], environment: "sandbox", limit: 3 }),
            idsOf([tiedA, tiedB, sandboxPending].sort(compareOldest))
          )
          assert.deepStrictEqual(
            yield* listed({ statuses: ["confirmed", "failed"], limit: 2 }),
            idsOf([confirmed, failed])
          )
          assert.notInclude(yield* listed({ statuses: ["failed"], environment: "production", limit: 1_000 }), failed.id)
          assert.deepStrictEqual(yield* payouts.list({ statuses: [], limit: 10 }), [])
          assert.deepStrictEqual(yield* payouts.list({ statuses: ["pending"], limit: 0 }), [])

          // by why they wait: the production payout at the fee cap, not the one mining
          const capped = { ...productionPrepared, waiting: "fee_cap" as const, updatedAt: R.plusMillis(t, 20) }
          assert.isTrue(yield* payouts.update(capped, productionPrepared))
          const mining = { ...productionPending, waiting: "mining" as const, updatedAt: R.plusMillis(t, 20) }
          assert.isTrue(yield* payouts.update(mining, productionPending))
          assert.deepStrictEqual(
            yield* listed({
              statuses: ["pending", "prepared"],
              environment: "production",
              waiting: ["fee_cap", "insufficient_funds"],
              limit: 1
            }),
            [capped.id]
          )
          assert.deepStrictEqual(
            yield* listed({
              statuses: ["pending", "prepared"],
              environment: "production",
              waiting: ["mining"],
              limit: 1
            }),
            [mining.id]
          )
        })
    )
  })

// ---------------------------------------------------------------------------------------------
// Movements: sweeps and refunds, written and signed as payouts are
// ---------------------------------------------------------------------------------------------

/** A movement of a new contract of `scope` (`R.movement`, or `R.sweep`), stored. */
const storedMovement = (
  scope: Partner.PartnerScope,
  overrides: Partial<MovementRepo.Movement> = {},
  make: typeof R.movement = R.movement
) =>
  Effect.gen(function* () {
    const movement = make(yield* seedContract(scope), overrides)
    yield* (yield* MovementRepo.MovementRepo).insert(movement)
    return movement
  })

/** The movement as a pass writes it over the row it read, a millisecond later. */
const movedOn = (
  movement: MovementRepo.Movement,
  patch: Partial<MovementRepo.Movement> = {}
): MovementRepo.Movement => ({ ...movement, ...patch, updatedAt: R.plusMillis(movement.updatedAt, 1) })

/** What `recordSigned` stores for `movement` signed at `nonce`. */
const signedMovement = (movement: MovementRepo.Movement, nonce: number | null): MovementRepo.Movement =>
  MovementRepo.signedMovement(movedOn(movement, { status: "prepared" }), signedAt(movement, nonce), nonce)

/** `recordSigned` of `movement` as read, in `wallet`, signing with `signedAt`: the nonce written. */
const signMovement = (movement: MovementRepo.Movement, wallet: ChainGateway.NonceAccount | null) =>
  Effect.flatMap(MovementRepo.MovementRepo, (movements) =>
    movements.recordSigned(movedOn(movement, { status: "prepared" }), movement, wallet, (nonce) =>
      Effect.succeed(signedAt(movement, nonce))
    )
  ).pipe(Effect.map((written) => Option.getOrThrow(written).nonce))

const storedMovementOf = (movement: MovementRepo.Movement) =>
  Effect.flatMap(MovementRepo.MovementRepo, (movements) => movements.findById(movement.id)).pipe(
    Effect.map((found) => R.plain(Option.getOrNull(found)))
  )

const movementTests = (it: It) =>
  describe("MovementRepo", () => {
    it.effect("insert, findById, findByKey and update keep every field; a second movement of a key is refused", () =>
      Effect.gen(function* () {
        const movements = yield* MovementRepo.MovementRepo
        const c = yield* seedContract(yield* newScope(), {}, { fundingIndex: 41 })
        const refund = R.movement(c, {
          amount: R.dec("0.000001"),
          destination: null,
          waiting: "no_refund_address",
          requestedBy: "operator:ana"
        })
        const sweep = R.sweep(c, {
          purpose: "treasury",
          fundingIndex: 2_147_483_647,
          destination: "0x00000000000000000000000000000000000000cc",
          createdAt: R.plusMillis(c.updatedAt, 1)
        })
        yield* movements.insert(refund)
        yield* movements.insert(sweep)
        for (const m of [refund, sweep]) {
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* movements.findById(m.id))), R.plain(m))
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* movements.findByKey(m.key))), R.plain(m))
        }
        assert.isTrue(Option.isNone(yield* movements.findById(R.uuid())))
        assert.isTrue(Option.isNone(yield* movements.findById("not-a-uuid")))
        assert.isTrue(Option.isNone(yield* movements.findByKey(`deposit:${R.uuid()}`)))

        const prepared = movedOn(refund, {
          status: "prepared",
          destination: "0x00000000000000000000000000000000000000dd",
          prepared: "AQIDBAUGBwg=",
          transactionHash: `0x${"ab".repeat(32)}`,
          nonce: 9_007_199_254_740_991,
          waiting: "behind_nonce",
          replacements: 2,
          blockNumber: 19_000_001,
          attempts: 2,
          lastError: "rpc_unavailable: timeout",
          nextAttemptAt: R.at("2024-05-02T00:05:00.321Z")
        })
        assert.isTrue(yield* movements.update(prepared, refund))
        assert.deepStrictEqual(yield* storedMovementOf(refund), R.plain(prepared))
        // compare-and-set: an update over a row that moved on is refused and writes nothing
        assert.isFalse(yield* movements.update(movedOn(refund, { status: "failed" }), refund))
        assert.deepStrictEqual(yield* storedMovementOf(refund), R.plain(prepared))

        // a second movement of the key: refused, the first stands
        const again = R.movement(c, { amount: R.dec("1.000000") })
        assert.strictEqual((yield* Effect.flip(movements.insert(again)))._tag, "MovementExists")
        assert.strictEqual(Option.getOrThrow(yield* movements.findByKey(refund.key)).id, refund.id)
        assert.isTrue(Option.isNone(yield* movements.findById(again.id)))
      })
    )

    it.effect("one sweep in flight per funding address: refused while one is pending or prepared, not after", () =>
      Effect.gen(function* () {
        const movements = yield* MovementRepo.MovementRepo
        const scope = yield* newScope()
        const c = yield* seedContract(scope)
        const first = R.sweep(c)
        yield* movements.insert(first)
        const second = R.sweep(c, { amount: R.dec("1.000000") })
        assert.strictEqual((yield* Effect.flip(movements.insert(second)))._tag, "MovementExists")
        const prepared = movedOn(first, { status: "prepared", prepared: "AQID", transactionHash: "0x01" })
        assert.isTrue(yield* movements.update(prepared, first))
        assert.strictEqual((yield* Effect.flip(movements.insert(second)))._tag, "MovementExists")
        assert.isTrue(Option.isNone(yield* movements.findById(second.id)))
        // another address, or a refund of the same contract, is not held back
        yield* movements.insert(R.sweep(yield* seedContract(scope)))
        yield* movements.insert(R.movement(c))
        // the sweep confirmed, the address is swept again; that one failed, again
        assert.isTrue(
          yield* movements.confirm(movedOn(prepared, { status: "confirmed", blockNumber: 7 }), prepared, [])
        )
        yield* movements.insert(second)
        assert.isTrue(yield* movements.update(movedOn(second, { status: "failed" }), second))
        yield* movements.insert(R.sweep(c))
      })
    )

    it.effect(
      "claimDue: 8 concurrent claimers take each due movement once; oldest first, leased, released by update",
      () =>
        Effect.gen(function* () {
          const movements = yield* MovementRepo.MovementRepo
          const scope = yield* newScope()
          const t = R.workerEpoch()
          const now = R.plus(t, Duration.hours(1))
          const due: Array<MovementRepo.Movement> = []
          for (let i = 0; i < 20; i++) {
            const m = yield* storedMovement(scope, { createdAt: R.plusMillis(t, i), nextAttemptAt: R.plusMillis(t, i) })
            // a third of them are signed, waiting for the chain
            const signed = movedOn(m, { status: "prepared", prepared: "AQID", transactionHash: `0x${i}` })
            due.push(i % 3 === 0 && (yield* movements.update(signed, m)) ? signed : m)
          }
          const notDue: Array<string> = []
          for (const outcome of [
            { nextAttemptAt: R.plus(now, Duration.days(1)) },
            { status: "confirmed", blockNumber: 7 },
            { status: "failed", attempts: 6 }
          ] as const) {
            const m = yield* storedMovement(scope, { createdAt: t, nextAttemptAt: t })
            assert.isTrue(yield* movements.update(movedOn(m, outcome), m))
            notDue.push(m.id)
          }
          const claimed = yield* claimConcurrently(movements.claimDue, now)
          assertEachOnce(claimed, idsOf(due))
          for (const id of notDue) assert.notInclude(claimed, id)

          // the oldest first, each claimed once until its lease ends, free again once written
          const later = R.plus(now, Duration.minutes(5))
          assert.deepStrictEqual(idsOf(yield* movements.claimDue(claimAt(later, "a", 2))), idsOf(due.slice(0, 2)))
          const oldest = due[0]!
          yield* assertLeaseRules(movements.claimDue, due[2]!.id, later)
          assert.notInclude(idsOf(yield* movements.claimDue(claimAt(later, "b"))), oldest.id)
          assert.isTrue(yield* movements.update(movedOn(oldest, { attempts: 1, nextAttemptAt: later }), oldest))
          assert.include(idsOf(yield* movements.claimDue(claimAt(later, "c"))), oldest.id)
        })
    )

    it.effect(
      "list: newest first by (createdAt, id), by kinds, statuses, environment and creation time, at most limit",
      () =>
        Effect.gen(function* () {
          const movements = yield* MovementRepo.MovementRepo
          const sandbox = yield* newScope()
          const production = yield* newScope("production")
          // the newest movements in the store: every other test writes before 2090
          const t = R.at("2090-01-01T00:00:00.000Z")
          const stored = (
            scope: Partner.PartnerScope,
            at: DateTime.Utc,
            make: typeof R.movement,
            status: MovementRepo.MovementStatus = "pending"
          ) =>
            Effect.gen(function* () {
              const m = yield* storedMovement(scope, { createdAt: at, updatedAt: at, nextAttemptAt: at }, make)
              if (status === "pending") return m
              const moved = movedOn(m, { status })
              assert.isTrue(yield* movements.update(moved, m))
              return moved
            })
          const refundA = yield* stored(sandbox, t, R.movement)
          const refundB = yield* stored(sandbox, t, R.movement, "failed")
          const sweep = yield* stored(sandbox, R.plusMillis(t, 1), R.sweep, "prepared")
          const confirmed = yield* stored(production, R.plusMillis(t, 2), R.movement, "confirmed")
          const productionSweep = yield* stored(production, R.plusMillis(t, 3), R.sweep)
          const all = [refundA, refundB, sweep, confirmed, productionSweep].sort(R.byNewest)
          const since = { since: t }

          assert.deepStrictEqual(R.plain(yield* movements.list({ ...since, limit: 10 })), R.plain(all))
          assert.deepStrictEqual(idsOf(yield* movements.list({ limit: 2 })), idsOf(all.slice(0, 2)))
          const listed = (query: Partial<Parameters<MovementRepo.MovementRepoShape["list"]>[0]>) =>
            Effect.map(movements.list({ ...since, limit: 10, ...query }), idsOf)
          assert.deepStrictEqual(yield* listed({ kinds: ["sweep"] }), idsOf([productionSweep, sweep]))
          assert.deepStrictEqual(
            yield* listed({ kinds: ["refund"], statuses: ["pending", "failed"] }),
            idsOf([refundA, refundB].sort(R.byNewest))
          )
          assert.deepStrictEqual(yield* listed({ environment: "production" }), idsOf([productionSweep, confirmed]))
          assert.deepStrictEqual(yield* listed({ since: R.plusMillis(t, 2) }), idsOf([productionSweep, confirmed]))
          assert.deepStrictEqual(yield* listed({ statuses: [] }), [])
          assert.deepStrictEqual(yield* listed({ limit: 0 }), [])
        })
    )
  })

const movementSigningTests = (it: It) =>
  describe("MovementRepo.recordSigned", () => {
    it.effect(
      "draws on the hot wallet's nonces with the payouts: never one nonce twice; a nonce freed is handed out again",
      () =>
        Effect.gen(function* () {
          const movements = yield* MovementRepo.MovementRepo
          const scope = yield* newScope()
          const wallet = walletAt(freshSigner(), 5)
          assert.strictEqual(yield* signIn(yield* storedPayout(scope), wallet), 5)
          const refund = yield* storedMovement(scope)
          assert.strictEqual(yield* signMovement(refund, wallet), 6)
          assert.deepStrictEqual(yield* storedMovementOf(refund), R.plain(signedMovement(refund, 6)))
          assert.strictEqual(yield* signIn(yield* storedPayout(scope), wallet), 7)

          // started again without a nonce: the nonce it held is free, and a payout takes it
          const signed = signedMovement(refund, 6)
          const restarted = movedOn(signed, { status: "pending", prepared: null, transactionHash: null, nonce: null })
          assert.isTrue(yield* movements.update(restarted, signed))
          assert.strictEqual(yield* signIn(yield* storedPayout(scope), wallet), 6)
          assert.strictEqual(yield* signMovement(restarted, wallet), 8)

          // over a row that moved on, or a signing that fails: nothing written, no nonce kept
          const other = yield* storedMovement(scope)
          const stale = { ...other, updatedAt: R.plusMillis(other.updatedAt, -1) }
          const sign = (nonce: number | null) => Effect.succeed(signedAt(other, nonce))
          assert.isTrue(Option.isNone(yield* movements.recordSigned(movedOn(other), stale, wallet, sign)))
          const refused = yield* Effect.flip(
            movements.recordSigned(movedOn(other), other, wallet, () => Effect.fail(new SigningRefused()))
          )
          assert.strictEqual(refused._tag, "SigningRefused")
          assert.deepStrictEqual(yield* storedMovementOf(other), R.plain(other))
          assert.strictEqual(yield* signIn(yield* storedPayout(scope), wallet), 9)

          // without a nonce account (Solana): signed at null, no nonce moves
          assert.isNull(yield* signMovement(other, null))
          assert.deepStrictEqual(yield* storedMovementOf(other), R.plain(signedMovement(other, null)))
          assert.strictEqual(yield* signMovement(yield* storedMovement(scope), wallet), 10)
        })
    )

    it.effect("4 payouts and 4 movements of one wallet signed at once get 8 distinct nonces", () =>
      Effect.gen(function* () {
        const scope = yield* newScope()
        const wallet = walletAt(freshSigner(), 0)
        const payouts = yield* Effect.forEach(Array.from({ length: 4 }), () => storedPayout(scope))
        const refunds = yield* Effect.forEach(Array.from({ length: 4 }), () => storedMovement(scope))
        const nonces = yield* Effect.all(
          [...payouts.map((p) => signIn(p, wallet)), ...refunds.map((m) => signMovement(m, wallet))],
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          nonces.map((n) => n!).sort((a, b) => a - b),
          [0, 1, 2, 3, 4, 5, 6, 7]
        )
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// The treasury ledger: confirmations, bookings, and the balances by the books
// ---------------------------------------------------------------------------------------------

/** The booking of `source` for contract `c`'s rail at `at`. */
const booking = (
  c: Pick<Contract.ContractRecord, "id" | "partnerId" | "environment" | "chain">,
  source: string,
  kind: TreasuryLedger.TreasuryEntryKind,
  at: DateTime.Utc = R.base
): TreasuryLedger.Booking => ({
  source,
  kind,
  environment: c.environment,
  chain: c.chain,
  contractId: c.id,
  partnerId: c.partnerId,
  at
})

/** `amount` of `currency` moved between two accounts (each at its address, or none), under a new source. */
const treasuryTransfer = (
  c: Contract.ContractRecord,
  from: TreasuryLedger.TreasuryAccount | readonly [TreasuryLedger.TreasuryAccount, string],
  to: TreasuryLedger.TreasuryAccount | readonly [TreasuryLedger.TreasuryAccount, string],
  amount: string,
  options: {
    readonly currency?: TreasuryLedger.TreasuryCurrency
    readonly kind?: TreasuryLedger.TreasuryEntryKind
    readonly at?: DateTime.Utc
    readonly source?: string
  } = {}
): ReadonlyArray<TreasuryLedger.TreasuryEntry> => {
  const side = (account: typeof from) =>
    typeof account === "string" ? { account, address: null } : { account: account[0], address: account[1] }
  const kind = options.kind ?? "inflow_recorded"
  return TreasuryLedger.entries(
    booking(c, options.source ?? `${kind}:${R.uuid()}`, kind, options.at),
    TreasuryLedger.transfer(side(from), side(to), options.currency ?? c.settlementCurrency, R.dec(amount))
  )
}

/** What a confirmed sweep of `sweep` books: the tokens into the hot wallet, and the gas it took on Polygon. */
const sweepEntries = (c: Contract.ContractRecord, sweep: MovementRepo.Movement) => {
  const at = R.plusMillis(sweep.updatedAt, 1)
  const source = `sweep:${sweep.id}`
  return [
    ...treasuryTransfer(c, ["funding_wallet", sweep.source!], "payout_wallet", Money.format(sweep.amount), {
      kind: "sweep",
      source,
      at
    }),
    ...TreasuryLedger.entries(
      booking(c, source, "sweep", at),
      TreasuryLedger.nativeLines(c.chain, sweep.source, {
        hotWallet: R.dec("-0.000210000000000001"),
        fundingAddress: R.dec("0.000010000000000000"),
        fees: R.dec("0.000200000000000001"),
        rent: Money.zero
      })
    )
  ]
}

const sourceOf = (entries: ReadonlyArray<TreasuryLedger.TreasuryEntry>) => entries[0]!.source

const treasuryTests = (it: It) =>
  describe("MovementRepo: the treasury ledger", () => {
    it.effect(
      "confirm marks the movement confirmed and books its entries in one write; a moved row books nothing",
      () =>
        Effect.gen(function* () {
          const movements = yield* MovementRepo.MovementRepo
          const c = yield* seedContract(yield* newScope())
          const sweep = R.sweep(c)
          yield* movements.insert(sweep)
          const prepared = movedOn(sweep, { status: "prepared", prepared: "AQID", transactionHash: "0x02" })
          assert.isTrue(yield* movements.update(prepared, sweep))
          const confirmed = movedOn(prepared, { status: "confirmed", blockNumber: 42 })
          const entries = sweepEntries(c, confirmed)
          const source = sourceOf(entries)

          // over the row as it was before it was signed: refused, nothing booked
          assert.isFalse(yield* movements.confirm(confirmed, sweep, entries))
          assert.deepStrictEqual(yield* movements.entriesOf(source), [])
          // entries that do not balance: a defect, nothing written
          assert.isTrue(Exit.hasDies(yield* Effect.exit(movements.confirm(confirmed, prepared, entries.slice(1)))))
          assert.deepStrictEqual(yield* storedMovementOf(sweep), R.plain(prepared))
          assert.deepStrictEqual(yield* movements.entriesOf(source), [])

          assert.isTrue(yield* movements.confirm(confirmed, prepared, entries))
          assert.deepStrictEqual(yield* storedMovementOf(sweep), R.plain(confirmed))
          assert.deepStrictEqual(R.plain(yield* movements.entriesOf(source)), R.plain(entries))
          // confirmed again over the same row: it moved, nothing is booked twice
          assert.isFalse(yield* movements.confirm(movedOn(confirmed), prepared, entries))
          assert.strictEqual((yield* movements.entriesOf(source)).length, entries.length)
        })
    )

    it.effect("book: each source once whoever books it again, 8 at once too; how many sources it booked", () =>
      Effect.gen(function* () {
        const movements = yield* MovementRepo.MovementRepo
        const c = yield* seedContract(yield* newScope())
        const inflow = treasuryTransfer(c, "owner_funding", "payout_wallet", "500.000000")
        const fee = treasuryTransfer(c, "payout_wallet", "network_fees", "0.001234567890123456", {
          currency: "POL",
          kind: "network_fee"
        })
        const treasury = treasuryTransfer(c, "payout_wallet", ["treasury", freshSigner()], "20.00", { kind: "sweep" })
        assert.strictEqual(yield* movements.book([...inflow, ...fee]), 2)
        assert.strictEqual(yield* movements.book(fee), 0)
        assert.strictEqual(yield* movements.book([...inflow, ...treasury]), 1)
        assert.strictEqual(yield* movements.book([]), 0)
        for (const entries of [inflow, fee, treasury]) {
          assert.deepStrictEqual(R.plain(yield* movements.entriesOf(sourceOf(entries))), R.plain(entries))
        }
        assert.deepStrictEqual(yield* movements.entriesOf(`inflow:${R.uuid()}`), [])

        // each source balances on its own: two that balance only together are a defect, and nothing is booked
        const half = (amount: string) =>
          TreasuryLedger.entries(booking(c, `inflow:${R.uuid()}`, "inflow_recorded"), [
            { account: "payout_wallet", address: null, currency: "USDC", amount: R.dec(amount) }
          ])
        const [plus, minus] = [half("1.000000"), half("-1.000000")]
        const lone = treasuryTransfer(c, "owner_funding", "payout_wallet", "3.000000")
        assert.isTrue(Exit.hasDies(yield* Effect.exit(movements.book([...lone, ...plus, ...minus]))))
        for (const entries of [lone, plus, minus])
          assert.deepStrictEqual(yield* movements.entriesOf(sourceOf(entries)), [])

        // 8 callers booking one source at once: one of them books it
        const once = treasuryTransfer(c, "owner_funding", "payout_wallet", "7.000000")
        const answers = yield* Effect.forEach(Array.from({ length: 8 }), () => movements.book(once), {
          concurrency: "unbounded"
        })
        assert.strictEqual(
          answers.reduce((a, b) => a + b, 0),
          1
        )
        assert.deepStrictEqual(R.plain(yield* movements.entriesOf(sourceOf(once))), R.plain(once))

        // a confirmation whose source is booked already marks the movement and books nothing more
        const refund = yield* storedMovement(yield* newScope())
        const settled = treasuryTransfer(c, "payout_wallet", "refunds_payable", "100.000000", {
          kind: "refund",
          source: `refund:${refund.id}`
        })
        assert.strictEqual(yield* movements.book(settled), 1)
        assert.isTrue(yield* movements.confirm(movedOn(refund, { status: "confirmed" }), refund, settled))
        assert.deepStrictEqual(R.plain(yield* movements.entriesOf(sourceOf(settled))), R.plain(settled))
      })
    )

    it.effect("entriesSince: the entries at or after an instant, one environment if asked, in booking order", () =>
      Effect.gen(function* () {
        const movements = yield* MovementRepo.MovementRepo
        // after every other test's entries: they are booked before 2090
        const t = R.at("2091-01-01T00:00:00.000Z")
        const sandbox = yield* seedContract(yield* newScope())
        const production = yield* seedContract(yield* newScope("production"))
        const early = treasuryTransfer(sandbox, "owner_funding", "payout_wallet", "1.000000", {
          at: R.plusMillis(t, -1)
        })
        const late = treasuryTransfer(production, "owner_funding", "payout_wallet", "2.000000", {
          at: R.plusMillis(t, 5)
        })
        const exact = treasuryTransfer(sandbox, "owner_funding", "payout_wallet", "3.000000", { at: t })
        yield* movements.book(early)
        yield* movements.book(late)
        yield* movements.book(exact)
        assert.deepStrictEqual(R.plain(yield* movements.entriesSince({ since: t })), R.plain([...late, ...exact]))
        assert.deepStrictEqual(
          R.plain(yield* movements.entriesSince({ since: t, environment: "sandbox" })),
          R.plain(exact)
        )
        assert.deepStrictEqual(yield* movements.entriesSince({ since: R.plusMillis(t, 6) }), [])
      })
    )
  })

/** The funding balances of `contracts` on their rail (sandbox, Polygon), by contract id. */
const fundingBalancesOf = (contracts: ReadonlyArray<Contract.ContractRecord>) =>
  Effect.gen(function* () {
    const ids = new Set(idsOf(contracts))
    const all = yield* (yield* MovementRepo.MovementRepo).fundingBalances({ environment: "sandbox", chain: "polygon" })
    return R.plain(all.filter((b) => ids.has(b.contractId)).sort((a, b) => a.contractId.localeCompare(b.contractId)))
  })

const fundingBalance = (
  c: Contract.ContractRecord,
  balance: string,
  status: Contract.ContractStatus,
  sweeping = false
): MovementRepo.FundingBalance => ({
  contractId: c.id,
  partnerId: c.partnerId,
  address: c.fundingWalletAddress,
  fundingIndex: c.fundingIndex,
  currency: c.settlementCurrency,
  status,
  balance: R.dec(balance),
  sweeping
})

/** Funds `c` with `amount` (its whole total) at `at`: active, the entries of a funding commit. */
const fund = (c: Contract.ContractRecord, amount: string, at: DateTime.Utc) =>
  Effect.gen(function* () {
    const active = R.moved(c, "active", at, { fundedAmount: R.dec(amount) })
    const deposit = c.depositAmount === null ? [] : [Money.format(c.depositAmount)]
    const ledger = [
      ...R.ledgerPair(active, "funds_received", "funding_wallet", "partner_prepayment", amount, at),
      ...R.ledgerPair(active, "premium_received", "partner_prepayment", "premium_income", "12.345678", at),
      ...deposit.flatMap((d) => R.ledgerPair(active, "deposit_held", "partner_prepayment", "deposits_held", d, at))
    ]
    yield* (yield* ContractRepo.ContractRepo).commit(R.change(c, active, { ledger, transfer: R.transfer(c.chain) }))
    return active
  })

const balanceTests = (it: It) =>
  describe("MovementRepo: balances by the books", () => {
    it.effect(
      "fundingBalances: funds received, unmatched funds booked, a released deposit kept; a booked sweep empties the address",
      () =>
        Effect.gen(function* () {
          const movements = yield* MovementRepo.MovementRepo
          const contracts = yield* ContractRepo.ContractRepo
          const scope = yield* newScope()
          const t1 = R.plus(R.base, Duration.minutes(1))
          const funded = yield* fund(yield* seedContract(scope, {}, { fundingIndex: 12 }), "112.345678", t1)
          const unfunded = yield* seedContract(scope)
          const forward = yield* fund(
            yield* seedContract(scope, { contractType: "forward", depositAmount: R.dec("100.000000") }),
            "112.345678",
            t1
          )
          const late = yield* fund(yield* seedContract(scope), "12.345678", t1)
          const elsewhere = yield* fund(yield* seedContract(yield* newScope("production")), "5.000000", t1)
          // the forward settled: its deposit is owed back, and still on its funding address
          const t2 = R.plus(t1, Duration.days(2))
          const settled = R.moved(forward, "settled", t2)
          yield* contracts.commit(
            R.change(forward, settled, {
              ledger: [
                ...R.ledgerPair(settled, "payout_paid", "payout_expense", "payout_wallet", "29.600000", t2, "BRLA"),
                ...R.ledgerPair(settled, "deposit_released", "deposits_held", "refunds_payable", "100.000000", t2)
              ]
            })
          )
          // funds after it was active, and another token's (which books nothing)
          yield* contracts.recordUnmatchedTransfer(unmatched(late, { amount: "1.500000" }))
          yield* contracts.recordUnmatchedTransfer(
            unmatched(unfunded, {
              token: "0x7ceb23fd6bc0add59e62ac25578270cff1b9f619",
              amount: "1",
              unit: "base_units"
            })
          )
          const mine = [funded, unfunded, forward, late, elsewhere]
          const expected = [
            fundingBalance(funded, "112.345678", "active"),
            fundingBalance(forward, "112.345678", "settled"),
            fundingBalance(late, "13.845678", "active")
          ].sort((a, b) => a.contractId.localeCompare(b.contractId))
          assert.deepStrictEqual(yield* fundingBalancesOf(mine), R.plain(expected))

          // a sweep of the funded address in flight, then booked: the address is empty by the books
          const sweep = R.sweep(funded, { amount: R.dec("112.345678") })
          yield* movements.insert(sweep)
          const sweeping = expected.map((b) => (b.contractId === funded.id ? { ...b, sweeping: true } : b))
          assert.deepStrictEqual(yield* fundingBalancesOf(mine), R.plain(sweeping))
          const confirmed = movedOn(sweep, { status: "confirmed", blockNumber: 9 })
          assert.isTrue(yield* movements.confirm(confirmed, sweep, sweepEntries(funded, confirmed)))
          assert.deepStrictEqual(
            yield* fundingBalancesOf(mine),
            R.plain(expected.filter((b) => b.contractId !== funded.id))
          )
          const all = yield* movements.fundingBalances({ environment: "production", chain: "polygon" })
          assert.deepStrictEqual(
            R.plain(all.filter((b) => b.contractId === elsewhere.id)),
            R.plain([fundingBalance(elsewhere, "5.000000", "active")])
          )
        })
    )

    it.effect(
      "walletBalances: the hot wallet's by the payouts and the treasury ledger, the treasury's per address; zeros left out",
      () =>
        Effect.gen(function* () {
          const movements = yield* MovementRepo.MovementRepo
          const contracts = yield* ContractRepo.ContractRepo
          const rail = { environment: "sandbox", chain: "polygon" } as const
          const hotWallet = Effect.map(movements.walletBalances(rail), (balances) =>
            balances.filter((b) => b.account === "payout_wallet")
          )
          const before = yield* hotWallet
          const c = yield* fund(yield* seedContract(yield* newScope()), "112.345678", R.base)
          // a payout of the contract, in BRLA
          const t = R.plus(R.base, Duration.days(1))
          const settled = R.moved(c, "settled", t)
          yield* contracts.commit(
            R.change(c, settled, {
              ledger: R.ledgerPair(settled, "payout_paid", "payout_expense", "payout_wallet", "29.600000", t, "BRLA")
            })
          )
          const [vault, other] = [freshSigner(), freshSigner()]
          yield* movements.book(
            treasuryTransfer(c, ["funding_wallet", c.fundingWalletAddress], "payout_wallet", "112.345678")
          )
          yield* movements.book(treasuryTransfer(c, "payout_wallet", ["treasury", vault], "50.000000"))
          yield* movements.book(treasuryTransfer(c, "owner_funding", ["treasury", vault], "0.5", { currency: "POL" }))
          // in and out again: zero, not listed
          yield* movements.book(
            treasuryTransfer(c, "owner_funding", ["treasury", other], "1.000000", { currency: "EURC" })
          )
          yield* movements.book(
            treasuryTransfer(c, ["treasury", other], "owner_funding", "1.000000", { currency: "EURC" })
          )
          // another rail's hot wallet
          const production = yield* seedContract(yield* newScope("production"))
          yield* movements.book(treasuryTransfer(production, "owner_funding", "payout_wallet", "1000.000000"))

          const after = yield* movements.walletBalances(rail)
          const change = (currency: string) => {
            const of = (balances: ReadonlyArray<MovementRepo.WalletBalance>) =>
              balances.find((b) => b.account === "payout_wallet" && b.currency === currency)?.balance ?? Money.zero
            return Money.format(BigDecimal.normalize(Money.subtract(of(after), of(before))))
          }
          assert.deepStrictEqual([change("USDC"), change("BRLA")], ["62.345678", "-29.6"])
          assert.isTrue(after.every((b) => !Money.isZero(b.balance)))
          assert.isTrue(after.filter((b) => b.account === "payout_wallet").every((b) => b.address === null))
          assert.deepStrictEqual(
            R.plain(after.filter((b) => b.address === vault || b.address === other)),
            R.plain([
              { account: "treasury", address: vault, currency: "POL", balance: R.dec("0.5") },
              { account: "treasury", address: vault, currency: "USDC", balance: R.dec("50.000000") }
            ])
          )
          // listed by account, then address, then currency
          const keys = after.map((b) => `${b.account}|${b.address ?? ""}|${b.currency}`)
          assert.deepStrictEqual(keys, [...keys].sort())
        })
    )

    it.effect("committed: the exact sum of a rail's refunds signed and not yet confirmed, no other", () =>
      Effect.gen(function* () {
        const movements = yield* MovementRepo.MovementRepo
        // a rail no other test moves funds on
        const rail = { environment: "production", chain: "ethereum", currency: "USDT" } as const
        const scopes = { production: yield* newScope("production"), sandbox: yield* newScope("sandbox") }
        const signed = (amount: string, status: MovementRepo.MovementStatus, elsewhere = {}, make = R.movement) =>
          Effect.gen(function* () {
            const on = { ...rail, ...elsewhere }
            const c = yield* seedContract(scopes[on.environment], { chain: on.chain, settlementCurrency: on.currency })
            const m = make(c, { amount: R.dec(amount), ...signedAs(status, c.id) })
            yield* movements.insert(m)
            return m
          })
        // a sweep draws on no wallet
        yield* signed("4000", "prepared", {}, R.sweep)
        yield* assertCommitted({
          committed: movements.committed(rail),
          signed,
          confirm: (m) => movements.confirm(movedOn(m, { status: "confirmed" }), m, [])
        })
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Reconciliation runs
// ---------------------------------------------------------------------------------------------

const run = (
  environment: Partner.Environment,
  chain: Rail.Chain,
  at: DateTime.Utc,
  overrides: Partial<ReconciliationRepo.ReconciliationRun> = {}
): ReconciliationRepo.ReconciliationRun => ({
  id: R.uuid(),
  environment,
  chain,
  at,
  checked: 3,
  chainCalls: 1,
  error: null,
  differences: [],
  ...overrides
})

const reconciliationTests = (it: It) =>
  describe("ReconciliationRepo", () => {
    it.effect("runs keep every field; latest is each environment and chain's newest, by environment then chain", () =>
      Effect.gen(function* () {
        const runs = yield* ReconciliationRepo.ReconciliationRepo
        const t = R.at("2024-05-01T12:00:00.000Z")
        const newest = run("sandbox", "polygon", R.plusMillis(t, 2), {
          checked: 2_000,
          chainCalls: 4,
          differences: [
            {
              wallet: "funding_address",
              address: "0x00000000000000000000000000000000000000ee",
              contractId: R.uuid(),
              currency: "USDC",
              ledger: R.dec("112.345678"),
              onChain: R.dec("113.845678"),
              difference: R.dec("1.500000"),
              since: R.at("2024-04-30T23:59:59.999Z")
            },
            {
              wallet: "hot_wallet",
              address: "0x00000000000000000000000000000000000000ff",
              contractId: null,
              currency: "POL",
              ledger: R.dec("0.100000000000000000"),
              onChain: R.dec("0.099999999999999999"),
              difference: R.dec("-0.000000000000000001"),
              since: R.plusMillis(t, 1)
            }
          ]
        })
        const older = run("sandbox", "polygon", R.plusMillis(t, 1))
        const failed = run("production", "solana", t, { error: "rpc_unavailable: timeout", checked: 0, chainCalls: 2 })
        const ethereum = run("sandbox", "ethereum", t)
        for (const r of [older, newest, failed, ethereum]) yield* runs.save(r)
        // saved after the newest, an older run does not take its place
        yield* runs.save(run("sandbox", "polygon", t))
        assert.deepStrictEqual(R.plain(yield* runs.latest()), R.plain([failed, ethereum, newest]))
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Partners
// ---------------------------------------------------------------------------------------------

/** A partner with a key per environment and a sandbox webhook endpoint, not yet stored. */
const partnerWithCredentials = (name: string) => {
  const partner: PartnerRepo.PartnerRecord = { id: R.uuid(), name, createdAt: R.base }
  const key = (environment: Partner.Environment, createdAt: DateTime.Utc): PartnerRepo.ApiKeyRecord => ({
    id: R.uuid(),
    partnerId: partner.id,
    environment,
    secretHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    createdAt,
    revokedAt: null
  })
  const credentials: PartnerRepo.PartnerCredentials = {
    // oldest first, as `listApiKeys` lists them
    apiKeys: [key("sandbox", R.base), key("production", R.plusMillis(R.base, 1))],
    webhookEndpoints: [
      {
        partnerId: partner.id,
        environment: "sandbox",
        url: "http://localhost:9000/hooks",
        secrets: [{ secret: "whsec_bmV3", validUntil: null }]
      }
    ]
  }
  return { partner, credentials }
}

/** What the store holds of a partner: the partner, its keys and its sandbox endpoint. */
const storedPartner = (partnerId: string) =>
  Effect.gen(function* () {
    const partners = yield* PartnerRepo.PartnerRepo
    return R.plain({
      partner: Option.getOrNull(yield* partners.findPartner(partnerId)),
      keys: yield* partners.listApiKeys(partnerId),
      endpoint: Option.getOrNull(yield* partners.findWebhookEndpoint({ partnerId, environment: "sandbox" }))
    })
  })

const partnerTests = (it: It, store: Layer.Layer<Repos, unknown>) =>
  describe("PartnerRepo", () => {
    it.effect("a partner with its keys and webhook endpoints is written all or nothing", () =>
      Effect.gen(function* () {
        const partners = yield* PartnerRepo.PartnerRepo
        const first = partnerWithCredentials("Whole Pay")
        yield* partners.insertPartner(first.partner, first.credentials)
        assert.deepStrictEqual(
          yield* storedPartner(first.partner.id),
          R.plain({
            partner: first.partner,
            keys: first.credentials.apiKeys,
            endpoint: first.credentials.webhookEndpoints[0]
          })
        )

        // the second key's id is taken: the insert fails after the partner and its first key
        const broken = partnerWithCredentials("Half Pay")
        const [sandboxKey] = broken.credentials.apiKeys
        const failed = yield* Effect.exit(
          partners.insertPartner(broken.partner, {
            ...broken.credentials,
            apiKeys: [sandboxKey!, { ...first.credentials.apiKeys[1]!, partnerId: broken.partner.id }]
          })
        )
        assert.isTrue(Exit.isFailure(failed))
        assert.deepStrictEqual(yield* storedPartner(broken.partner.id), { partner: null, keys: [], endpoint: null })
        assert.isTrue(Option.isNone(yield* partners.findApiKey(sandboxKey!.id)))
        assert.strictEqual(
          Option.getOrThrow(yield* partners.findApiKey(first.credentials.apiKeys[1]!.id)).partnerId,
          first.partner.id
        )
      })
    )

    it.effect("the first partner: written only while the store has none, by exactly one of racing callers", () =>
      Effect.gen(function* () {
        const partners = yield* PartnerRepo.PartnerRepo
        // this store has partners: nothing is written
        yield* newScope()
        const late = partnerWithCredentials("Late Pay")
        assert.isFalse(yield* partners.insertFirstPartner(late.partner, late.credentials))
        assert.deepStrictEqual(yield* storedPartner(late.partner.id), { partner: null, keys: [], endpoint: null })

        // on an empty store of the same kind, eight callers at once: one writes, whole
        const racers = Array.from({ length: 8 }, (_, i) => partnerWithCredentials(`Racer ${i}`))
        const outcome = yield* Effect.gen(function* () {
          const empty = yield* PartnerRepo.PartnerRepo
          const wrote = yield* Effect.forEach(racers, (r) => empty.insertFirstPartner(r.partner, r.credentials), {
            concurrency: "unbounded"
          })
          const listed = yield* empty.listPartners()
          const winner = racers[wrote.indexOf(true)]
          return {
            writers: wrote.filter(Boolean).length,
            listed: listed.map((p) => p.id),
            winner: winner?.partner.id,
            stored: winner === undefined ? null : yield* storedPartner(winner.partner.id),
            expected:
              winner === undefined
                ? null
                : R.plain({
                    partner: winner.partner,
                    keys: winner.credentials.apiKeys,
                    endpoint: winner.credentials.webhookEndpoints[0]
                  })
          }
        }).pipe(Effect.provide(Layer.fresh(store)))
        assert.strictEqual(outcome.writers, 1)
        assert.deepStrictEqual(outcome.listed, [outcome.winner])
        assert.deepStrictEqual(outcome.stored, outcome.expected)
      })
    )

    it.effect("partners and API keys: insert, find, revoke", () =>
      Effect.gen(function* () {
        const partners = yield* PartnerRepo.PartnerRepo
        const partner = { id: R.uuid(), name: "Banco Exemplo", createdAt: R.at("2024-04-30T08:00:00.042Z") }
        yield* partners.insertPartner(partner)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* partners.findPartner(partner.id))), R.plain(partner))
        assert.isTrue(Option.isNone(yield* partners.findPartner(R.uuid())))

        const key: PartnerRepo.ApiKeyRecord = {
          id: R.uuid(),
          partnerId: partner.id,
          environment: "production",
          secretHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
          createdAt: R.at("2024-04-30T08:00:01.001Z"),
          revokedAt: null
        }
        yield* partners.insertApiKey(key)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* partners.findApiKey(key.id))), R.plain(key))
        const revokedAt = R.at("2024-05-01T00:00:00.555Z")
        yield* partners.revokeApiKey(key.id, revokedAt)
        assert.deepStrictEqual(
          R.plain(Option.getOrNull(yield* partners.findApiKey(key.id))),
          R.plain({ ...key, revokedAt })
        )
        assert.isTrue(Option.isNone(yield* partners.findApiKey(R.uuid())))

        // listings for operators: keys of one partner (revoked too), partners oldest first
        const second: PartnerRepo.ApiKeyRecord = {
          ...key,
          id: R.uuid(),
          environment: "sandbox",
          createdAt: R.at("2024-04-30T08:00:02.002Z")
        }
        yield* partners.insertApiKey(second)
        const listed = (yield* partners.listApiKeys(partner.id)).map((k) => [k.id, k.revokedAt !== null])
        assert.deepStrictEqual(listed, [
          [key.id, true],
          [second.id, false]
        ])
        assert.deepStrictEqual(yield* partners.listApiKeys(R.uuid()), [])
        const later = { id: R.uuid(), name: "Later Bank", createdAt: R.at("2024-04-30T09:00:00.000Z") }
        yield* partners.insertPartner(later)
        const ids = (yield* partners.listPartners()).map((p) => p.id)
        assert.isTrue(ids.indexOf(partner.id) >= 0 && ids.indexOf(partner.id) < ids.indexOf(later.id))
      })
    )

    it.effect("webhook endpoints: saved and replaced per partner and environment", () =>
      Effect.gen(function* () {
        const partners = yield* PartnerRepo.PartnerRepo
        const scope = yield* newScope()
        assert.isTrue(Option.isNone(yield* partners.findWebhookEndpoint(scope)))
        const endpoint: PartnerRepo.WebhookEndpoint = {
          ...scope,
          url: "https://hooks.example.com/ratelock",
          secrets: [
            { secret: "whsec_bmV3", validUntil: null },
            { secret: "whsec_b2xk", validUntil: R.at("2024-05-02T12:00:00.250Z") }
          ]
        }
        yield* partners.saveWebhookEndpoint(endpoint)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* partners.findWebhookEndpoint(scope))), R.plain(endpoint))
        assert.isTrue(Option.isNone(yield* partners.findWebhookEndpoint(R.otherEnvironment(scope))))

        const replaced = { ...endpoint, url: "https://hooks.example.com/v2", secrets: [endpoint.secrets[0]!] }
        yield* partners.saveWebhookEndpoint(replaced)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* partners.findWebhookEndpoint(scope))), R.plain(replaced))

        const sandboxOnly = R.otherEnvironment(scope)
        yield* partners.saveWebhookEndpoint({ ...endpoint, ...sandboxOnly, url: "http://localhost:9000/hook" })
        assert.strictEqual(
          Option.getOrThrow(yield* partners.findWebhookEndpoint(sandboxOnly)).url,
          "http://localhost:9000/hook"
        )
        assert.strictEqual(Option.getOrThrow(yield* partners.findWebhookEndpoint(scope)).url, replaced.url)
      })
    )

    it.effect(
      "refund addresses: one per partner, environment and chain, replaced when set again; an unknown partner's is refused",
      () =>
        Effect.gen(function* () {
          const partners = yield* PartnerRepo.PartnerRepo
          const { partnerId } = yield* newScope()
          const other = yield* newScope()
          assert.deepStrictEqual(yield* partners.listRefundAddresses(partnerId), [])
          const refund = (
            environment: Partner.Environment,
            chain: Rail.Chain,
            address: string,
            updatedAt: DateTime.Utc
          ): PartnerRepo.RefundAddress => ({ partnerId, environment, chain, address, updatedAt })
          const polygon = refund("production", "polygon", "0x52908400098527886e0f7030069857d2e4169ee7", R.base)
          const solana = refund("sandbox", "solana", "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", R.base)
          const ethereum = refund("production", "ethereum", "0x8617e340b3d01fa5f11f306f4090fd50e238070d", R.base)
          for (const r of [solana, polygon, ethereum]) yield* partners.saveRefundAddress(r)
          // environment, then chain
          assert.deepStrictEqual(
            R.plain(yield* partners.listRefundAddresses(partnerId)),
            R.plain([ethereum, polygon, solana])
          )

          // set again: the one row replaced, millisecond precision kept
          const moved = {
            ...polygon,
            address: "0xde709f2102306220921060314715629080e2fb77",
            updatedAt: R.at("2024-05-01T10:00:00.123Z")
          }
          yield* partners.saveRefundAddress(moved)
          assert.deepStrictEqual(
            R.plain(yield* partners.listRefundAddresses(partnerId)),
            R.plain([ethereum, moved, solana])
          )

          // another partner's are its own; an unknown or malformed id has none
          assert.deepStrictEqual(yield* partners.listRefundAddresses(other.partnerId), [])
          assert.deepStrictEqual(yield* partners.listRefundAddresses(R.uuid()), [])
          assert.deepStrictEqual(yield* partners.listRefundAddresses("not-a-uuid"), [])

          // no partner, no address: nothing is written
          const stranger = R.uuid()
          const refused = yield* Effect.exit(partners.saveRefundAddress({ ...polygon, partnerId: stranger }))
          assert.isTrue(Exit.isFailure(refused))
          assert.deepStrictEqual(yield* partners.listRefundAddresses(stranger), [])
        })
    )
  })

// ---------------------------------------------------------------------------------------------
// The sandbox's webhook inbox
// ---------------------------------------------------------------------------------------------

const inboxTests = (it: It) =>
  describe("WebhookInboxRepo", () => {
    it.effect("keeps each partner's newest deliveries, newest first, as received", () =>
      Effect.gen(function* () {
        const inbox = yield* WebhookInboxRepo.WebhookInboxRepo
        const [a, b] = [yield* newScope(), yield* newScope()]
        const delivery = (partnerId: string, second: number): WebhookInboxRepo.InboxDelivery => ({
          id: R.uuid(),
          partnerId,
          receivedAt: R.plus(R.base, Duration.seconds(second)),
          headers: { "webhook-id": `evt_${second}`, "x-partner-signature": "ab12" },
          body: `{"event_type":"funds_received","n":${second}}`,
          signatureProblem: second % 2 === 0 ? null : "x-partner-signature does not match any secret"
        })
        const sent = [1, 2, 3, 4, 5].map((second) => delivery(a.partnerId, second))
        for (const d of sent) yield* inbox.record(d, 3)
        yield* inbox.record(delivery(b.partnerId, 9), 3)
        assert.deepStrictEqual(yield* inbox.list(a.partnerId, 10), [sent[4]!, sent[3]!, sent[2]!])
        assert.deepStrictEqual(yield* inbox.list(a.partnerId, 2), [sent[4]!, sent[3]!])
        assert.deepStrictEqual(
          (yield* inbox.list(b.partnerId, 10)).map((d) => d.body),
          ['{"event_type":"funds_received","n":9}']
        )
        assert.deepStrictEqual(yield* inbox.list(R.uuid(), 10), [])
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Market snapshots
// ---------------------------------------------------------------------------------------------

let nextAsOf = R.at("2090-01-01T00:00:00.000Z").epochMilliseconds

/**
 * An `as_of` after every one used before: the snapshots of the suite share one store, and a test
 * of `latest` must be newest. Each call moves a day on.
 */
const newestAsOf = (): DateTime.Utc => {
  nextAsOf += Duration.toMillis(Duration.days(1))
  return R.at(new Date(nextAsOf).toISOString())
}

const snapshotTests = (it: It) =>
  describe("MarketSnapshotRepo", () => {
    it.effect("insert, find and latest keep every field; the document decodes as it was, decimals exact", () =>
      Effect.gen(function* () {
        const snapshots = yield* MarketSnapshotRepo.MarketSnapshotRepo
        const record = yield* R.storedSnapshot(R.snapshotDocument(newestAsOf()), R.at("2024-05-01T12:00:00.999Z"))
        const inserted = yield* snapshots.insert(record)
        assert.isTrue(inserted.created)
        assert.deepStrictEqual(R.plain(inserted.snapshot), R.plain(record))
        const found = Option.getOrThrow(yield* snapshots.find(record.id))
        assert.deepStrictEqual(R.plain(found), R.plain(record))
        // the same market data: the same canonical JSON and hash
        assert.strictEqual(MarketSnapshot.canonicalJson(found.document), MarketSnapshot.canonicalJson(record.document))
        assert.strictEqual((yield* R.storedSnapshot(found.document)).hash, record.hash)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* snapshots.latest())), R.plain(record))
        assert.isTrue(Option.isNone(yield* snapshots.find(R.uuid())))
        assert.isTrue(Option.isNone(yield* snapshots.find("not-a-uuid")))
      })
    )

    it.effect("the same document twice is one snapshot: the first, created false", () =>
      Effect.gen(function* () {
        const snapshots = yield* MarketSnapshotRepo.MarketSnapshotRepo
        const document = R.snapshotDocument(newestAsOf())
        const first = yield* R.storedSnapshot(document, R.base)
        const again = yield* R.storedSnapshot(document, R.plus(R.base, Duration.minutes(5)))
        assert.strictEqual(again.hash, first.hash)
        assert.isTrue((yield* snapshots.insert(first)).created)
        const second = yield* snapshots.insert(again)
        assert.isFalse(second.created)
        assert.deepStrictEqual(R.plain(second.snapshot), R.plain(first))
        assert.isTrue(Option.isNone(yield* snapshots.find(again.id)))
      })
    )

    it.effect("8 concurrent inserts of one document store one snapshot, and all answer it", () =>
      Effect.gen(function* () {
        const snapshots = yield* MarketSnapshotRepo.MarketSnapshotRepo
        const document = R.snapshotDocument(newestAsOf())
        const records = yield* Effect.forEach(Array.from({ length: 8 }), () => R.storedSnapshot(document))
        const results = yield* Effect.forEach(records, (record) => snapshots.insert(record), {
          concurrency: "unbounded"
        })
        assert.strictEqual(results.filter((r) => r.created).length, 1)
        const winner = results.find((r) => r.created)!.snapshot.id
        assert.deepStrictEqual(
          results.map((r) => r.snapshot.id),
          records.map(() => winner)
        )
        const stored = yield* Effect.forEach(records, (record) => snapshots.find(record.id))
        assert.strictEqual(stored.filter(Option.isSome).length, 1)
      })
    )

    it.effect("latest: the newest as_of, then the newest import, then the greatest id", () =>
      Effect.gen(function* () {
        const snapshots = yield* MarketSnapshotRepo.MarketSnapshotRepo
        const older = newestAsOf()
        const newer = newestAsOf()
        const inForce = Effect.map(
          snapshots.latest(),
          Option.map((s) => s.id)
        )
        const t = R.base
        // imported later, observed earlier: not in force
        const a = yield* R.storedSnapshot(R.snapshotDocument(newer), t)
        const b = yield* R.storedSnapshot(R.snapshotDocument(older), R.plus(t, Duration.hours(1)))
        yield* snapshots.insert(a)
        yield* snapshots.insert(b)
        assert.deepStrictEqual(yield* inForce, Option.some(a.id))
        // observed at the same instant, imported later: in force
        const c = yield* R.storedSnapshot(R.snapshotDocument(newer), R.plus(t, Duration.minutes(1)))
        yield* snapshots.insert(c)
        assert.deepStrictEqual(yield* inForce, Option.some(c.id))
        // the same instants: the greatest id
        const [d, e] = [
          yield* R.storedSnapshot(R.snapshotDocument(newer), c.importedAt),
          yield* R.storedSnapshot(R.snapshotDocument(newer), c.importedAt)
        ]
        yield* snapshots.insert(d)
        yield* snapshots.insert(e)
        assert.deepStrictEqual(yield* inForce, Option.some([c.id, d.id, e.id].sort().at(-1)!))
      })
    )

    it.effect("a quote keeps its snapshot id and its pricing inputs, every double exactly", () =>
      Effect.gen(function* () {
        const snapshots = yield* MarketSnapshotRepo.MarketSnapshotRepo
        const quotes = yield* QuoteRepo.QuoteRepo
        const scope = yield* newScope()
        const { snapshot } = yield* snapshots.insert(yield* R.storedSnapshot(R.snapshotDocument(newestAsOf())))
        const inputs = R.pricingInputs()
        const priced = R.quote(scope, { snapshotId: snapshot.id, pricingInputs: inputs })
        const failed = R.failedQuote(scope)
        yield* quotes.insert(priced)
        yield* quotes.insert(failed)
        const found = Option.getOrThrow(yield* quotes.find(scope, priced.id))
        assert.deepStrictEqual(R.plain(found), R.plain(priced))
        assert.strictEqual(found.snapshotId, snapshot.id)
        const kept = found.pricingInputs!
        for (const key of ["forward_t1", "forward_t2", "rate_domestic", "rate_foreign", "sigma", "t1", "t2"] as const) {
          assert.isTrue(Object.is(kept[key], inputs[key]), `${key}: ${kept[key]} is not ${inputs[key]}`)
        }
        const listed = yield* quotes.list(scope, { limit: 10, now: R.base })
        assert.deepStrictEqual(R.plain(listed.find((q) => q.id === priced.id)), R.plain(priced))
        const none = Option.getOrThrow(yield* quotes.find(scope, failed.id))
        assert.deepStrictEqual([none.snapshotId, none.pricingInputs], [null, null])
      })
    )

    it.effect("a quote naming a snapshot that is not stored fails with StoreError and writes nothing", () =>
      Effect.gen(function* () {
        const quotes = yield* QuoteRepo.QuoteRepo
        const scope = yield* newScope()
        const orphan = R.quote(scope, { snapshotId: R.uuid(), pricingInputs: R.pricingInputs() })
        const exit = yield* Effect.exit(quotes.insert(orphan))
        assert.strictEqual(errorTag(exit), "StoreError")
        assert.isTrue(Option.isNone(yield* quotes.find(scope, orphan.id)))
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Hedging
// ---------------------------------------------------------------------------------------------

/**
 * A policy of `pair` in `environment`. Policies are keyed by (environment, pair), twelve keys for
 * the whole suite: each test below keeps to pairs of its own.
 */
const hedgePolicy = (
  environment: Partner.Environment,
  pair: string,
  overrides: Partial<HedgePolicy.HedgePolicy> = {}
): HedgePolicy.HedgePolicy => ({
  environment,
  pair,
  targetRatio: R.dec("0.75"),
  band: R.dec("50000.50"),
  instrument: "spot",
  valueDays: null,
  updatedAt: R.base,
  ...overrides
})

/** An intended order of the pair, decided at `t`. */
const hedgeOrder = (
  policy: HedgePolicy.HedgePolicy,
  t: DateTime.Utc,
  overrides: Partial<HedgeOrder.HedgeOrder> = {}
): HedgeOrder.HedgeOrder => ({
  id: R.uuid(),
  environment: policy.environment,
  pair: policy.pair,
  side: "sell",
  amount: R.dec("120000.00"),
  instrument: policy.instrument,
  valueDate: "2024-05-03",
  status: "intended",
  delta: R.dec("160000.123456"),
  position: R.dec("0"),
  target: R.dec("-120000.0925920"),
  targetRatio: policy.targetRatio,
  band: policy.band,
  deltaSnapshotId: null,
  deltaAsOf: R.plusMillis(t, -500),
  venue: "simulated",
  fillRate: null,
  fillAmount: null,
  filledAt: null,
  rejectionReason: null,
  createdAt: t,
  updatedAt: t,
  ...overrides
})

/** The pair's lease for a claim at `now` by `owner`, taking whatever else is free too. */
const leaseOf = (policy: HedgePolicy.HedgePolicy, now: DateTime.Utc, owner = "hedger") =>
  Effect.gen(function* () {
    const claimed = yield* (yield* HedgePolicyRepo.HedgePolicyRepo).claim(claimAt(now, owner))
    const mine = claimed.find((c) => c.policy.environment === policy.environment && c.policy.pair === policy.pair)
    assert.isDefined(mine, `${policy.environment} ${policy.pair} was not claimed`)
    return mine!.lease
  })

/** The order filled at `rate`, at `t`. */
const filledAt = (order: HedgeOrder.HedgeOrder, rate: string, t: DateTime.Utc, amount = order.amount) => ({
  ...order,
  status: "filled" as const,
  fillRate: R.dec(rate),
  fillAmount: amount,
  filledAt: t,
  updatedAt: t
})

const hedgeTests = (it: It) =>
  describe("HedgePolicyRepo and HedgeOrderRepo", () => {
    it.effect("policies: upsert, find and list keep every field; a replacement keeps the pair's lease", () =>
      Effect.gen(function* () {
        const policies = yield* HedgePolicyRepo.HedgePolicyRepo
        const spot = hedgePolicy("sandbox", "USD/BRL")
        const forward = hedgePolicy("sandbox", "EUR/USD", { instrument: "forward", valueDays: 90, band: R.dec("0.01") })
        yield* policies.upsert(spot)
        yield* policies.upsert(forward)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* policies.find("sandbox", "USD/BRL"))), R.plain(spot))
        assert.isTrue(Option.isNone(yield* policies.find("production", "GBP/USD")))
        const listed = (yield* policies.list("sandbox")).filter((p) => ["USD/BRL", "EUR/USD"].includes(p.pair))
        assert.deepStrictEqual(R.plain(listed), R.plain([forward, spot]))
        assert.isTrue((yield* policies.list("production")).every((p) => p.environment === "production"))

        const t = R.workerEpoch()
        const lease = yield* leaseOf(spot, t)
        const replaced = { ...spot, band: R.dec("75000"), targetRatio: R.dec("1"), updatedAt: R.plus(R.base, "1 hour") }
        yield* policies.upsert(replaced)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* policies.find("sandbox", "USD/BRL"))), R.plain(replaced))
        // still leased: a claim inside the lease does not take it
        const again = yield* policies.claim(claimAt(R.plus(t, "30 seconds"), "other"))
        assert.isFalse(again.some((c) => c.policy.environment === "sandbox" && c.policy.pair === "USD/BRL"))
        yield* policies.release("sandbox", "USD/BRL", lease)
      })
    )

    it.effect(
      "claims: concurrent claimers take each pair once; a lease holds until it ends; only its holder releases it",
      () =>
        Effect.gen(function* () {
          const policies = yield* HedgePolicyRepo.HedgePolicyRepo
          const mine = ["USD/MXN", "USD/NGN", "EUR/BRL", "BRL/MXN"].map((pair) => hedgePolicy("production", pair))
          yield* Effect.forEach(mine, policies.upsert, { discard: true })
          const key = (p: HedgePolicy.HedgePolicy) => `${p.environment} ${p.pair}`
          const t = R.workerEpoch()
          const claims = yield* Effect.forEach(
            Array.from({ length: 8 }, (_, i) => `hedger-${i}`),
            (owner) => policies.claim(claimAt(t, owner, 2)),
            { concurrency: "unbounded" }
          )
          const taken = claims.flat().map((c) => key(c.policy))
          assert.strictEqual(new Set(taken).size, taken.length, "a pair claimed twice")
          const leases = new Map(claims.flat().map((c) => [key(c.policy), c.lease]))
          for (const p of mine) assert.isTrue(leases.has(key(p)), `${key(p)} not claimed`)
          const first = leases.get(key(mine[0]!))!
          assert.strictEqual(first.until.epochMilliseconds, R.plus(t, "1 minute").epochMilliseconds)

          // held until the lease ends; then another may take it
          const during = yield* policies.claim(claimAt(R.plus(t, "59 seconds"), "late"))
          assert.isFalse(during.some((c) => mine.some((p) => key(p) === key(c.policy))))
          // released by someone else's lease: nothing happens; by its holder: free at once
          yield* policies.release("production", "USD/MXN", { owner: "late", until: first.until })
          assert.isFalse(
            (yield* policies.claim(claimAt(R.plus(t, "59 seconds"), "late"))).some((c) => c.policy.pair === "USD/MXN")
          )
          yield* policies.release("production", "USD/MXN", first)
          const freed = yield* policies.claim(claimAt(R.plus(t, "59 seconds"), "late"))
          assert.isTrue(freed.some((c) => c.policy.environment === "production" && c.policy.pair === "USD/MXN"))
          const after = yield* policies.claim(claimAt(R.plus(t, "61 seconds"), "later"))
          for (const p of mine.slice(1))
            assert.isTrue(
              after.some((c) => key(c.policy) === key(p)),
              key(p)
            )
        })
    )

    it.effect(
      "orders: stored intended only under the pair's lease and with none outstanding; updates compare and set",
      () =>
        Effect.gen(function* () {
          const policies = yield* HedgePolicyRepo.HedgePolicyRepo
          const orders = yield* HedgeOrderRepo.HedgeOrderRepo
          const policy = hedgePolicy("production", "USD/BRL")
          yield* policies.upsert(policy)
          const t = R.workerEpoch()
          const lease = yield* leaseOf(policy, t)
          const first = hedgeOrder(policy, R.plus(t, "1 second"))

          // not under someone else's lease, nor under a lease of another end
          assert.isFalse(yield* orders.insertIntended(first, { ...lease, owner: "intruder" }))
          assert.isFalse(yield* orders.insertIntended(first, { ...lease, until: R.plus(lease.until, "1 second") }))
          assert.isTrue(Option.isNone(yield* orders.find(first.id)))
          assert.isTrue(yield* orders.insertIntended(first, lease))
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* orders.find(first.id))), R.plain(first))
          // one outstanding order per pair
          const second = hedgeOrder(policy, R.plus(t, "2 seconds"))
          assert.isFalse(yield* orders.insertIntended(second, lease))
          assert.deepStrictEqual(idsOf(yield* orders.outstanding("production", "USD/BRL")), [first.id])
          assert.deepStrictEqual(yield* orders.outstanding("sandbox", "USD/BRL"), [])

          const sent = { ...first, status: "sent" as const, updatedAt: R.plus(t, "3 seconds") }
          assert.isTrue(yield* orders.update(sent, first))
          // a writer that read the order before it moved writes nothing
          assert.isFalse(yield* orders.update({ ...first, status: "rejected", rejectionReason: "late" }, first))
          const filled = filledAt(sent, "5.41235", R.plus(t, "4 seconds"), R.dec("100000.50"))
          const entries = HedgeLedger.hedgeFillEntries(filled)
          assert.isTrue(yield* orders.update(filled, sent, entries))
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* orders.find(first.id))), R.plain(filled))
          assert.deepStrictEqual(R.plain(yield* orders.ledgerEntries(first.id)), R.plain(entries))
          assert.deepStrictEqual(yield* orders.outstanding("production", "USD/BRL"), [])
          // the fill again, over a row that moved: no second set of entries
          assert.isFalse(yield* orders.update(filled, sent, entries))
          assert.strictEqual((yield* orders.ledgerEntries(first.id)).length, 4)

          // nothing outstanding: the next decision is stored; rejected, it counts nothing
          assert.isTrue(yield* orders.insertIntended(second, lease))
          const rejected = {
            ...second,
            status: "rejected" as const,
            rejectionReason: "no liquidity",
            updatedAt: R.plus(t, "5 seconds")
          }
          assert.isTrue(yield* orders.update(rejected, second))
          assert.deepStrictEqual(yield* orders.ledgerEntries(second.id), [])
          const third = hedgeOrder(policy, R.plus(t, "6 seconds"), { side: "buy", amount: R.dec("20000.25") })
          assert.isTrue(yield* orders.insertIntended(third, lease))
          const thirdSent = { ...third, status: "sent" as const, updatedAt: R.plus(t, "7 seconds") }
          assert.isTrue(yield* orders.update(thirdSent, third))
          assert.isTrue(
            yield* orders.update(
              filledAt(thirdSent, "5.4", R.plus(t, "8 seconds")),
              thirdSent,
              HedgeLedger.hedgeFillEntries(filledAt(thirdSent, "5.4", R.plus(t, "8 seconds")))
            )
          )

          // the position: filled amounts only, sold negative
          assert.isTrue(Money.equals(yield* orders.position("production", "USD/BRL"), R.dec("-80000.25")))
          assert.isTrue(Money.isZero(yield* orders.position("sandbox", "USD/BRL")))

          const list = (filter: Partial<HedgeOrderRepo.ListFilter>) =>
            Effect.map(orders.list({ environment: "production", pair: "USD/BRL", limit: 10, ...filter }), idsOf)
          assert.deepStrictEqual(yield* list({}), [third.id, second.id, first.id])
          assert.deepStrictEqual(yield* list({ statuses: ["rejected"] }), [second.id])
          assert.deepStrictEqual(yield* list({ statuses: ["filled"], limit: 1 }), [third.id])
          assert.deepStrictEqual(yield* list({ since: R.plus(t, "2 seconds") }), [third.id, second.id])
          assert.deepStrictEqual(yield* list({ environment: "sandbox" }), [])
          assert.isTrue(Option.isNone(yield* orders.find("not-a-uuid")))
          assert.deepStrictEqual(yield* orders.ledgerEntries("not-a-uuid"), [])
        })
    )

    it.effect("8 concurrent decisions for one pair under one lease: one order is stored", () =>
      Effect.gen(function* () {
        const policies = yield* HedgePolicyRepo.HedgePolicyRepo
        const orders = yield* HedgeOrderRepo.HedgeOrderRepo
        const policy = hedgePolicy("production", "EUR/USD")
        yield* policies.upsert(policy)
        const t = R.workerEpoch()
        const lease = yield* leaseOf(policy, t)
        const candidates = Array.from({ length: 8 }, (_, i) => hedgeOrder(policy, R.plusMillis(t, i)))
        const stored = yield* Effect.forEach(candidates, (o) => orders.insertIntended(o, lease), {
          concurrency: "unbounded"
        })
        assert.strictEqual(stored.filter(Boolean).length, 1)
        assert.strictEqual((yield* orders.outstanding("production", "EUR/USD")).length, 1)
      })
    )

    it.effect("a fill's ledger entries that do not balance are a defect, and nothing is written", () =>
      Effect.gen(function* () {
        const policies = yield* HedgePolicyRepo.HedgePolicyRepo
        const orders = yield* HedgeOrderRepo.HedgeOrderRepo
        const policy = hedgePolicy("sandbox", "USD/NGN")
        yield* policies.upsert(policy)
        const t = R.workerEpoch()
        const order = hedgeOrder(policy, t)
        assert.isTrue(yield* orders.insertIntended(order, yield* leaseOf(policy, t)))
        const filled = filledAt(order, "1500.25", R.plus(t, "1 second"))
        const [first, ...rest] = HedgeLedger.hedgeFillEntries(filled)
        const exit = yield* Effect.exit(orders.update(filled, order, [{ ...first!, amount: R.dec("1") }, ...rest]))
        assert.isTrue(Exit.hasDies(exit))
        assert.strictEqual(Option.getOrThrow(yield* orders.find(order.id)).status, "intended")
        assert.deepStrictEqual(yield* orders.ledgerEntries(order.id), [])
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// The operator's records: tokens, worker heartbeats, backlog counts
// ---------------------------------------------------------------------------------------------

const token = (
  overrides: Partial<OperatorTokenRepo.OperatorTokenRecord> = {}
): OperatorTokenRepo.OperatorTokenRecord => ({
  id: R.uuid(),
  name: "prometheus",
  secretHash: R.uuid().replaceAll("-", "").padEnd(64, "0"),
  role: "viewer",
  createdAt: R.base,
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  ...overrides
})

const operatorTokenTests = (it: It) =>
  describe("OperatorTokenRepo", () => {
    it.effect("insert, find, findByHash and list keep every field; list is oldest first", () =>
      Effect.gen(function* () {
        const tokens = yield* OperatorTokenRepo.OperatorTokenRepo
        const older = token({ createdAt: R.at("2024-05-01T12:00:00.001Z"), name: "alice" })
        const newer = token({ createdAt: R.at("2024-05-01T12:00:00.002Z") })
        yield* tokens.insert(newer)
        yield* tokens.insert(older)
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* tokens.find(older.id))), R.plain(older))
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* tokens.findByHash(newer.secretHash))), R.plain(newer))
        assert.isTrue(Option.isNone(yield* tokens.findByHash("f".repeat(64))))
        assert.isTrue(Option.isNone(yield* tokens.find(R.uuid())))
        assert.isTrue(Option.isNone(yield* tokens.find("not-a-uuid")))
        const ids = idsOf(yield* tokens.list())
        assert.isBelow(ids.indexOf(older.id), ids.indexOf(newer.id))
      })
    )

    it.effect("a second token with a stored hash fails with StoreError and writes nothing", () =>
      Effect.gen(function* () {
        const tokens = yield* OperatorTokenRepo.OperatorTokenRepo
        const first = token()
        yield* tokens.insert(first)
        const twin = token({ secretHash: first.secretHash })
        assert.strictEqual(errorTag(yield* Effect.exit(tokens.insert(twin))), "StoreError")
        assert.isTrue(Option.isNone(yield* tokens.find(twin.id)))
      })
    )

    it.effect("revoke sets revokedAt once: a second revocation keeps the first instant", () =>
      Effect.gen(function* () {
        const tokens = yield* OperatorTokenRepo.OperatorTokenRepo
        const t = token()
        yield* tokens.insert(t)
        const first = R.at("2024-05-02T00:00:00.123Z")
        yield* tokens.revoke(t.id, first)
        yield* tokens.revoke(t.id, R.at("2024-05-03T00:00:00.000Z"))
        yield* tokens.revoke("not-a-uuid", first)
        const revoked = Option.getOrThrow(yield* tokens.find(t.id))
        assert.deepStrictEqual(R.plain(revoked), R.plain({ ...t, revokedAt: first }))
        assert.deepStrictEqual(R.plain(Option.getOrNull(yield* tokens.findByHash(t.secretHash))), R.plain(revoked))
      })
    )

    it.effect("every role, an expiry and a last use are kept as written; none stays none", () =>
      Effect.gen(function* () {
        const tokens = yield* OperatorTokenRepo.OperatorTokenRepo
        const written = OperatorRole.roles.map((role, i) =>
          token({
            role,
            expiresAt: i % 2 === 0 ? null : R.at(`2024-06-0${i}T00:00:00.00${i}Z`),
            lastUsedAt: i < 2 ? null : R.at(`2024-05-0${i}T08:30:00.99${i}Z`)
          })
        )
        for (const t of written) yield* tokens.insert(t)
        for (const t of written) {
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* tokens.find(t.id))), R.plain(t))
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* tokens.findByHash(t.secretHash))), R.plain(t))
        }
        // oldest first: one creation instant, so by id
        const listed = (yield* tokens.list()).filter((t) => written.some((w) => w.id === t.id))
        assert.deepStrictEqual(R.plain(listed), R.plain([...written].sort((a, b) => (a.id < b.id ? -1 : 1))))
      })
    )

    it.effect("touch notes a use, the latest standing; only lastUsedAt moves; an unknown id is no error", () =>
      Effect.gen(function* () {
        const tokens = yield* OperatorTokenRepo.OperatorTokenRepo
        const t = token({ role: "trader", expiresAt: R.at("2024-07-01T00:00:00.000Z") })
        yield* tokens.insert(t)
        const lastUsedAt = () => Effect.map(tokens.find(t.id), (found) => Option.getOrThrow(found).lastUsedAt)
        const first = R.at("2024-05-02T09:00:00.123Z")
        yield* tokens.touch(t.id, first)
        assert.deepStrictEqual(
          R.plain(Option.getOrNull(yield* tokens.find(t.id))),
          R.plain({ ...t, lastUsedAt: first })
        )
        // a slower request noting an earlier use does not move it back
        yield* tokens.touch(t.id, R.plusMillis(first, -1))
        assert.deepStrictEqual(R.plain(yield* lastUsedAt()), R.plain(first))
        const later = R.plus(first, Duration.minutes(2))
        yield* tokens.touch(t.id, later)
        assert.deepStrictEqual(R.plain(yield* lastUsedAt()), R.plain(later))
        // a revoked token keeps its last use, and a use noted after
        yield* tokens.revoke(t.id, R.plus(later, Duration.minutes(1)))
        const afterRevocation = R.plus(later, Duration.minutes(3))
        yield* tokens.touch(t.id, afterRevocation)
        assert.deepStrictEqual(
          R.plain(Option.getOrNull(yield* tokens.findByHash(t.secretHash))),
          R.plain({ ...t, revokedAt: R.plus(later, Duration.minutes(1)), lastUsedAt: afterRevocation })
        )
        yield* tokens.touch(R.uuid(), later)
        yield* tokens.touch("not-a-uuid", later)
      })
    )
  })

const heartbeatTests = (it: It) =>
  describe("WorkerHeartbeatRepo", () => {
    it.effect(
      "beat replaces an owner's pass; list reads those since an instant, by owner and pass; prune forgets the older",
      () =>
        Effect.gen(function* () {
          const beats = yield* WorkerHeartbeatRepo.WorkerHeartbeatRepo
          // instants of their own, before any other test's, so list and prune see only these
          const t = R.workerEpoch()
          const owner = `host-${R.uuid()}:1`
          const other = `host-${R.uuid()}:2`
          const [a, b] = [owner, other].sort() as [string, string]
          yield* beats.beat([
            { owner: b, pass: "payouts", lastPassAt: t, ok: true },
            { owner: a, pass: "payouts", lastPassAt: R.plusMillis(t, 1), ok: true },
            { owner: a, pass: "funding", lastPassAt: R.plusMillis(t, 2), ok: true }
          ])
          // the same owner and pass again: one row, the new one
          yield* beats.beat([{ owner: a, pass: "payouts", lastPassAt: R.plusMillis(t, 5), ok: false }])
          yield* beats.beat([])
          const mine = (rows: ReadonlyArray<WorkerHeartbeatRepo.WorkerHeartbeat>) =>
            rows.filter((h) => h.owner === a || h.owner === b).map((h) => R.plain(h))
          assert.deepStrictEqual(mine(yield* beats.list(t)), [
            R.plain({ owner: a, pass: "funding", lastPassAt: R.plusMillis(t, 2), ok: true }),
            R.plain({ owner: a, pass: "payouts", lastPassAt: R.plusMillis(t, 5), ok: false }),
            R.plain({ owner: b, pass: "payouts", lastPassAt: t, ok: true })
          ])
          assert.deepStrictEqual(mine(yield* beats.list(R.plusMillis(t, 3))), [
            R.plain({ owner: a, pass: "payouts", lastPassAt: R.plusMillis(t, 5), ok: false })
          ])
          assert.strictEqual(yield* beats.prune(R.plusMillis(t, 3)), 2)
          assert.deepStrictEqual(mine(yield* beats.list(t)), [
            R.plain({ owner: a, pass: "payouts", lastPassAt: R.plusMillis(t, 5), ok: false })
          ])
        })
    )
  })

const reading = (
  overrides: Partial<HotWalletRepo.HotWalletReading> &
    Pick<HotWalletRepo.HotWalletReading, "environment" | "chain" | "asset">
): HotWalletRepo.HotWalletReading => ({
  address: "0x00000000000000000000000000000000000000a1",
  amount: R.dec("1.5"),
  readAt: R.base,
  ...overrides
})

/** The stored readings of `environment` and `chain` (the keys are the store's, shared by the suite's tests). */
const readingsOf = (environment: Partner.Environment, chain: HotWalletRepo.HotWalletReading["chain"]) =>
  Effect.map(
    HotWalletRepo.HotWalletRepo.use((repo) => repo.list()),
    (all) => all.filter((r) => r.environment === environment && r.chain === chain).map((r) => R.plain(r))
  )

const hotWalletTests = (it: It) =>
  describe("HotWalletRepo", () => {
    it.effect(
      "save keeps every field and each amount's exact scale; list is by environment, chain, NATIVE first, tokens by name",
      () =>
        Effect.gen(function* () {
          const repo = yield* HotWalletRepo.HotWalletRepo
          const t = R.at("2024-05-01T12:00:00.007Z")
          const polygon = [
            reading({
              environment: "production",
              chain: "polygon",
              asset: "USDT",
              amount: R.dec("0.000001"),
              readAt: t
            }),
            reading({
              environment: "production",
              chain: "polygon",
              asset: "NATIVE",
              amount: R.dec("12.345678901234567891"),
              readAt: t
            }),
            reading({ environment: "production", chain: "polygon", asset: "BRLA", amount: R.dec("0"), readAt: t }),
            reading({
              environment: "production",
              chain: "polygon",
              asset: "USDC",
              amount: R.dec("1000000.100000"),
              readAt: t
            })
          ]
          const ethereum = reading({
            environment: "production",
            chain: "ethereum",
            asset: "EURC",
            address: "0xAbC0000000000000000000000000000000000001",
            amount: R.dec("250.5"),
            readAt: R.plusMillis(t, 1)
          })
          yield* repo.save([...polygon, ethereum])
          yield* repo.save([])
          assert.deepStrictEqual(yield* readingsOf("production", "polygon"), [
            R.plain(polygon[1]),
            R.plain(polygon[2]),
            R.plain(polygon[3]),
            R.plain(polygon[0])
          ])
          assert.deepStrictEqual(yield* readingsOf("production", "ethereum"), [R.plain(ethereum)])
          // the scale as read: 18 decimals of a native balance, 6 of a token, none of a zero
          const stored = (yield* repo.list()).filter((r) => r.environment === "production" && r.chain === "polygon")
          assert.deepStrictEqual(
            stored.map((r) => Money.format(r.amount)),
            ["12.345678901234567891", "0", "1000000.100000", "0.000001"]
          )
          // the whole list keeps its order across environments and chains
          const all = (yield* repo.list()).map((r) => `${r.environment}|${r.chain}`)
          assert.deepStrictEqual(all, [...all].sort())
        })
    )

    it.effect(
      "a later reading replaces its asset's; an earlier one (a slow worker's) does not; of one call the latest counts",
      () =>
        Effect.gen(function* () {
          const repo = yield* HotWalletRepo.HotWalletRepo
          const t = R.at("2024-05-01T12:00:00.000Z")
          const key = { environment: "sandbox", chain: "solana", asset: "USDC" } as const
          const native = reading({
            environment: "sandbox",
            chain: "solana",
            asset: "NATIVE",
            amount: R.dec("2.000000001"),
            readAt: t
          })
          yield* repo.save([reading({ ...key, amount: R.dec("10"), readAt: t }), native])
          const newer = reading({
            ...key,
            address: "NewWallet1111111111111111111111111111111111",
            amount: R.dec("7.25"),
            readAt: R.plusMillis(t, 60_000)
          })
          yield* repo.save([newer])
          assert.deepStrictEqual(yield* readingsOf("sandbox", "solana"), [R.plain(native), R.plain(newer)])
          yield* repo.save([reading({ ...key, amount: R.dec("99"), readAt: R.plusMillis(t, 30_000) })])
          assert.deepStrictEqual(yield* readingsOf("sandbox", "solana"), [R.plain(native), R.plain(newer)])
          const latest = reading({ ...key, amount: R.dec("3"), readAt: R.plusMillis(t, 120_001) })
          yield* repo.save([latest, reading({ ...key, amount: R.dec("4"), readAt: R.plusMillis(t, 120_000) })])
          assert.deepStrictEqual(yield* readingsOf("sandbox", "solana"), [R.plain(native), R.plain(latest)])
        })
    )
  })

const backlogOf = (environment: Partner.Environment) =>
  Effect.gen(function* () {
    const all = yield* (yield* BacklogRepo.BacklogRepo).backlog()
    assert.deepStrictEqual(
      all.map((b) => b.environment),
      ["sandbox", "production"]
    )
    return all.find((b) => b.environment === environment)!
  })

const backlogTests = (it: It) =>
  describe("BacklogRepo", () => {
    it.effect(
      "counts undelivered events, payouts awaiting confirmation or failed, and unmatched funds, per environment",
      () =>
        Effect.gen(function* () {
          const payouts = yield* PayoutRepo.PayoutRepo
          const contracts = yield* ContractRepo.ContractRepo
          const before = yield* backlogOf("production")
          const sandboxBefore = yield* backlogOf("sandbox")
          // older than every other row of the store: the oldest of each count is this test's
          const t = R.workerEpoch()
          const scope = yield* newScope("production")
          const c = yield* seedContract(scope, { createdAt: t }, { createdAt: t, updatedAt: t })
          const [moved] = yield* emit(c, t)
          yield* emit(moved, R.plus(t, Duration.seconds(1)), { status: "retrying" })
          const delivered = yield* seedContract(scope, { createdAt: t }, { createdAt: t, updatedAt: t })
          yield* emit(delivered, t, { status: "delivered" })
          yield* payouts.insert(R.payout(c, { createdAt: R.plus(t, Duration.seconds(2)) }))
          const prepared = yield* seedContract(scope, { createdAt: t }, { createdAt: t, updatedAt: t })
          yield* payouts.insert(R.payout(prepared, { status: "prepared", createdAt: R.plus(t, Duration.seconds(3)) }))
          const given = yield* seedContract(scope, { createdAt: t }, { createdAt: t, updatedAt: t })
          yield* payouts.insert(R.payout(given, { status: "failed", createdAt: t }))
          const confirmed = yield* seedContract(scope, { createdAt: t }, { createdAt: t, updatedAt: t })
          yield* payouts.insert(R.payout(confirmed, { status: "confirmed", createdAt: t }))
          yield* contracts.recordUnmatchedTransfer(unmatched(c))

          const after = yield* backlogOf("production")
          assert.strictEqual(after.undeliveredEvents - before.undeliveredEvents, 2)
          assert.strictEqual(DateTime.formatIso(after.oldestUndeliveredAt!), DateTime.formatIso(t))
          assert.strictEqual(after.payoutsAwaitingConfirmation - before.payoutsAwaitingConfirmation, 2)
          assert.strictEqual(
            DateTime.formatIso(after.oldestAwaitingPayoutAt!),
            DateTime.formatIso(R.plus(t, Duration.seconds(2)))
          )
          assert.strictEqual(after.payoutsFailed - before.payoutsFailed, 1)
          assert.strictEqual(after.unmatchedFunds - before.unmatchedFunds, 1)
          // the other environment's counts did not move
          assert.deepStrictEqual(R.plain(yield* backlogOf("sandbox")), R.plain(sandboxBefore))
        })
    )
  })

const failingTests = (it: It) =>
  describe("BacklogRepo.failingDeliveries", () => {
    it.effect("lists the partners with retrying or failed deliveries, most retrying first, with the newest error", () =>
      Effect.gen(function* () {
        const backlog = yield* BacklogRepo.BacklogRepo
        const partners = yield* PartnerRepo.PartnerRepo
        const t = R.workerEpoch()
        const named = (name: string, environment: Partner.Environment) =>
          Effect.gen(function* () {
            const scope = R.freshScope(environment)
            yield* partners.insertPartner({ id: scope.partnerId, name, createdAt: R.base })
            return scope
          })
        const acme = yield* named("Acme Pay", "production")
        const bolt = yield* named("Bolt Remit", "production")
        const quiet = yield* named("Quiet Co", "production")
        const elsewhere = yield* named("Sandbox Only", "sandbox")
        const at = (seconds: number) => R.plus(t, Duration.seconds(seconds))
        const contractOf = (scope: Partner.PartnerScope) =>
          seedContract(scope, { createdAt: t }, { createdAt: t, updatedAt: t })

        // Acme: two retrying (the newer one's error is the one shown) and one given up on
        const [a1] = yield* emit(yield* contractOf(acme), at(1), {
          status: "retrying",
          attempts: 3,
          lastError: "HTTP 500"
        })
        const [a2] = yield* emit(a1, at(2), { status: "retrying", attempts: 1, lastError: "HTTP 503" })
        yield* emit(a2, at(0), { status: "failed", attempts: 12, lastError: "HTTP 404" })
        // Bolt: given up on twice, the newer error shown; a delivered and a pending event do not count
        const [b1] = yield* emit(yield* contractOf(bolt), at(1), { status: "failed", lastError: "old error" })
        const [b2] = yield* emit(b1, at(3), { status: "failed", lastError: "connect ECONNREFUSED" })
        const [b3] = yield* emit(b2, at(4), { status: "delivered" })
        yield* emit(b3, at(5), { status: "pending" })
        // Quiet: delivered only; the sandbox partner's retrying event is not production's
        yield* emit(yield* contractOf(quiet), at(1), { status: "delivered" })
        yield* emit(yield* contractOf(elsewhere), at(1), { status: "retrying", lastError: "HTTP 502" })

        const mine = (rows: ReadonlyArray<BacklogRepo.FailingDeliveries>, ids: ReadonlyArray<string>) =>
          rows.filter((r) => ids.includes(r.partnerId)).map((r) => R.plain(r))
        const production = yield* backlog.failingDeliveries("production")
        assert.deepStrictEqual(mine(production, [acme.partnerId, bolt.partnerId, quiet.partnerId]), [
          R.plain({
            partnerId: acme.partnerId,
            partnerName: "Acme Pay",
            retrying: 2,
            oldestRetryingAt: at(1),
            failed: 1,
            lastError: "HTTP 503"
          }),
          R.plain({
            partnerId: bolt.partnerId,
            partnerName: "Bolt Remit",
            retrying: 0,
            oldestRetryingAt: null,
            failed: 2,
            lastError: "connect ECONNREFUSED"
          })
        ])
        // ordered across every partner listed: most retrying, then most failed
        const order = production.map((r) => [r.retrying, r.failed] as const)
        for (let i = 1; i < order.length; i++) {
          const [r0, f0] = order[i - 1]!
          const [r1, f1] = order[i]!
          assert.isTrue(r0 > r1 || (r0 === r1 && f0 >= f1), JSON.stringify(order))
        }
        const sandbox = yield* backlog.failingDeliveries("sandbox")
        assert.deepStrictEqual(mine(sandbox, [acme.partnerId, elsewhere.partnerId]), [
          R.plain({
            partnerId: elsewhere.partnerId,
            partnerName: "Sandbox Only",
            retrying: 1,
            oldestRetryingAt: at(1),
            failed: 0,
            lastError: "HTTP 502"
          })
        ])
      })
    )
  })

// ---------------------------------------------------------------------------------------------

/** Registers the whole contract suite against one store layer, shared by its tests. */
// ---------------------------------------------------------------------------------------------
// Corridor limits
// ---------------------------------------------------------------------------------------------

/**
 * A quote for a lock of `notional` BASE in a production corridor. Each test below keeps to a
 * corridor of its own: the other tests lock in sandbox `USD_TO_BRL`, and a corridor's limits and
 * open notional are shared by every partner.
 */
const lockQuote = (
  scope: Partner.PartnerScope,
  direction: Corridor.Direction,
  notional: string,
  overrides: Partial<Parameters<typeof R.quote>[1]> = {}
) =>
  R.quote(scope, {
    direction,
    notionalCurrency: Corridor.pair(direction).base as Corridor.NotionalCurrency,
    notionalAmount: R.dec(notional),
    lockedRate: R.dec("1.17"),
    ...overrides
  })

/** Stores a quote and tries to insert its contract; the contract, or why the insert failed. */
const tryLock = (quote: Quote.QuoteRecord, contract: Partial<Contract.ContractRecord> = {}) =>
  Effect.gen(function* () {
    yield* (yield* QuoteRepo.QuoteRepo).insert(quote)
    const c = R.contract(quote, contract)
    return yield* Effect.as((yield* ContractRepo.ContractRepo).insert(c), c)
  })

const openNotional = (environment: Partner.Environment, direction: Corridor.Direction) =>
  Effect.map(
    CorridorLimitRepo.CorridorLimitRepo.use((repo) => repo.find(environment, direction)),
    (c) => Money.format(BigDecimal.normalize(c.openNotional))
  )

// ---------------------------------------------------------------------------------------------
// The book: the operator's scenarios and the current revaluation
// ---------------------------------------------------------------------------------------------

const scenarioNamed = (name: string, shock: string) =>
  Schema.decodeUnknownSync(RiskScenario.Scenario)({ name, spot_shocks: { "USD/BRL": shock }, vol_shift: "0.01" })

/** An empty book's report of `environment`, revalued at `at`. */
const emptyReport = (environment: Partner.Environment, at: DateTime.Utc) =>
  Risk.report({ contracts: [] }, R.snapshotDocument(at), at, [], { environments: [environment] })[0]!

const riskTests = (it: It) =>
  describe("RiskScenarioRepo and RiskRevaluationRepo", () => {
    it.effect("scenarios are stored by name, a second put of a name replaces it, the list is by name", () =>
      Effect.gen(function* () {
        const repo = yield* RiskScenarioRepo.RiskScenarioRepo
        const prefix = `t${R.uuid().slice(0, 8)}`
        const [b, a] = [scenarioNamed(`${prefix}_b`, "0.2"), scenarioNamed(`${prefix}_a`, "-0.1")]
        yield* repo.put([
          { scenario: b, updatedAt: R.base },
          { scenario: a, updatedAt: R.base }
        ])
        const replaced = scenarioNamed(`${prefix}_b`, "0.3")
        yield* repo.put([{ scenario: replaced, updatedAt: R.plus(R.base, "1 second") }])
        const mine = (yield* repo.list()).filter((s) => s.scenario.name.startsWith(prefix))
        assert.deepStrictEqual(
          R.plain(mine),
          R.plain([
            { scenario: a, updatedAt: R.base },
            { scenario: replaced, updatedAt: R.plus(R.base, "1 second") }
          ])
        )
      })
    )

    it.effect(
      "one revaluation per environment, its report decoded as stored; an older one never replaces a newer",
      () =>
        Effect.gen(function* () {
          const repo = yield* RiskRevaluationRepo.RiskRevaluationRepo
          const at = R.workerEpoch()
          const newer = {
            environment: "production" as const,
            computedAt: R.plus(at, "1 minute"),
            snapshotId: null,
            report: emptyReport("production", at)
          }
          yield* repo.save(newer)
          yield* repo.save({ ...newer, computedAt: at })
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* repo.latest("production"))), R.plain(newer))
          const sandbox = { ...newer, environment: "sandbox" as const, report: emptyReport("sandbox", at) }
          yield* repo.save(sandbox)
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* repo.latest("sandbox"))), R.plain(sandbox))
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* repo.latest("production"))), R.plain(newer))
          const later = { ...newer, computedAt: R.plus(at, "2 minutes") }
          yield* repo.save(later)
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* repo.latest("production"))), R.plain(later))
        })
    )

    it.effect(
      "the lease on revaluing: one holder at a time, of concurrent claims one wins; released or run out, it is free",
      () =>
        Effect.flatMap(RiskRevaluationRepo.RiskRevaluationRepo, (repo) =>
          // past every lease an earlier test could have left (instants are this test's own)
          assertSingleLease(repo, R.plus(R.workerEpoch(), "1 hour"))
        )
    )
  })

/** A single lease's port: the revaluation's, the daily close's. */
interface SingleLease {
  readonly claim: (lease: RiskRevaluationRepo.RevaluationLease, now: DateTime.Utc) => Effect.Effect<boolean, unknown>
  readonly release: (lease: RiskRevaluationRepo.RevaluationLease, now: DateTime.Utc) => Effect.Effect<void, unknown>
}

/**
 * One holder at a time from `at` on: of concurrent claims one wins; a release by another owner, or of another
 * lease, lets nothing go; released by its holder, it is free at once; never released, once it runs out.
 */
const assertSingleLease = (repo: SingleLease, at: DateTime.Utc) =>
  Effect.gen(function* () {
    const lease = (owner: string, from: DateTime.Utc) => ({ owner, until: R.plus(from, "1 minute") })
    const claims = yield* Effect.all(
      ["w1", "w2", "w3", "w4", "w5"].map((owner) => repo.claim(lease(owner, at), at)),
      { concurrency: "unbounded" }
    )
    assert.strictEqual(claims.filter((won) => won).length, 1)
    const held = lease(["w1", "w2", "w3", "w4", "w5"][claims.indexOf(true)]!, at)
    assert.isFalse(yield* repo.claim(lease("w6", at), R.plus(at, "59 seconds")))
    // a release by someone else, or of an earlier lease, lets nothing go
    yield* repo.release(lease("w6", at), R.plus(at, "10 seconds"))
    yield* repo.release({ ...held, until: R.plus(at, "30 seconds") }, R.plus(at, "10 seconds"))
    assert.isFalse(yield* repo.claim(lease("w6", at), R.plus(at, "20 seconds")))
    // released: free at once
    yield* repo.release(held, R.plus(at, "20 seconds"))
    const next = lease("w6", R.plus(at, "20 seconds"))
    assert.isTrue(yield* repo.claim(next, R.plus(at, "20 seconds")))
    // never released (its holder died): free once it runs out
    assert.isFalse(yield* repo.claim(lease("w7", at), R.plus(at, "79 seconds")))
    assert.isTrue(yield* repo.claim(lease("w7", R.plus(at, "80 seconds")), R.plus(at, "80 seconds")))
  })

/** Runs `body`, then puts every limit of the corridor back to its default, whatever happened. */
const withLimits = <A, E, R>(
  direction: Corridor.Direction,
  change: CorridorLimit.LimitChange,
  body: Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const repo = yield* CorridorLimitRepo.CorridorLimitRepo
    yield* repo.set("production", direction, change, R.base)
    return yield* body
  }).pipe(
    Effect.ensuring(
      CorridorLimitRepo.CorridorLimitRepo.use((repo) =>
        repo.set("production", direction, { maxLockNotional: null, maxOpenNotional: null, maxNetDelta: null }, R.base)
      ).pipe(Effect.orDie)
    )
  )

const limitFigures = (c: CorridorLimit.CorridorLimit) => ({
  environment: c.environment,
  direction: c.direction,
  maxLockNotional: c.maxLockNotional === null ? null : Money.format(BigDecimal.normalize(c.maxLockNotional)),
  maxOpenNotional: c.maxOpenNotional === null ? null : Money.format(BigDecimal.normalize(c.maxOpenNotional)),
  maxNetDelta: c.maxNetDelta === null ? null : Money.format(BigDecimal.normalize(c.maxNetDelta)),
  openNotional: Money.format(BigDecimal.normalize(c.openNotional)),
  updatedAt: c.updatedAt === null ? null : DateTime.formatIso(c.updatedAt)
})

const limitTests = (it: It) =>
  describe("CorridorLimitRepo and the capacity of contract inserts", () => {
    it.effect("unset until set; set writes the limits given and keeps the others and the open notional", () =>
      Effect.gen(function* () {
        const repo = yield* CorridorLimitRepo.CorridorLimitRepo
        const direction = "EUR_TO_USD"
        assert.deepStrictEqual(
          limitFigures(yield* repo.find("production", direction)),
          limitFigures(CorridorLimit.unset("production", direction))
        )
        const scope = yield* newScope("production")
        yield* tryLock(lockQuote(scope, direction, "60.25"))
        const t1 = R.plus(R.base, Duration.minutes(1))
        const t2 = R.plus(R.base, Duration.minutes(2))
        const first = yield* repo.set("production", direction, { maxOpenNotional: R.dec("1000.50") }, t1)
        assert.deepStrictEqual(limitFigures(first), {
          environment: "production",
          direction,
          maxLockNotional: null,
          maxOpenNotional: "1000.5",
          maxNetDelta: null,
          openNotional: "60.25",
          updatedAt: DateTime.formatIso(t1)
        })
        const second = yield* repo.set(
          "production",
          direction,
          { maxNetDelta: R.dec("800"), maxLockNotional: R.dec("100") },
          t2
        )
        assert.deepStrictEqual(limitFigures(second), {
          ...limitFigures(first),
          maxNetDelta: "800",
          maxLockNotional: "100",
          updatedAt: DateTime.formatIso(t2)
        })
        const third = yield* repo.set("production", direction, { maxOpenNotional: null }, t2)
        assert.deepStrictEqual(limitFigures(third), { ...limitFigures(second), maxOpenNotional: null })
        assert.deepStrictEqual(limitFigures(yield* repo.find("production", direction)), limitFigures(third))
        assert.deepStrictEqual(
          (yield* repo.list())
            .filter((c) => c.environment === "production" && c.direction === direction)
            .map(limitFigures),
          [limitFigures(third)]
        )
        // the sandbox's corridor of the same direction is another corridor
        assert.strictEqual((yield* repo.find("sandbox", direction)).maxNetDelta, null)
        yield* repo.set("production", direction, { maxLockNotional: null, maxNetDelta: null }, t2)
      })
    )

    it.effect(
      "a holding contract takes its N_b (a QUOTE notional over the locked rate, rounded up to 6 decimals); leaving the holding statuses gives it back",
      () =>
        Effect.gen(function* () {
          const direction = "USD_TO_MXN"
          const scope = yield* newScope("production")
          const before = yield* openNotional("production", direction)
          assert.strictEqual(before, "0")
          const inUsd = yield* tryLock(lockQuote(scope, direction, "1000", { lockedRate: R.dec("18.5000") }))
          assert.strictEqual(yield* openNotional("production", direction), "1000")
          // 1000 MXN / 18.5 = 54.054054054… USD, counted as 54.054055
          const inMxn = yield* tryLock(
            lockQuote(scope, direction, "1000", { notionalCurrency: "MXN", lockedRate: R.dec("18.5000") })
          )
          assert.strictEqual(yield* openNotional("production", direction), "1054.054055")
          // within the holding statuses, and a transition that keeps the status, nothing moves
          const routed = yield* commitMove(inUsd, "funds_in_route", R.plus(R.base, Duration.minutes(1)))
          const active = yield* commitMove(routed, "active", R.plus(R.base, Duration.minutes(2)))
          const [emitted] = yield* emit(active, R.plus(R.base, Duration.minutes(3)))
          assert.strictEqual(yield* openNotional("production", direction), "1054.054055")
          yield* commitMove(emitted, "exercised", R.plus(R.base, Duration.minutes(4)))
          assert.strictEqual(yield* openNotional("production", direction), "54.054055")
          yield* commitMove(inMxn, "failed", R.plus(R.base, Duration.minutes(4)))
          assert.strictEqual(yield* openNotional("production", direction), "0")
          // a stale commit moves nothing
          const stale = yield* Effect.flip(
            (yield* ContractRepo.ContractRepo).commit(
              R.change(inMxn, R.moved(inMxn, "defaulted", R.plus(R.base, Duration.minutes(5))))
            )
          )
          assert.strictEqual(stale._tag, "StaleContract")
          assert.strictEqual(yield* openNotional("production", direction), "0")
          // a contract stored in a status that holds nothing takes nothing
          yield* tryLock(lockQuote(scope, direction, "5"), { status: "expired" })
          assert.strictEqual(yield* openNotional("production", direction), "0")
        })
    )

    it.effect(
      "a lock past a limit fails with CorridorCapacityExceeded and writes nothing; one that reaches it fits",
      () =>
        Effect.gen(function* () {
          const direction = "BRL_TO_USD"
          const scope = yield* newScope("production")
          const quotes = yield* QuoteRepo.QuoteRepo
          const contracts = yield* ContractRepo.ContractRepo
          yield* withLimits(
            direction,
            { maxOpenNotional: R.dec("1000") },
            Effect.gen(function* () {
              yield* tryLock(lockQuote(scope, direction, "600"))
              const tooMuch = lockQuote(scope, direction, "400.000001")
              const refused = yield* Effect.flip(tryLock(tooMuch))
              assert.strictEqual(refused._tag, "CorridorCapacityExceeded")
              assert.include(refused.message, "BRL_TO_USD")
              assert.isNull(Option.getOrThrow(yield* quotes.find(scope, tooMuch.id)).acceptedAt)
              assert.isTrue(Option.isNone(yield* contracts.findByQuote(scope, tooMuch.id)))
              assert.strictEqual(yield* openNotional("production", direction), "600")
              // the same quote fits once a smaller one is sold instead… and one reaching the limit fits
              const exact = yield* tryLock(lockQuote(scope, direction, "400"))
              assert.strictEqual(exact.status, "quote_created")
              assert.strictEqual(yield* openNotional("production", direction), "1000")
              // a second contract for an accepted quote is QuoteAlreadyAccepted, full corridor or not
              const again = yield* Effect.flip(
                contracts.insert(R.contract(Option.getOrThrow(yield* quotes.find(scope, exact.quoteId))))
              )
              assert.strictEqual(again._tag, "QuoteAlreadyAccepted")
              // the other environment's corridor is another corridor
              const sandbox = yield* newScope("sandbox")
              yield* tryLock(lockQuote(sandbox, direction, "5000"))
            })
          )
          yield* withLimits(
            direction,
            { maxNetDelta: R.dec("1000.000001") },
            Effect.gen(function* () {
              yield* tryLock(lockQuote(scope, direction, "0.000001"))
              const refused = yield* Effect.flip(tryLock(lockQuote(scope, direction, "0.000001")))
              assert.strictEqual(refused._tag, "CorridorCapacityExceeded")
            })
          )
          yield* withLimits(
            direction,
            { maxLockNotional: R.dec("50") },
            Effect.gen(function* () {
              const refused = yield* Effect.flip(tryLock(lockQuote(scope, direction, "50.000001")))
              assert.strictEqual(refused._tag, "CorridorCapacityExceeded")
              yield* tryLock(lockQuote(scope, direction, "50"))
            })
          )
          assert.strictEqual(yield* openNotional("production", direction), "1050.000001")
        })
    )

    it.effect(
      "50 concurrent inserts against the last 1,000 of a corridor: exactly 10 of 100 fit; what falls away is sold again",
      () =>
        Effect.gen(function* () {
          const direction = "BRL_TO_EUR"
          const scope = yield* newScope("production")
          const contracts = yield* ContractRepo.ContractRepo
          const quotes = Array.from({ length: 50 }, () => lockQuote(scope, direction, "100"))
          const quoteRepo = yield* QuoteRepo.QuoteRepo
          yield* Effect.forEach(quotes, (q) => quoteRepo.insert(q), { discard: true })
          yield* tryLock(lockQuote(scope, direction, "9000"))
          yield* withLimits(
            direction,
            { maxOpenNotional: R.dec("10000") },
            Effect.gen(function* () {
              const candidates = quotes.map((q) => R.contract(q))
              const exits = yield* Effect.forEach(candidates, (c) => Effect.exit(contracts.insert(c)), {
                concurrency: "unbounded"
              })
              const stored = candidates.filter((_, i) => Exit.isSuccess(exits[i]!))
              assert.strictEqual(stored.length, 10)
              assert.deepStrictEqual(
                [...new Set(exits.filter(Exit.isFailure).map(errorTag))],
                ["CorridorCapacityExceeded"]
              )
              assert.strictEqual(yield* openNotional("production", direction), "10000")
              for (const [i, c] of candidates.entries()) {
                assert.strictEqual(Option.isSome(yield* contracts.findById(c.id)), Exit.isSuccess(exits[i]!))
              }
              // three fall away (funding deadline passed): three of the refused fit now, and no more
              for (const c of stored.slice(0, 3)) yield* commitMove(c, "failed", R.plus(R.base, Duration.hours(2)))
              const refused = quotes.filter((_, i) => Exit.isFailure(exits[i]!))
              const retries = yield* Effect.forEach(refused, (q) => Effect.exit(contracts.insert(R.contract(q))), {
                concurrency: "unbounded"
              })
              assert.strictEqual(retries.filter(Exit.isSuccess).length, 3)
              assert.strictEqual(yield* openNotional("production", direction), "10000")
            })
          )
        })
    )
  })

// ---------------------------------------------------------------------------------------------
// The audit log and the store transaction
// ---------------------------------------------------------------------------------------------

/** An audit record of an actor of its own (each test filters on its actors, actions and targets). */
const auditRecord = (overrides: Partial<AuditRepo.AuditRecord> = {}): AuditRepo.AuditRecord => ({
  id: R.uuid(),
  at: R.base,
  via: "api",
  actor: `alice ${R.uuid()}`,
  tokenId: R.uuid(),
  role: "risk",
  action: "limits.set",
  targetKind: "corridor",
  targetId: "production:BRL_TO_USD",
  outcome: "ok",
  reason: null,
  before: { maxOpenNotional: null, openNotional: "60.25", nested: { list: [1, 2.5, "três", true, null] } },
  after: { maxOpenNotional: "1000.50", openNotional: "60.25" },
  requestId: "req-1",
  traceId: "0af7651916cd43dd8448eb211c80319c",
  clientAddress: "203.0.113.9",
  ...overrides
})

/** Newest first by `(at, id)`, as `AuditRepo.list` promises. */
const newestAudit = (records: ReadonlyArray<AuditRepo.AuditRecord>) =>
  [...records].sort((a, b) => R.byNewest({ createdAt: a.at, id: a.id }, { createdAt: b.at, id: b.id }))

const auditPosition = (record: AuditRepo.AuditRecord) => R.positionOf({ createdAt: record.at, id: record.id })

const auditTests = (it: It) =>
  describe("AuditRepo", () => {
    it.effect("append and list keep every field, the JSON before and after included; newest first, ties by id", () =>
      Effect.gen(function* () {
        const audit = yield* AuditRepo.AuditRepo
        const actor = `alice ${R.uuid()}`
        const t = R.at("2024-05-01T12:00:00.001Z")
        const records = [
          auditRecord({ actor, at: t }),
          auditRecord({
            actor,
            at: R.plusMillis(t, 1),
            outcome: "refused",
            reason: "invalid_fill: the rate must be above 0"
          }),
          auditRecord({ actor, at: R.plusMillis(t, 1), after: [1, "2", { three: 3 }], before: "a string" }),
          auditRecord({ actor, at: R.plusMillis(t, 1), before: 0, after: false }),
          auditRecord({
            actor,
            at: R.plusMillis(t, 2),
            via: "cli",
            tokenId: null,
            role: null,
            targetKind: "partner",
            targetId: null,
            outcome: "failed",
            reason: "internal: the service failed",
            before: null,
            after: null,
            requestId: null,
            traceId: null,
            clientAddress: null
          }),
          auditRecord({ actor, at: R.plusMillis(t, 3), outcome: "forbidden", role: "viewer", before: null })
        ]
        for (const record of records) yield* audit.append(record)
        assert.deepStrictEqual(R.plain(yield* audit.list({ actor, limit: 100 })), R.plain(newestAudit(records)))
      })
    )

    it.effect("a second record with a stored id fails with StoreError and changes nothing", () =>
      Effect.gen(function* () {
        const audit = yield* AuditRepo.AuditRepo
        const first = auditRecord()
        yield* audit.append(first)
        const twin = auditRecord({ id: first.id })
        assert.strictEqual(errorTag(yield* Effect.exit(audit.append(twin))), "StoreError")
        assert.deepStrictEqual(yield* audit.list({ actor: twin.actor, limit: 10 }), [])
        assert.deepStrictEqual(R.plain(yield* audit.list({ actor: first.actor, limit: 10 })), R.plain([first]))
      })
    )

    it.effect("filters by actor, action, target and since (at or after), alone and together", () =>
      Effect.gen(function* () {
        const audit = yield* AuditRepo.AuditRepo
        const [actorA, actorB] = [`alice ${R.uuid()}`, `bob ${R.uuid()}`]
        const [actionX, actionY] = [`test.x${R.uuid()}`, `test.y${R.uuid()}`]
        const [targetT, targetU] = [R.uuid(), R.uuid()]
        const t = R.at("2024-05-01T13:00:00.000Z")
        const a1 = auditRecord({ actor: actorA, action: actionX, targetId: targetT, at: t })
        const a2 = auditRecord({ actor: actorA, action: actionY, targetId: targetU, at: R.plus(t, "1 second") })
        const a3 = auditRecord({ actor: actorB, action: actionX, targetId: targetT, at: R.plus(t, "2 seconds") })
        const a4 = auditRecord({ actor: actorB, action: actionX, targetId: null, at: R.plus(t, "3 seconds") })
        for (const record of [a3, a1, a4, a2]) yield* audit.append(record)
        const ids = (query: Omit<AuditRepo.AuditQuery, "limit">) =>
          Effect.map(audit.list({ ...query, limit: 100 }), idsOf)
        assert.deepStrictEqual(yield* ids({ actor: actorA }), idsOf([a2, a1]))
        assert.deepStrictEqual(yield* ids({ action: actionX }), idsOf([a4, a3, a1]))
        assert.deepStrictEqual(yield* ids({ target: targetT }), idsOf([a3, a1]))
        assert.deepStrictEqual(yield* ids({ actor: actorB, action: actionX }), idsOf([a4, a3]))
        assert.deepStrictEqual(yield* ids({ action: actionX, since: R.plus(t, "2 seconds") }), idsOf([a4, a3]))
        assert.deepStrictEqual(yield* ids({ action: actionX, since: R.plusMillis(t, 2001) }), idsOf([a4]))
        assert.deepStrictEqual(yield* ids({ actor: actorA, action: actionX, target: targetT, since: t }), idsOf([a1]))
        assert.deepStrictEqual(yield* ids({ actor: actorA, target: targetT, since: R.plusMillis(t, 1) }), [])
        assert.deepStrictEqual(yield* ids({ actor: `nobody ${R.uuid()}` }), [])
      })
    )

    it.effect("keyset pages: chained pages never skip or repeat a record, ties included; limit caps a page", () =>
      Effect.gen(function* () {
        const audit = yield* AuditRepo.AuditRepo
        const actor = `carol ${R.uuid()}`
        const t = R.at("2024-05-01T14:00:00.000Z")
        // 11 records over 5 instants: ties on `at` are ordered by id
        const records = Array.from({ length: 11 }, (_, i) => auditRecord({ actor, at: R.plusMillis(t, i % 5) }))
        for (const record of records) yield* audit.append(record)
        const expected = newestAudit(records)
        const seen: Array<AuditRepo.AuditRecord> = []
        let after: ReturnType<typeof auditPosition> | undefined
        for (let page = 0; page < 10; page++) {
          const rows = yield* audit.list({ actor, after, limit: 3 })
          assert.isAtMost(rows.length, 3)
          if (rows.length === 0) break
          seen.push(...rows)
          after = auditPosition(rows[rows.length - 1]!)
        }
        assert.deepStrictEqual(idsOf(seen), idsOf(expected))
        // a page from the middle, with another filter, and limits
        const middle = expected[4]!
        assert.deepStrictEqual(
          idsOf(yield* audit.list({ actor, after: auditPosition(middle), limit: 100 })),
          idsOf(expected.slice(5))
        )
        assert.deepStrictEqual(
          idsOf(yield* audit.list({ actor, since: R.plusMillis(t, 2), after: auditPosition(middle), limit: 100 })),
          idsOf(expected.slice(5).filter((r) => r.at.epochMilliseconds >= t.epochMilliseconds + 2))
        )
        assert.deepStrictEqual(idsOf(yield* audit.list({ actor, limit: 4 })), idsOf(expected.slice(0, 4)))
        assert.deepStrictEqual(yield* audit.list({ actor, limit: 0 }), [])
        assert.deepStrictEqual(yield* audit.list({ actor, after: auditPosition(expected.at(-1)!), limit: 10 }), [])
      })
    )

    it.effect("without a filter, the newest records of the whole log come first", () =>
      Effect.gen(function* () {
        const audit = yield* AuditRepo.AuditRepo
        // a span of time no other test writes in
        const t = R.at("2099-01-01T00:00:00.000Z")
        const records = [0, 1, 2].map((i) => auditRecord({ at: R.plus(t, Duration.days(i)) }))
        for (const record of records) yield* audit.append(record)
        assert.deepStrictEqual(idsOf(yield* audit.list({ limit: 2 })), idsOf([records[2]!, records[1]!]))
        assert.deepStrictEqual(
          idsOf(yield* audit.list({ since: R.plus(t, Duration.days(1)), limit: 10 })),
          idsOf([records[2]!, records[1]!])
        )
      })
    )
  })

class Refused extends Schema.TaggedError<Refused>()("Refused", { message: Schema.String }) {}

/** A corridor's limits as the tests compare them, and the audit records of an actor. */
const stored = (direction: Corridor.Direction, actor: string) =>
  Effect.gen(function* () {
    const limit = yield* (yield* CorridorLimitRepo.CorridorLimitRepo).find("sandbox", direction)
    const records = yield* (yield* AuditRepo.AuditRepo).list({ actor, limit: 10 })
    return { maxOpenNotional: limitFigures(limit).maxOpenNotional, audit: idsOf(records) }
  })

/** Puts a sandbox corridor's limits back to their defaults. */
const unsetLimits = (direction: Corridor.Direction) =>
  CorridorLimitRepo.CorridorLimitRepo.use((repo) =>
    repo.set("sandbox", direction, { maxLockNotional: null, maxOpenNotional: null, maxNetDelta: null }, R.base)
  ).pipe(Effect.orDie)

const transactionTests = (it: It) =>
  describe("StoreTransaction", () => {
    it.effect(
      "a program that writes through two repositories and then fails leaves neither; its error is its own",
      () =>
        Effect.gen(function* () {
          const transaction = yield* StoreTransaction.StoreTransaction
          const limits = yield* CorridorLimitRepo.CorridorLimitRepo
          const audit = yield* AuditRepo.AuditRepo
          const direction = "NGN_TO_USD"
          const record = auditRecord({ targetId: `sandbox:${direction}` })
          const exit = yield* Effect.exit(
            transaction.run(
              Effect.gen(function* () {
                yield* limits.set("sandbox", direction, { maxOpenNotional: R.dec("5000") }, R.base)
                yield* audit.append(record)
                // inside, the program sees its own writes
                assert.deepStrictEqual(yield* stored(direction, record.actor), {
                  maxOpenNotional: "5000",
                  audit: [record.id]
                })
                return yield* new Refused({ message: "a rule said no" })
              })
            )
          )
          assert.strictEqual(errorTag(exit), "Refused")
          assert.deepStrictEqual(yield* stored(direction, record.actor), { maxOpenNotional: null, audit: [] })
        }).pipe(Effect.ensuring(unsetLimits("NGN_TO_USD")))
    )

    it.effect("a program that succeeds leaves both writes, and answers its value", () =>
      Effect.gen(function* () {
        const transaction = yield* StoreTransaction.StoreTransaction
        const limits = yield* CorridorLimitRepo.CorridorLimitRepo
        const audit = yield* AuditRepo.AuditRepo
        const direction = "USD_TO_EUR"
        const record = auditRecord({ targetId: `sandbox:${direction}` })
        const value = yield* transaction.run(
          Effect.gen(function* () {
            const set = yield* limits.set("sandbox", direction, { maxOpenNotional: R.dec("7000.25") }, R.base)
            yield* audit.append(record)
            return Money.format(set.maxOpenNotional!)
          })
        )
        assert.strictEqual(value, "7000.25")
        assert.deepStrictEqual(yield* stored(direction, record.actor), {
          maxOpenNotional: "7000.25",
          audit: [record.id]
        })
      }).pipe(Effect.ensuring(unsetLimits("USD_TO_EUR")))
    )

    it.effect("a nested run that fails and is caught is rolled back alone: the outer run's writes stand", () =>
      Effect.gen(function* () {
        const transaction = yield* StoreTransaction.StoreTransaction
        const limits = yield* CorridorLimitRepo.CorridorLimitRepo
        const audit = yield* AuditRepo.AuditRepo
        const direction = "BRL_TO_MXN"
        const actor = `dave ${R.uuid()}`
        const [first, nested, last] = [0, 1, 2].map((i) => auditRecord({ actor, at: R.plusMillis(R.base, i) }))
        yield* transaction.run(
          Effect.gen(function* () {
            yield* limits.set("sandbox", direction, { maxOpenNotional: R.dec("100") }, R.base)
            yield* audit.append(first!)
            const inner = yield* Effect.exit(
              transaction.run(
                Effect.gen(function* () {
                  yield* audit.append(nested!)
                  yield* limits.set("sandbox", direction, { maxOpenNotional: R.dec("999") }, R.base)
                  assert.deepStrictEqual(yield* stored(direction, actor), {
                    maxOpenNotional: "999",
                    audit: [nested!.id, first!.id]
                  })
                  return yield* new Refused({ message: "the nested step said no" })
                })
              )
            )
            assert.strictEqual(errorTag(inner), "Refused")
            // rolled back to where the nested run began, and the transaction goes on
            assert.deepStrictEqual(yield* stored(direction, actor), { maxOpenNotional: "100", audit: [first!.id] })
            yield* audit.append(last!)
            // a nested run that succeeds keeps its writes in the outer transaction
            yield* transaction.run(limits.set("sandbox", direction, { maxOpenNotional: R.dec("150") }, R.base))
          })
        )
        assert.deepStrictEqual(yield* stored(direction, actor), {
          maxOpenNotional: "150",
          audit: [last!.id, first!.id]
        })
      }).pipe(Effect.ensuring(unsetLimits("BRL_TO_MXN")))
    )
  })

// ---------------------------------------------------------------------------------------------
// Daily closes
// ---------------------------------------------------------------------------------------------

/** What a list gives of a close. */
const summaryOf = ({ snapshot: _, locks: __, ...summary }: DailyClose.DailyClose): DailyClose.CloseSummary => summary

/** A close as the store gives it back: its locks by contract id. */
const asStored = (close: DailyClose.DailyClose): DailyClose.DailyClose => ({
  ...close,
  locks: [...close.locks].sort((a, b) => (a.contract_id < b.contract_id ? -1 : 1))
})

/** The stored close, plain (null when there is none). */
const storedClose = (id: string) =>
  Effect.flatMap(DailyCloseRepo.DailyCloseRepo, (closes) =>
    Effect.map(closes.find(id), (found) => R.plain(Option.getOrNull(found)))
  )

/** Commits a transition of `c` (same status) at `when` booking `amount` received: the contract after it, and its entries. */
const bookFunds = (c: Contract.ContractRecord, when: DateTime.Utc, amount: string) =>
  Effect.gen(function* () {
    const after = R.moved(c, c.status, when)
    const ledger = R.ledgerPair(after, "funds_received", "funding_wallet", "partner_prepayment", amount, when)
    yield* (yield* ContractRepo.ContractRepo).commit(R.change(c, after, { ledger }))
    return [after, ledger] as const
  })

const closeTests = (it: It, store: Layer.Layer<Repos, unknown>) =>
  describe("DailyCloseRepo", () => {
    it.effect(
      "insert, find and latest give the whole close back: doubles to the bit, decimals with their scale, locks by contract",
      () =>
        Effect.gen(function* () {
          const closes = yield* DailyCloseRepo.DailyCloseRepo
          const t = R.closeEpoch()
          // an environment's first close: no P&L, no earlier close, the illustrative snapshot, no lock open
          const first = R.dailyClose("sandbox", t, { previous_close_id: null, pnl: null, snapshot_id: null, locks: [] })
          const odd = R.closeLock({
            mtm: Number.NaN,
            delta: Number.POSITIVE_INFINITY,
            gamma: Number.NEGATIVE_INFINITY,
            vega: Number.MAX_VALUE,
            theta: -Number.MIN_VALUE,
            vol: -0
          })
          const second = R.dailyClose("sandbox", R.plus(t, "1 day"), { previous_close_id: first.id })
          const withOdd = { ...second, locks: [...second.locks, odd] }
          assert.isTrue(yield* closes.insert(first))
          assert.isTrue(yield* closes.insert(withOdd))
          assert.deepStrictEqual(yield* storedClose(first.id), R.plain(first))
          assert.deepStrictEqual(yield* storedClose(withOdd.id), R.plain(asStored(withOdd)))
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* closes.latest("sandbox"))), R.plain(asStored(withOdd)))
          assert.isTrue(Option.isNone(yield* closes.find(R.uuid())))
          assert.isTrue(Option.isNone(yield* closes.find("not a close")))

          // of two closes at one instant, the latest is the greater id
          const production = [R.dailyClose("production", t), R.dailyClose("production", t, { scheduled_for: null })]
          yield* Effect.forEach(production, closes.insert, { discard: true })
          const greater = [...production].sort((a, b) => (a.id < b.id ? -1 : 1))[1]!
          assert.strictEqual(Option.getOrThrow(yield* closes.latest("production")).id, greater.id)
          assert.strictEqual(Option.getOrThrow(yield* closes.latest("sandbox")).id, withOdd.id)
        })
    )

    it.effect("list: an environment's summaries with closed_at in [from, to], oldest first by (closed_at, id)", () =>
      Effect.gen(function* () {
        const closes = yield* DailyCloseRepo.DailyCloseRepo
        const t = R.closeEpoch()
        const day = (n: number) => R.plus(t, Duration.days(n))
        const sandbox = [
          R.dailyClose("sandbox", day(0)),
          R.dailyClose("sandbox", day(1)),
          R.dailyClose("sandbox", day(1), { scheduled_for: null }),
          R.dailyClose("sandbox", day(2), { locks: [] })
        ]
        const production = R.dailyClose("production", day(1))
        yield* Effect.forEach([...sandbox, production], closes.insert, { discard: true })
        const inOrder = [sandbox[0]!, ...sandbox.slice(1, 3).sort((a, b) => (a.id < b.id ? -1 : 1)), sandbox[3]!]

        const listed = yield* closes.list({ environment: "sandbox", from: t })
        assert.deepStrictEqual(R.plain(listed), R.plain(inOrder.map(summaryOf)))
        const ids = (query: { from?: DateTime.Utc; to?: DateTime.Utc }) =>
          Effect.map(closes.list({ environment: "sandbox", ...query }), idsOf)
        assert.deepStrictEqual(yield* ids({ from: day(1), to: day(1) }), idsOf(inOrder.slice(1, 3)))
        assert.deepStrictEqual(
          yield* ids({ from: R.plusMillis(day(0), 1), to: R.plusMillis(day(2), -1) }),
          idsOf(inOrder.slice(1, 3))
        )
        assert.deepStrictEqual((yield* ids({ to: day(0) })).slice(-1), [sandbox[0]!.id])
        assert.deepStrictEqual(yield* ids({ from: R.plusMillis(day(2), 1) }), [])
        assert.deepStrictEqual(idsOf(yield* closes.list({ environment: "production", from: t })), [production.id])

        assert.isTrue(yield* closes.hasScheduled("sandbox", day(1)))
        assert.isFalse(yield* closes.hasScheduled("sandbox", R.plusMillis(day(1), 1)))
        assert.isFalse(yield* closes.hasScheduled("production", day(0)))
      })
    )

    it.effect(
      "one close per cut: a second of the environment's cut answers false and writes nothing; an operator's always stores",
      () =>
        Effect.gen(function* () {
          const closes = yield* DailyCloseRepo.DailyCloseRepo
          const t = R.closeEpoch()
          const scheduled = R.dailyClose("production", t)
          assert.isTrue(yield* closes.insert(scheduled))
          // closed later, for the same cut: refused, nothing of it kept, and the first stays whole
          const again = R.dailyClose("production", R.plus(t, "5 minutes"), { scheduled_for: t })
          assert.isFalse(yield* closes.insert(again))
          assert.isNull(yield* storedClose(again.id))
          assert.deepStrictEqual(yield* storedClose(scheduled.id), R.plain(asStored(scheduled)))
          assert.strictEqual(Option.getOrThrow(yield* closes.latest("production")).id, scheduled.id)
          // the same close once more (a worker trying again) is the same answer
          assert.isFalse(yield* closes.insert(scheduled))
          // the other environment's cut is its own
          assert.isTrue(yield* closes.insert(R.dailyClose("sandbox", t)))
          // an operator's closes, at one instant: each stored
          const operator = [1, 2].map(() => R.dailyClose("production", t, { scheduled_for: null }))
          for (const close of operator) assert.isTrue(yield* closes.insert(close))
          assert.deepStrictEqual(
            sorted(idsOf(yield* closes.list({ environment: "production", from: t, to: t }))),
            sorted(idsOf([scheduled, ...operator]))
          )
          // a stored id is an error, and its cut stays free
          const clash = { ...R.dailyClose("production", R.plus(t, "1 day")), id: scheduled.id }
          assert.strictEqual(errorTag(yield* Effect.exit(closes.insert(clash))), "StoreError")
          assert.isFalse(yield* closes.hasScheduled("production", R.plus(t, "1 day")))

          // eight workers closing one cut at once: one close is stored
          const cut = R.plus(t, "2 days")
          const racers = Array.from({ length: 8 }, () => R.dailyClose("production", cut))
          const stored = yield* Effect.forEach(racers, closes.insert, { concurrency: "unbounded" })
          assert.strictEqual(stored.filter(Boolean).length, 1)
          const winner = racers[stored.indexOf(true)]!
          assert.deepStrictEqual(idsOf(yield* closes.list({ environment: "production", from: cut })), [winner.id])
          assert.deepStrictEqual(yield* storedClose(winner.id), R.plain(asStored(winner)))
        })
    )

    it.effect("a close whose locks fail midway writes nothing: no close, no lock, its cut free; whole, it stores", () =>
      Effect.gen(function* () {
        const closes = yield* DailyCloseRepo.DailyCloseRepo
        const t = R.closeEpoch()
        const locks = Array.from({ length: 6_000 }, (_, n) =>
          R.closeLock({ contract_id: `contract-${String(n).padStart(5, "0")}`, mtm: n / 7, vol: Math.sqrt(n) / 10 })
        )
        // the last lock names the first's contract again: on SQL the first 5,000 are written before it fails
        const twice = [...locks.slice(0, -1), { ...locks.at(-1)!, contract_id: locks[0]!.contract_id }]
        const broken = R.dailyClose("sandbox", t, { locks: twice })
        assert.strictEqual(errorTag(yield* Effect.exit(closes.insert(broken))), "StoreError")
        assert.isNull(yield* storedClose(broken.id))
        assert.isFalse(yield* closes.hasScheduled("sandbox", t))

        // given in any order, stored by contract id, each double as it was
        const whole = { ...broken, locks: [...locks].reverse() }
        assert.isTrue(yield* closes.insert(whole))
        assert.deepStrictEqual(yield* storedClose(whole.id), R.plain({ ...whole, locks }))
      })
    )

    it.effect(
      "the lease on closing: one holder at a time, of concurrent claims one wins; released or run out, it is free",
      () => Effect.flatMap(DailyCloseRepo.DailyCloseRepo, (repo) => assertSingleLease(repo, R.closeEpoch()))
    )

    it.effect(
      "contractFlows: the environment's contract ledger in (after, until], in booking order, with corridors",
      () =>
        Effect.gen(function* () {
          const closes = yield* DailyCloseRepo.DailyCloseRepo
          const t = R.closeEpoch()
          const scope = yield* newScope()
          const brl = yield* seedContract(scope)
          const mxn = yield* seedContract(scope, { direction: "BRL_TO_MXN" })
          const elsewhere = yield* seedContract(yield* newScope("production"))
          const flows = (c: Contract.ContractRecord, entries: ReadonlyArray<Ledger.LedgerEntry>) =>
            entries.map((e) => ({ ...e, direction: c.direction }))
          // booked in this order; `at` is not the booking order
          const [brl1, before] = yield* bookFunds(brl, R.plusMillis(t, -1), "1.000000")
          const [mxn1, atAfter] = yield* bookFunds(mxn, t, "2.000000")
          const [, atUntil] = yield* bookFunds(mxn1, R.plusMillis(t, 5), "3.000000")
          const [brl2, inside] = yield* bookFunds(brl1, R.plusMillis(t, 1), "4.000000")
          const [, production] = yield* bookFunds(elsewhere, R.plusMillis(t, 2), "5.000000")
          yield* bookFunds(brl2, R.plusMillis(t, 6), "6.000000")

          const until = R.plusMillis(t, 5)
          assert.deepStrictEqual(
            R.plain(yield* closes.contractFlows({ environment: "sandbox", after: t, until })),
            R.plain([...flows(mxn, atUntil), ...flows(brl, inside)])
          )
          // no lower bound: every earlier entry too (the other tests' among them)
          const mine = new Set([brl.id, mxn.id])
          const all = yield* closes.contractFlows({ environment: "sandbox", until })
          assert.deepStrictEqual(
            R.plain(all.filter((f) => mine.has(f.contractId))),
            R.plain([...flows(brl, before), ...flows(mxn, atAfter), ...flows(mxn, atUntil), ...flows(brl, inside)])
          )
          assert.deepStrictEqual(
            R.plain(yield* closes.contractFlows({ environment: "production", after: t, until })),
            R.plain(flows(elsewhere, production))
          )
          assert.deepStrictEqual(yield* closes.contractFlows({ environment: "sandbox", after: until, until }), [])
        })
    )

    it.effect(
      "trialBalance: per ledger, account and currency, the environment's entries at or before until, summed exactly",
      () =>
        Effect.gen(function* () {
          const t = R.closeEpoch()
          const settledAt = R.plus(t, "1 hour")
          // an empty store: the balances are this test's entries alone
          const [atSettlement, beforeIt] = yield* Effect.gen(function* () {
            const closes = yield* DailyCloseRepo.DailyCloseRepo
            const contracts = yield* ContractRepo.ContractRepo
            const movements = yield* MovementRepo.MovementRepo
            const orders = yield* HedgeOrderRepo.HedgeOrderRepo

            // the contracts' ledger: a forward funded, then settled with a payout in BRLA
            const c = yield* seedContract(yield* newScope(), {
              contractType: "forward",
              depositAmount: R.dec("100.000000")
            })
            const active = R.moved(c, "active", t, { fundedAmount: R.dec("112.345678") })
            yield* contracts.commit(
              R.change(c, active, {
                ledger: [
                  ...R.ledgerPair(active, "funds_received", "funding_wallet", "partner_prepayment", "112.345678", t),
                  ...R.ledgerPair(active, "premium_received", "partner_prepayment", "premium_income", "12.345678", t),
                  ...R.ledgerPair(active, "deposit_held", "partner_prepayment", "deposits_held", "100.000000", t)
                ]
              })
            )
            const settled = R.moved(active, "settled", settledAt)
            yield* contracts.commit(
              R.change(active, settled, {
                ledger: [
                  ...R.ledgerPair(
                    settled,
                    "payout_paid",
                    "payout_expense",
                    "payout_wallet",
                    "29.60",
                    settledAt,
                    "BRLA"
                  ),
                  ...R.ledgerPair(
                    settled,
                    "deposit_released",
                    "deposits_held",
                    "refunds_payable",
                    "100.000000",
                    settledAt
                  )
                ]
              })
            )
            // later than `until`, and in the other environment: not counted
            yield* bookFunds(yield* seedContract(yield* newScope()), R.plusMillis(settledAt, 1), "7.000000")
            yield* bookFunds(yield* seedContract(yield* newScope("production")), t, "8.000000")

            // the treasury's ledger: an owner's inflow and a fee, then the deposit's refund
            yield* movements.book([
              ...treasuryTransfer(c, "owner_funding", "payout_wallet", "500.000000", { at: t }),
              ...treasuryTransfer(c, "payout_wallet", "network_fees", "0.001234567890123456", {
                currency: "POL",
                kind: "network_fee",
                at: t
              }),
              ...treasuryTransfer(c, "payout_wallet", "refunds_payable", "100.000000", {
                kind: "refund",
                at: settledAt
              })
            ])

            // the hedges' ledger: a sell, then a buy, of USD/BRL; a fill in production is not counted
            const fill = (
              environment: Partner.Environment,
              at: DateTime.Utc,
              side: "buy" | "sell",
              amount: string,
              rate: string
            ) =>
              Effect.gen(function* () {
                const policy = hedgePolicy(environment, "USD/BRL")
                yield* (yield* HedgePolicyRepo.HedgePolicyRepo).upsert(policy)
                const order = hedgeOrder(policy, at, { side, amount: R.dec(amount) })
                assert.isTrue(yield* orders.insertIntended(order, yield* leaseOf(policy, at)))
                const filled = filledAt(order, rate, at)
                assert.isTrue(yield* orders.update(filled, order, HedgeLedger.hedgeFillEntries(filled)))
              })
            // each decision under a lease of its own: the one before has run out
            yield* fill("sandbox", t, "sell", "120000.00", "5.41235")
            yield* fill("sandbox", R.plus(t, "2 minutes"), "buy", "20000.25", "5.4")
            yield* fill("production", t, "buy", "1.00", "5.5")

            return [
              yield* closes.trialBalance({ environment: "sandbox", until: settledAt }),
              yield* closes.trialBalance({ environment: "sandbox", until: R.plusMillis(settledAt, -1) })
            ] as const
          }).pipe(Effect.provide(Layer.fresh(store)))

          const balance = (
            ledger: DailyClose.LedgerBalance["ledger"],
            account: string,
            currency: string,
            sum: string
          ) => `${ledger} ${account} ${currency} ${sum}`
          const text = (balances: ReadonlyArray<DailyClose.LedgerBalance>) =>
            balances.map((b) => balance(b.ledger, b.account, b.currency, Money.format(b.balance)))
          const hedges = [
            balance("hedges", "hedge_position", "BRL", "541480.6500000"),
            balance("hedges", "hedge_position", "USD", "-99999.75"),
            balance("hedges", "hedge_venue", "BRL", "-541480.6500000"),
            balance("hedges", "hedge_venue", "USD", "99999.75")
          ]
          const fees = [
            balance("treasury", "network_fees", "POL", "0.001234567890123456"),
            balance("treasury", "owner_funding", "USDC", "-500.000000"),
            balance("treasury", "payout_wallet", "POL", "-0.001234567890123456")
          ]
          // partner_prepayment and (at the settlement) deposits_held sum to zero: left out
          assert.deepStrictEqual(text(atSettlement), [
            balance("contracts", "funding_wallet", "USDC", "112.345678"),
            balance("contracts", "payout_expense", "BRLA", "29.60"),
            balance("contracts", "payout_wallet", "BRLA", "-29.60"),
            balance("contracts", "premium_income", "USDC", "-12.345678"),
            balance("contracts", "refunds_payable", "USDC", "-100.000000"),
            ...hedges,
            ...fees,
            balance("treasury", "payout_wallet", "USDC", "400.000000"),
            balance("treasury", "refunds_payable", "USDC", "100.000000")
          ])
          // a millisecond before the settlement: the deposit held, nothing paid out or refunded yet
          assert.deepStrictEqual(text(beforeIt), [
            balance("contracts", "deposits_held", "USDC", "-100.000000"),
            balance("contracts", "funding_wallet", "USDC", "112.345678"),
            balance("contracts", "premium_income", "USDC", "-12.345678"),
            ...hedges,
            ...fees,
            balance("treasury", "payout_wallet", "USDC", "500.000000")
          ])
        })
    )
  })

export const suite = (name: string, store: Layer.Layer<Repos, unknown>): void =>
  // opening PGlite and migrating it can outlast the default 10 s hook on a busy machine
  layer(store, { excludeTestServices: true, timeout: Duration.seconds(60) })(name, (it) => {
    quoteTests(it)
    contractTests(it)
    commitTests(it)
    fundingTests(it)
    unmatchedTests(it)
    contractClaimTests(it)
    eventTests(it)
    outboxTests(it)
    idempotencyTests(it)
    payoutTests(it)
    nonceTests(it)
    movementTests(it)
    movementSigningTests(it)
    treasuryTests(it)
    balanceTests(it)
    reconciliationTests(it)
    partnerTests(it, store)
    inboxTests(it)
    snapshotTests(it)
    limitTests(it)
    hedgeTests(it)
    operatorTokenTests(it)
    heartbeatTests(it)
    hotWalletTests(it)
    backlogTests(it)
    failingTests(it)
    riskTests(it)
    auditTests(it)
    transactionTests(it)
    closeTests(it, store)
  })
