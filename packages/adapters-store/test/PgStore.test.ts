/**
 * The Postgres store against a real server (a fresh database per group, skipped without
 * `DATABASE_URL`) and against embedded PGlite (always): round trips, tenancy, keyset lists, the
 * commit's compare-and-set and rollback, races (quote acceptance, commits, idempotency claims,
 * funding indexes) and leased claims taken by concurrent fibers.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import {
  AuditRepo,
  type Contract,
  ContractRepo,
  CorridorLimitRepo,
  DailyCloseRepo,
  EventRepo,
  IdempotencyRepo,
  type Ledger,
  type Lease,
  MarketSnapshot,
  MarketSnapshotRepo,
  Money,
  MovementRepo,
  OperatorTokenRepo,
  type Partner,
  PartnerRepo,
  PayoutRepo,
  type Quote,
  QuoteRepo,
  TreasuryLedger
} from "@ratelock/core"
import * as PgliteTemplate from "@ratelock/test-support/PgliteTemplate"
import * as Postgres from "@ratelock/test-support/Postgres"
import { PgMigrator } from "@effect/sql-pg"
import { Array as Arr, Cause, ConfigProvider, DateTime, Duration, Effect, Exit, Layer, Option } from "effect"
import { Digest } from "effect/crypto"
import { SqlClient, type SqlError } from "effect/sql"
import { contractRow, historyRows, ledgerRow } from "../src/internal/rows/contracts.ts"
import { payoutRow } from "../src/internal/rows/payouts.ts"
import { quoteRow } from "../src/internal/rows/quotes.ts"
import { unmatchedRow } from "../src/internal/rows/unmatched.ts"
import * as EmbeddedStore from "../src/EmbeddedStore.ts"
import * as PgContractRepo from "../src/PgContractRepo.ts"
import * as PgCorridorLimitRepo from "../src/PgCorridorLimitRepo.ts"
import * as PgPartnerRepo from "../src/PgPartnerRepo.ts"
import * as PgQuoteRepo from "../src/PgQuoteRepo.ts"
import * as PgliteClient from "../src/PgliteClient.ts"
import * as PgMarketSnapshotRepo from "../src/PgMarketSnapshotRepo.ts"
import * as PgMovementRepo from "../src/PgMovementRepo.ts"
import * as PgOperatorTokenRepo from "../src/PgOperatorTokenRepo.ts"
import * as PgPayoutRepo from "../src/PgPayoutRepo.ts"
import * as PgMigrations from "../src/PgMigrations.ts"
import * as PgStore from "../src/PgStore.ts"
import { suite } from "./StoreContract.ts"
import * as R from "./support/records.ts"

// ---------------------------------------------------------------------------------------------
// fixtures

const at = (iso: string): DateTime.Utc => DateTime.makeUnsafe(iso)
const shift = (from: DateTime.Utc, ms: number): DateTime.Utc => DateTime.makeUnsafe(from.epochMilliseconds + ms)
const uuid = (): string => crypto.randomUUID()
const sandbox = (): Partner.PartnerScope => ({ partnerId: uuid(), environment: "sandbox" })
const t0 = at("2026-03-02T10:00:00.000Z")
const minute = 60_000

/** A canonical form that tells decimals apart by scale and instants by millisecond. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

const quoteRecord = (scope: Partner.PartnerScope, overrides: Partial<Quote.QuoteRecord> = {}): Quote.QuoteRecord => ({
  id: uuid(),
  partnerId: scope.partnerId,
  environment: scope.environment,
  customerReferenceId: "customer-1",
  customerName: "Ana",
  contractType: "option",
  direction: "USD_TO_BRL",
  notionalCurrency: "USD",
  notionalAmount: Money.unsafe("10000.00"),
  providerRate: Money.unsafe("5.4000"),
  marketRate: Money.unsafe("5.41"),
  marketRateTimestamp: shift(t0, -1500),
  strikeMode: "custom",
  targetStrike: Money.unsafe("5.5000000001"),
  providerExtraSpread: Money.unsafe("0.0010"),
  status: "created",
  failureReason: null,
  lockedRate: Money.unsafe("5.4424"),
  strikeAdvantageBps: 12,
  premiumAmount: Money.unsafe("105.000000"),
  depositAmount: null,
  totalAmount: Money.unsafe("105.000000"),
  maxTransactionAmount: Money.unsafe("10000"),
  windowStart: shift(t0, 10 * 86_400_000),
  windowEnd: shift(t0, 20 * 86_400_000),
  chain: "solana",
  settlementCurrency: "USDC",
  expiresAt: shift(t0, 90_000),
  createdAt: t0,
  acceptedAt: null,
  snapshotId: null,
  pricingInputs: null,
  ...overrides
})

const contractRecord = (
  quote: Quote.QuoteRecord,
  overrides: Partial<Contract.ContractRecord> = {}
): Contract.ContractRecord => {
  const createdAt = overrides.createdAt ?? shift(quote.createdAt, 1000)
  return {
    id: uuid(),
    partnerId: quote.partnerId,
    environment: quote.environment,
    quoteId: quote.id,
    serviceContractReference: `RL-${uuid().slice(0, 8)}`,
    customerReferenceId: quote.customerReferenceId,
    partnerTransactionReference: null,
    contractType: quote.contractType,
    direction: quote.direction,
    notionalCurrency: quote.notionalCurrency,
    notionalAmount: quote.notionalAmount,
    lockedRate: quote.lockedRate,
    providerRateAtLock: quote.providerRate,
    marketRateAtLock: quote.marketRate,
    premiumAmount: quote.premiumAmount,
    depositAmount: quote.depositAmount,
    totalAmount: quote.totalAmount,
    maxTransactionAmount: quote.maxTransactionAmount,
    windowStart: quote.windowStart,
    windowEnd: quote.windowEnd,
    chain: quote.chain,
    settlementCurrency: quote.settlementCurrency,
    fundingWalletAddress: `Fund${uuid().replaceAll("-", "")}`,
    fundingIndex: null,
    fundedAmount: Money.zero,
    fundingDeadline: shift(createdAt, 60 * minute),
    status: "quote_created",
    exercise: null,
    eventSequence: 0,
    history: [{ status: "quote_created", at: createdAt, cause: "contract created from quote" }],
    createdAt,
    updatedAt: createdAt,
    ...overrides
  }
}

/** `c` after one transition to `status` at `when` (an event raises the sequence). */
const moved = (
  c: Contract.ContractRecord,
  status: Contract.ContractStatus,
  when: DateTime.Utc,
  patch: Partial<Contract.ContractRecord> = {}
): Contract.ContractRecord => ({
  ...c,
  ...patch,
  status,
  history: [...c.history, { status, at: when, cause: `moved to ${status}` }],
  updatedAt: when
})

const change = (
  before: Contract.ContractRecord,
  after: Contract.ContractRecord,
  parts: Partial<ContractRepo.ContractChange> = {}
): ContractRepo.ContractChange => ({
  contract: after,
  expectedVersion: ContractRepo.version(before),
  outgoing: null,
  incoming: null,
  transfer: null,
  ledger: [],
  ...parts
})

const outgoingEvent = (
  c: Contract.ContractRecord,
  sequence: number,
  when: DateTime.Utc,
  eventType: EventRepo.OutgoingEvent["eventType"] = "funds_received"
): EventRepo.OutgoingEvent => {
  const id = uuid()
  return {
    id,
    eventId: id,
    partnerId: c.partnerId,
    environment: c.environment,
    contractId: c.id,
    eventType,
    sequence,
    // key order as the service writes it: event_type first, then not alphabetical
    payload: { event_type: eventType, event_id: id, fx_contract_id: c.id, sequence, zeta: 1, alpha: { b: 2, a: 1 } },
    status: "pending",
    attempts: 0,
    lastError: null,
    nextAttemptAt: when,
    createdAt: when,
    deliveredAt: null,
    lastBody: null,
    traceContext: null
  }
}

const incomingEvent = (c: Contract.ContractRecord, key: string, when: DateTime.Utc): EventRepo.IncomingEvent => ({
  id: uuid(),
  partnerId: c.partnerId,
  environment: c.environment,
  contractId: c.id,
  eventType: "funds_in_route",
  idempotencyKey: key,
  status: "processed",
  payload: { event_type: "funds_in_route", fx_contract_id: c.id, amount: "10.5" },
  createdAt: when,
  processedAt: when,
  traceContext: null
})

const entry = (
  c: Contract.ContractRecord,
  account: Ledger.Account,
  amount: string,
  when: DateTime.Utc
): Ledger.LedgerEntry => ({
  contractId: c.id,
  partnerId: c.partnerId,
  environment: c.environment,
  kind: "funds_received",
  account,
  currency: "USDC",
  amount: Money.unsafe(amount),
  at: when
})

const payoutRecord = (c: Contract.ContractRecord, when: DateTime.Utc): PayoutRepo.PayoutRecord => ({
  id: uuid(),
  contractId: c.id,
  partnerId: c.partnerId,
  environment: c.environment,
  chain: c.chain,
  currency: "USDC",
  destination: "PayoutWa11et1111111111111111111111111111111",
  amount: Money.unsafe("123.456789"),
  fxDeltaInQuoteCurrency: Money.unsafe("668.2000"),
  status: "pending",
  prepared: null,
  transactionHash: null,
  nonce: null,
  waiting: null,
  replacements: 0,
  blockNumber: null,
  attempts: 0,
  lastError: null,
  nextAttemptAt: when,
  createdAt: when,
  updatedAt: when
})

/** A stored quote and its contract, optionally moved on to `status`. */
const stored = Effect.fnUntraced(function* (
  scope: Partner.PartnerScope = sandbox(),
  overrides: Partial<Contract.ContractRecord> = {},
  quoteOverrides: Partial<Quote.QuoteRecord> = {}
) {
  const quote = quoteRecord(scope, quoteOverrides)
  yield* (yield* QuoteRepo.QuoteRepo).insert(quote)
  const contract = contractRecord(quote, overrides)
  yield* (yield* ContractRepo.ContractRepo).insert(contract)
  return contract
})

const claim = (now: DateTime.Utc, limit = 100, owner = "worker-a"): Lease.Claim => ({
  now,
  limit,
  owner,
  leaseFor: Duration.minutes(1)
})

const concurrently = <A, E, R>(n: number, make: (i: number) => Effect.Effect<A, E, R>) =>
  Effect.all(
    Array.from({ length: n }, (_, i) => make(i)),
    { concurrency: "unbounded" }
  )

const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((r) => r.id)

/** What the database said of a failed statement. */
const messageOf = (error: SqlError.SqlError): string =>
  error.reason.cause instanceof Error ? error.reason.cause.message : String(error.reason.cause)

/** The statement is refused by an append-only table's trigger, saying `message`. */
const refusedAs = (statement: Effect.Effect<unknown, SqlError.SqlError>, message: RegExp) =>
  Effect.gen(function* () {
    const refused = yield* Effect.flip(statement)
    assert.strictEqual(refused.reason._tag, "AuthorizationError")
    assert.match(messageOf(refused), message)
  })

// ---------------------------------------------------------------------------------------------
// the tests, run against each backend

type Store = PgStore.Repos | SqlClient.SqlClient

const focused = (name: string, make: () => Layer.Layer<Store, unknown>) => {
  const options = { excludeTestServices: true, timeout: Duration.seconds(60) } as const

  layer(make(), options)(`${name}: records`, (it) => {
    it.effect("a quote round-trips exactly (decimal scales, milliseconds) and only in its scope", () =>
      Effect.gen(function* () {
        const quotes = yield* QuoteRepo.QuoteRepo
        const scope = sandbox()
        const quote = quoteRecord(scope, {
          createdAt: at("2026-03-02T10:00:00.123Z"),
          depositAmount: Money.unsafe("500.000000"),
          failureReason: null
        })
        yield* quotes.insert(quote)
        const found = yield* quotes.find(scope, quote.id)
        assert.deepStrictEqual(plain(Option.getOrThrow(found)), plain(quote))
        assert.strictEqual(Money.format(Option.getOrThrow(found).targetStrike!), "5.5000000001")
        assert.isTrue(Option.isNone(yield* quotes.find({ ...scope, environment: "production" }, quote.id)))
        assert.isTrue(Option.isNone(yield* quotes.find(sandbox(), quote.id)))
        assert.isTrue(Option.isNone(yield* quotes.find(scope, "not-a-uuid")))

        const failed = quoteRecord(scope, {
          status: "failed",
          failureReason: { code: "notional_above_limit", message: "too large" },
          lockedRate: Money.unsafe("0"),
          premiumAmount: Money.unsafe("0"),
          totalAmount: Money.unsafe("0")
        })
        yield* quotes.insert(failed)
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* quotes.find(scope, failed.id))), plain(failed))
      })
    )

    it.effect("quote lists: newest first by (created_at, id), strict keyset, the visible-status filter", () =>
      Effect.gen(function* () {
        const quotes = yield* QuoteRepo.QuoteRepo
        const contracts = yield* ContractRepo.ContractRepo
        const scope = sandbox()
        const now = shift(t0, 10 * minute)
        const open = quoteRecord(scope, { createdAt: shift(t0, 9 * minute), expiresAt: shift(now, 1) })
        const expired = quoteRecord(scope, { createdAt: shift(t0, 8 * minute), expiresAt: now })
        const accepted = quoteRecord(scope, { createdAt: shift(t0, 8 * minute), expiresAt: shift(t0, 9 * minute) })
        const failed = quoteRecord(scope, {
          createdAt: shift(t0, 7 * minute),
          status: "failed",
          failureReason: { code: "no_market_parameters", message: "no corridor" }
        })
        const otherCustomer = quoteRecord(scope, {
          createdAt: shift(t0, 6 * minute),
          expiresAt: shift(now, minute),
          customerReferenceId: "other"
        })
        for (const q of [open, expired, accepted, failed, otherCustomer]) yield* quotes.insert(q)
        yield* quotes.insert(quoteRecord({ ...scope, environment: "production" }))
        yield* contracts.insert(contractRecord(accepted))

        const all = [open, expired, accepted, failed, otherCustomer].sort((a, b) =>
          a.createdAt.epochMilliseconds !== b.createdAt.epochMilliseconds
            ? b.createdAt.epochMilliseconds - a.createdAt.epochMilliseconds
            : a.id < b.id
              ? 1
              : -1
        )
        const pages: Array<string> = []
        let after: { createdAt: string; id: string } | undefined
        for (;;) {
          const page = yield* quotes.list(scope, { limit: 2, now, after })
          pages.push(...ids(page))
          const last = page[page.length - 1]
          if (page.length < 2 || last === undefined) break
          after = { createdAt: DateTime.formatIso(last.createdAt), id: last.id }
        }
        assert.deepStrictEqual(pages, ids(all))

        const created = yield* quotes.list(scope, {
          limit: 10,
          now,
          status: "created",
          customerReferenceId: "customer-1"
        })
        assert.sameMembers(ids(created), [open.id, accepted.id])
        const failing = yield* quotes.list(scope, { limit: 10, now, status: "failed" })
        assert.sameMembers(ids(failing), [expired.id, failed.id])
      })
    )

    it.effect("idempotency keys: claimed once, in flight, completed, released, taken over once expired", () =>
      Effect.gen(function* () {
        const keys = yield* IdempotencyRepo.IdempotencyRepo
        const scope = sandbox()
        const later = shift(t0, 86_400_000)
        assert.strictEqual((yield* keys.claim(scope, "key-0001", "fp-1", t0, later))._tag, "Claimed")
        assert.deepStrictEqual(yield* keys.claim(scope, "key-0001", "fp-2", t0, later), {
          _tag: "InFlight",
          fingerprint: "fp-1"
        })
        assert.strictEqual((yield* keys.claim(sandbox(), "key-0001", "fp-1", t0, later))._tag, "Claimed")
        yield* keys.complete(scope, "key-0001", { status: 201, body: '{"id":"x"}' }, later)
        assert.deepStrictEqual(yield* keys.claim(scope, "key-0001", "fp-1", shift(later, -1), later), {
          _tag: "Completed",
          fingerprint: "fp-1",
          response: { status: 201, body: '{"id":"x"}' }
        })
        assert.strictEqual((yield* keys.claim(scope, "key-0001", "fp-3", later, shift(later, 1)))._tag, "Claimed")
        yield* keys.release(scope, "key-0001")
        assert.strictEqual((yield* keys.claim(scope, "key-0001", "fp-4", later, shift(later, 1)))._tag, "Claimed")

        const racers = yield* concurrently(12, (i) => keys.claim(scope, "key-race", `fp-${i}`, t0, later))
        assert.strictEqual(racers.filter((c) => c._tag === "Claimed").length, 1)
      })
    )

    it.effect("partners, API keys (first revocation stands) and webhook endpoints with secrets newest first", () =>
      Effect.gen(function* () {
        const partners = yield* PartnerRepo.PartnerRepo
        const partner = { id: uuid(), name: "Acme Pay", createdAt: t0 }
        yield* partners.insertPartner(partner)
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* partners.findPartner(partner.id))), plain(partner))
        const key = {
          id: uuid(),
          partnerId: partner.id,
          environment: "sandbox" as const,
          secretHash: "ab".repeat(32),
          createdAt: t0,
          revokedAt: null
        }
        yield* partners.insertApiKey(key)
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* partners.findApiKey(key.id))), plain(key))
        assert.isTrue(Option.isNone(yield* partners.findApiKey("garbage from a header")))
        yield* partners.revokeApiKey(key.id, shift(t0, 1))
        yield* partners.revokeApiKey(key.id, shift(t0, 2))
        assert.deepStrictEqual(Option.getOrThrow(yield* partners.findApiKey(key.id)).revokedAt, shift(t0, 1))

        const scope = { partnerId: partner.id, environment: "sandbox" as const }
        const endpoint = {
          ...scope,
          url: "https://acme.example/hooks",
          secrets: [
            { secret: "whsec_new", validUntil: null },
            { secret: "whsec_old", validUntil: shift(t0, 86_400_000) }
          ]
        }
        yield* partners.saveWebhookEndpoint({ ...scope, url: "https://first.example", secrets: [] })
        yield* partners.saveWebhookEndpoint(endpoint)
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* partners.findWebhookEndpoint(scope))), plain(endpoint))
        assert.isTrue(Option.isNone(yield* partners.findWebhookEndpoint({ ...scope, environment: "production" })))
      })
    )

    it.effect("the audit log is append-only: the database refuses UPDATE, DELETE and TRUNCATE of it from anyone", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const audit = yield* AuditRepo.AuditRepo
        const record: AuditRepo.AuditRecord = {
          id: uuid(),
          at: t0,
          via: "cli",
          actor: `cli:${uuid()}@host`,
          tokenId: null,
          role: null,
          action: "partner.create",
          targetKind: "partner",
          targetId: uuid(),
          outcome: "ok",
          reason: null,
          before: null,
          after: { name: "Acme Pay" },
          requestId: null,
          traceId: null,
          clientAddress: null
        }
        yield* audit.append(record)
        for (const statement of [
          sql`UPDATE operator_audit SET outcome = 'failed' WHERE id = ${record.id}`,
          sql`UPDATE operator_audit SET actor = 'nobody' WHERE false`,
          sql`DELETE FROM operator_audit WHERE id = ${record.id}`,
          sql`DELETE FROM operator_audit`,
          sql`TRUNCATE operator_audit`
        ]) {
          yield* refusedAs(statement, /the audit log is append-only/)
        }
        assert.deepStrictEqual(plain(yield* audit.list({ actor: record.actor, limit: 10 })), plain([record]))
        // and inserting goes on
        const next = { ...record, id: uuid(), at: shift(t0, 1) }
        yield* audit.append(next)
        assert.deepStrictEqual(ids(yield* audit.list({ actor: record.actor, limit: 10 })), [next.id, record.id])
      })
    )

    it.effect(
      "a daily close is immutable: the database refuses UPDATE, DELETE and TRUNCATE of its tables from anyone",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const closes = yield* DailyCloseRepo.DailyCloseRepo
          const close = R.dailyClose("sandbox", R.closeEpoch())
          assert.isTrue(yield* closes.insert(close))
          const stored = R.plain(Option.getOrNull(yield* closes.find(close.id)))
          for (const statement of [
            sql`UPDATE daily_closes SET snapshot_id = NULL WHERE id = ${close.id}`,
            sql`UPDATE daily_closes SET snapshot_id = NULL WHERE false`,
            sql`DELETE FROM daily_closes WHERE id = ${close.id}`,
            sql`DELETE FROM daily_closes`,
            sql`TRUNCATE daily_closes CASCADE`,
            sql`UPDATE daily_close_locks SET mtm = 0 WHERE close_id = ${close.id}`,
            sql`DELETE FROM daily_close_locks WHERE false`,
            sql`TRUNCATE daily_close_locks`
          ]) {
            yield* refusedAs(statement, /a daily close is immutable/)
          }
          // the closes alone are refused before any trigger: the locks reference them
          const truncated = yield* Effect.flip(sql`TRUNCATE daily_closes`)
          assert.match(messageOf(truncated), /referenced in a foreign key constraint/)
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* closes.find(close.id))), stored)
          // and inserting goes on
          assert.isTrue(yield* closes.insert(R.dailyClose("sandbox", R.closeEpoch())))
        })
    )

    it.effect("a close whose locks fail in a later statement leaves no row in either table", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const closes = yield* DailyCloseRepo.DailyCloseRepo
        // 6,000 locks: the first statement writes 5,000, the second fails on its last (a contract twice)
        const locks = Array.from({ length: 6_000 }, () => R.closeLock())
        const close = R.dailyClose("production", R.closeEpoch(), {
          locks: [...locks.slice(0, -1), { ...locks.at(-1)!, contract_id: locks[0]!.contract_id }]
        })
        const failed = yield* Effect.flip(closes.insert(close))
        assert.strictEqual(failed._tag, "StoreError")
        const [left] = yield* sql<{ readonly closes: number; readonly locks: number }>`SELECT
          (SELECT count(*)::int FROM daily_closes WHERE id = ${close.id}) AS closes,
          (SELECT count(*)::int FROM daily_close_locks WHERE close_id = ${close.id}) AS locks`
        assert.deepStrictEqual(left, { closes: 0, locks: 0 })
      })
    )
  })

  layer(make(), options)(`${name}: commits`, (it) => {
    it.effect("inserting a contract accepts its quote; a second contract for the quote is refused", () =>
      Effect.gen(function* () {
        const quotes = yield* QuoteRepo.QuoteRepo
        const contracts = yield* ContractRepo.ContractRepo
        const scope = sandbox()
        const contract = yield* stored(scope, {
          partnerTransactionReference: "ptx-1",
          exercise: null,
          fundedAmount: Money.unsafe("0.000000")
        })
        const quote = Option.getOrThrow(yield* quotes.find(scope, contract.quoteId))
        assert.deepStrictEqual(quote.acceptedAt, contract.createdAt)
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* contracts.find(scope, contract.id))), plain(contract))
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* contracts.findById(contract.id))), plain(contract))
        assert.deepStrictEqual(
          plain(Option.getOrThrow(yield* contracts.findByQuote(scope, contract.quoteId))),
          plain(contract)
        )
        assert.isTrue(Option.isNone(yield* contracts.find(sandbox(), contract.id)))
        const again = yield* Effect.flip(contracts.insert(contractRecord(quote)))
        assert.strictEqual(again._tag, "QuoteAlreadyAccepted")
      })
    )

    it.effect("of concurrent contracts for one quote exactly one wins", () =>
      Effect.gen(function* () {
        const quotes = yield* QuoteRepo.QuoteRepo
        const contracts = yield* ContractRepo.ContractRepo
        const quote = quoteRecord(sandbox())
        yield* quotes.insert(quote)
        const results = yield* concurrently(10, () => Effect.exit(contracts.insert(contractRecord(quote))))
        assert.strictEqual(results.filter(Exit.isSuccess).length, 1)
        for (const r of results.filter(Exit.isFailure)) {
          assert.strictEqual(Option.getOrThrow(Cause.findErrorOption(r.cause))._tag, "QuoteAlreadyAccepted")
        }
      })
    )

    it.effect("commit compare-and-sets on the version, writes everything, and releases nothing twice", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const events = yield* EventRepo.EventRepo
        const c0 = yield* stored()
        const when = shift(c0.createdAt, minute)
        const c1 = moved(c0, "active", when, { fundedAmount: Money.unsafe("105.000000"), eventSequence: 1 })
        const event = outgoingEvent(c1, 1, when)
        const received = incomingEvent(c0, "inbound-key-1", when)
        const ledger = [
          entry(c1, "funding_wallet", "105.000000", when),
          entry(c1, "partner_prepayment", "-105.000000", when)
        ]
        const transfer = {
          chain: c1.chain,
          transactionHash: "5xTx",
          index: 0,
          blockNumber: 123456789,
          amount: Money.unsafe("105.000000")
        }
        yield* contracts.commit(change(c0, c1, { outgoing: event, incoming: received, ledger, transfer }))

        assert.deepStrictEqual(plain(Option.getOrThrow(yield* contracts.findById(c0.id))), plain(c1))
        assert.deepStrictEqual(plain(yield* contracts.ledgerEntries(c0.id)), plain(ledger))
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* events.findOutgoing(c0, event.id))), plain(event))
        assert.deepStrictEqual(
          plain(Option.getOrThrow(yield* events.findIncoming(c0, "inbound-key-1"))),
          plain(received)
        )
        // the payload keeps the order it was written in (event_type first)
        const payload = Option.getOrThrow(yield* events.findOutgoing(c0, event.id)).payload
        assert.strictEqual(JSON.stringify(payload), JSON.stringify(event.payload))

        const stale = yield* Effect.flip(contracts.commit(change(c0, moved(c0, "failed", when))))
        assert.strictEqual(stale._tag, "StaleContract")
        const unknown = contractRecord(quoteRecord(sandbox()))
        assert.strictEqual(
          (yield* Effect.flip(contracts.commit(change(unknown, moved(unknown, "failed", when)))))._tag,
          "StaleContract"
        )
      })
    )

    it.effect("a commit that conflicts rolls back entirely: a key already recorded, a transfer counted before", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const events = yield* EventRepo.EventRepo
        const c0 = yield* stored()
        const when = shift(c0.createdAt, minute)
        const c1 = moved(c0, "funds_in_route", when)
        const transfer = {
          chain: c0.chain,
          transactionHash: `tx-${uuid()}`,
          index: 3,
          blockNumber: 7,
          amount: Money.unsafe("5")
        }
        yield* contracts.commit(change(c0, c1, { incoming: incomingEvent(c0, "dup-key-1", when), transfer }))

        const c2 = moved(c1, "active", shift(when, 1), { eventSequence: 1 })
        const event = outgoingEvent(c2, 1, shift(when, 1))
        const ledger = [entry(c2, "funding_wallet", "1", when), entry(c2, "partner_prepayment", "-1", when)]
        const duplicateKey = change(c1, c2, { outgoing: event, incoming: incomingEvent(c1, "dup-key-1", when), ledger })
        assert.strictEqual((yield* Effect.flip(contracts.commit(duplicateKey)))._tag, "StaleContract")
        const countedTwice = change(c1, c2, { outgoing: event, transfer, ledger })
        assert.strictEqual((yield* Effect.flip(contracts.commit(countedTwice)))._tag, "StaleContract")

        assert.deepStrictEqual(plain(Option.getOrThrow(yield* contracts.findById(c0.id))), plain(c1))
        assert.isTrue(Option.isNone(yield* events.findOutgoing(c0, event.id)))
        assert.deepStrictEqual(yield* contracts.ledgerEntries(c0.id), [])
        // and the same change without the conflict goes through
        yield* contracts.commit(change(c1, c2, { outgoing: event, ledger }))
        assert.strictEqual(Option.getOrThrow(yield* contracts.findById(c0.id)).status, "active")
      })
    )

    it.effect("of concurrent commits from one version exactly one wins", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const c0 = yield* stored()
        const results = yield* concurrently(10, (i) =>
          Effect.exit(contracts.commit(change(c0, moved(c0, "funds_in_route", shift(c0.createdAt, i + 1)))))
        )
        assert.strictEqual(results.filter(Exit.isSuccess).length, 1)
        assert.strictEqual(Option.getOrThrow(yield* contracts.findById(c0.id)).history.length, 2)
      })
    )

    it.effect("unbalanced ledger entries are a defect and write nothing", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const c0 = yield* stored()
        const c1 = moved(c0, "active", shift(c0.createdAt, 1))
        const ledger = [
          entry(c1, "funding_wallet", "105.000000", c1.updatedAt),
          entry(c1, "partner_prepayment", "-105.000001", c1.updatedAt)
        ]
        const exit = yield* Effect.exit(contracts.commit(change(c0, c1, { ledger })))
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
        assert.strictEqual(Option.getOrThrow(yield* contracts.findById(c0.id)).status, "quote_created")
      })
    )

    it.effect("funding indexes are never handed out twice; cursors are kept per contract", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const indexes = yield* concurrently(20, () =>
          contracts.allocateFundingIndex({ chain: "polygon", environment: "sandbox" })
        )
        assert.deepStrictEqual(
          [...indexes].sort((a, b) => a - b),
          Array.from({ length: 20 }, (_, i) => i)
        )
        assert.strictEqual(yield* contracts.allocateFundingIndex({ chain: "polygon", environment: "production" }), 0)

        const c = yield* stored()
        assert.isTrue(Option.isNone(yield* contracts.fundingCursor(c.id)))
        yield* contracts.saveFundingCursor(c.id, "block:100")
        yield* contracts.saveFundingCursor(c.id, "block:164")
        assert.deepStrictEqual(yield* contracts.fundingCursor(c.id), Option.some("block:164"))
      })
    )

    it.effect("the event listing merges both directions newest first; the payout feed runs oldest first", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const events = yield* EventRepo.EventRepo
        const scope = sandbox()
        const c0 = yield* stored(scope)
        const w = (n: number) => shift(c0.createdAt, n * minute)
        const received = incomingEvent(c0, "k-1", w(1))
        const c1 = moved(c0, "funds_in_route", w(1))
        yield* contracts.commit(change(c0, c1, { incoming: received }))
        const c2 = moved(c1, "active", w(2), { eventSequence: 1 })
        const funded = outgoingEvent(c2, 1, w(2))
        yield* contracts.commit(change(c1, c2, { outgoing: funded }))
        const c3 = moved(c2, "exercised", w(3), { eventSequence: 2 })
        const failed = outgoingEvent(c3, 2, w(3), "payout_failed")
        yield* contracts.commit(change(c2, c3, { outgoing: failed }))
        const c4 = moved(c3, "settled", w(4), { eventSequence: 3 })
        const settled = outgoingEvent(c4, 3, w(4), "payout_settled")
        yield* contracts.commit(change(c3, c4, { outgoing: settled }))
        const other = yield* stored(scope)
        yield* contracts.commit(
          change(other, moved(other, "funds_in_route", w(5)), { incoming: incomingEvent(other, "k-2", w(5)) })
        )

        const all = yield* events.list(scope, { limit: 10 })
        assert.strictEqual(all.length, 5)
        const mine = yield* events.list(scope, { limit: 10, contractId: c0.id })
        assert.deepStrictEqual(
          mine.map((v) => v.event.id),
          [settled.id, failed.id, funded.id, received.id]
        )
        const page = yield* events.list(scope, {
          limit: 2,
          contractId: c0.id,
          after: { createdAt: DateTime.formatIso(failed.createdAt), id: failed.id }
        })
        assert.deepStrictEqual(
          page.map((v) => `${v._tag}:${v.event.id}`),
          [`outgoing:${funded.id}`, `incoming:${received.id}`]
        )
        const inbound = yield* events.list(scope, { limit: 10, direction: "incoming" })
        assert.isTrue(inbound.every((v) => v._tag === "incoming") && inbound.length === 2)
        assert.deepStrictEqual(yield* events.list(sandbox(), { limit: 10 }), [])

        const feed = yield* events.listPayoutEvents(scope, { limit: 10 })
        assert.deepStrictEqual(ids(feed), [failed.id, settled.id])
        assert.deepStrictEqual(ids(yield* events.listPayoutEvents(scope, { limit: 10, since: w(4) })), [settled.id])
        const next = yield* events.listPayoutEvents(scope, {
          limit: 10,
          after: { createdAt: DateTime.formatIso(failed.createdAt), id: failed.id }
        })
        assert.deepStrictEqual(ids(next), [settled.id])

        const updated = { ...received, status: "queued" as const, processedAt: null }
        yield* events.updateIncoming(updated)
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* events.findIncoming(scope, "k-1"))), plain(updated))
      })
    )
  })

  layer(make(), options)(`${name}: claims`, (it) => {
    const now = at("2026-06-01T00:00:00.000Z")

    it.effect("concurrent claimers never take the same contract; oldest first; leases hold until they end", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const due: Array<string> = []
        for (let i = 0; i < 12; i++) {
          // created oldest first, window ending newest first: claims go by creation
          const c0 = yield* stored(sandbox(), {}, { createdAt: shift(t0, i), windowEnd: shift(now, -(i + 1) * minute) })
          yield* contracts.commit(change(c0, moved(c0, "active", shift(c0.createdAt, 1))))
          due.push(c0.id)
        }
        const notYet = yield* stored(sandbox(), {}, { windowEnd: shift(now, 60 * minute) })
        yield* contracts.commit(change(notYet, moved(notYet, "active", shift(notYet.createdAt, 1))))

        const taken = yield* concurrently(6, (i) => contracts.claimDueForExpiry(claim(now, 3, `worker-${i}`)))
        const first = taken.flat().map((c) => c.id)
        assert.strictEqual(new Set(first).size, first.length)
        const rest = yield* contracts.claimDueForExpiry(claim(now, 100))
        assert.sameMembers([...first, ...ids(rest)], due)
        // oldest first by (created_at, id)
        assert.deepStrictEqual(
          ids(rest),
          due.filter((id) => ids(rest).includes(id))
        )

        // a lease is over at its end, not after
        assert.deepStrictEqual(yield* contracts.claimDueForExpiry(claim(shift(now, 59_999))), [])
        const again = yield* contracts.claimDueForExpiry(claim(shift(now, 60_000), 100, "worker-b"))
        assert.deepStrictEqual(ids(again), due)
      })
    )

    it.effect("a commit releases the lease it ran under", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const c0 = yield* stored(sandbox(), { fundingDeadline: shift(now, -1) })
        const [claimed] = yield* contracts.claimDueForFundingDeadline(claim(now))
        assert.strictEqual(claimed?.id, c0.id)
        assert.deepStrictEqual(yield* contracts.claimDueForFundingDeadline(claim(now)), [])
        // a partial funding keeps the contract waiting, and frees it for the next claim
        yield* contracts.commit(change(c0, moved(c0, "quote_created", now, { fundedAmount: Money.unsafe("1.000000") })))
        assert.deepStrictEqual(ids(yield* contracts.claimDueForFundingDeadline(claim(now))), [c0.id])
      })
    )

    it.effect("outgoing events are claimed one at a time per contract, in sequence", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const events = yield* EventRepo.EventRepo
        const emit = Effect.fnUntraced(function* (count: number) {
          let c = yield* stored()
          const out: Array<EventRepo.OutgoingEvent> = []
          for (let seq = 1; seq <= count; seq++) {
            const next = moved(c, c.status, shift(now, -10 * minute + seq), { eventSequence: seq })
            const event = outgoingEvent(next, seq, shift(now, -10 * minute + seq))
            yield* contracts.commit(change(c, next, { outgoing: event }))
            out.push(event)
            c = next
          }
          return out
        })
        const [a1, a2] = yield* emit(2)
        const [b1] = yield* emit(1)

        const first = yield* concurrently(4, (i) => events.claimOutgoing(claim(now, 10, `sender-${i}`)))
        assert.sameMembers(
          first.flat().map((e) => e.id),
          [a1!.id, b1!.id]
        )
        // a1 fails and retries later: a2 stays behind it, b is unaffected
        yield* events.updateOutgoing([
          {
            ...a1!,
            status: "retrying",
            attempts: 1,
            lastError: "503",
            nextAttemptAt: shift(now, minute)
          }
        ])
        yield* events.updateOutgoing([{ ...b1!, status: "delivered", attempts: 1, deliveredAt: now, lastBody: "{}" }])
        assert.deepStrictEqual(yield* events.claimOutgoing(claim(now)), [])
        assert.deepStrictEqual(ids(yield* events.claimOutgoing(claim(shift(now, minute)))), [a1!.id])
        yield* events.updateOutgoing([{ ...a1!, status: "delivered", attempts: 2, deliveredAt: shift(now, minute) }])
        assert.deepStrictEqual(ids(yield* events.claimOutgoing(claim(shift(now, minute)))), [a2!.id])
        const stored1 = Option.getOrThrow(yield* events.findOutgoing(b1!, b1!.id))
        assert.deepStrictEqual(
          plain(stored1),
          plain({ ...b1!, status: "delivered", attempts: 1, deliveredAt: now, lastBody: "{}" })
        )
      })
    )

    it.effect("payouts: one per contract, claimed by one worker, released by update", () =>
      Effect.gen(function* () {
        const contracts = yield* ContractRepo.ContractRepo
        const payouts = yield* PayoutRepo.PayoutRepo
        const all: Array<PayoutRepo.PayoutRecord> = []
        for (let i = 0; i < 8; i++) {
          const c = yield* stored()
          const p = payoutRecord(c, shift(now, -i))
          yield* payouts.insert(p)
          all.push(p)
        }
        const c = Option.getOrThrow(yield* contracts.findById(all[0]!.contractId))
        assert.strictEqual((yield* Effect.flip(payouts.insert(payoutRecord(c, now))))._tag, "PayoutExists")
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* payouts.findByContract(c.id))), plain(all[0]))

        const taken = (yield* concurrently(4, (i) => payouts.claimDue(claim(now, 3, `payer-${i}`)))).flat()
        assert.strictEqual(new Set(ids(taken)).size, taken.length)
        const rest = yield* payouts.claimDue(claim(now))
        assert.sameMembers([...ids(taken), ...ids(rest)], ids(all))

        const prepared = {
          ...all[1]!,
          status: "prepared" as const,
          prepared: "signed-bytes",
          transactionHash: "0xabc",
          blockNumber: 9_007_199_254
        }
        yield* payouts.update(prepared, all[1]!)
        yield* payouts.update({ ...all[2]!, status: "confirmed" as const }, all[2]!)
        assert.deepStrictEqual(ids(yield* payouts.claimDue(claim(now))), [prepared.id])
        assert.deepStrictEqual(
          plain(Option.getOrThrow(yield* payouts.findByContract(prepared.contractId))),
          plain(prepared)
        )
      })
    )

    it.effect(
      "recordSigned: signs inside the allocating transaction with a nonce account and before any without; only kept allocations are rows",
      () =>
        Effect.gen(function* () {
          const payouts = yield* PayoutRepo.PayoutRepo
          const sql = yield* SqlClient.SqlClient
          // never due: the claims of the tests before see none of these
          const pendingPayout = Effect.gen(function* () {
            const p = {
              ...payoutRecord(yield* stored(), now),
              chain: "polygon" as const,
              nextAttemptAt: shift(now, 1e12)
            }
            yield* payouts.insert(p)
            return p
          })
          const wallet = { signer: `0x${"c0ffee".repeat(6)}0000`, floor: 11, pending: 12 }
          const inTransaction: Array<boolean> = []
          const sign = (nonce: number | null) =>
            Effect.serviceOption(sql.transactionService).pipe(
              Effect.map((tx) => {
                inTransaction.push(Option.isSome(tx))
                return { transactionHash: `0x${nonce}`, persisted: `signed at ${nonce}` }
              })
            )
          const signing = (p: PayoutRepo.PayoutRecord) => ({
            ...p,
            status: "prepared" as const,
            updatedAt: shift(now, 1)
          })
          const nonceRows = (holder: string) =>
            sql<{ readonly row: string }>`SELECT concat_ws(' ', environment, chain, signer, nonce, holder,
                to_char(allocated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS row
              FROM hot_wallet_nonces WHERE holder = ${holder}`.pipe(Effect.map((rows) => rows.map((r) => r.row)))
          const allRows = sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM hot_wallet_nonces`.pipe(
            Effect.map((rows) => rows[0]!.n)
          )

          const a = yield* pendingPayout
          const written = yield* payouts.recordSigned(signing(a), a, wallet, sign)
          assert.strictEqual(Option.getOrThrow(written).nonce, 11)
          assert.deepStrictEqual(yield* nonceRows(`payout:${a.id}`), [
            `${a.environment} polygon ${wallet.signer} 11 payout:${a.id} ${DateTime.formatIso(shift(now, 1))}`
          ])

          const b = yield* pendingPayout
          const before = yield* allRows
          assert.strictEqual(Option.getOrThrow(yield* payouts.recordSigned(signing(b), b, null, sign)).nonce, null)
          // over a row that moved on, and a signing that fails: nothing kept
          const c = yield* pendingPayout
          assert.isTrue(
            Option.isNone(yield* payouts.recordSigned(signing(c), { ...c, updatedAt: shift(now, -1) }, wallet, sign))
          )
          const failing = yield* Effect.flip(
            payouts.recordSigned(signing(c), c, wallet, () => Effect.fail(new Error("refused")))
          )
          assert.strictEqual(failing.message, "refused")
          assert.strictEqual(yield* allRows, before)
          assert.deepStrictEqual(yield* nonceRows(`payout:${b.id}`), [])
          assert.deepStrictEqual(yield* nonceRows(`payout:${c.id}`), [])
          assert.deepStrictEqual(inTransaction, [true, false, true])
        })
    )
  })
}

const onPostgres = () => PgStore.layer.pipe(Layer.provideMerge(Postgres.layerFresh(Postgres.databaseUrl!)))
const onPglite = () => EmbeddedStore.layer({ loadDataDir: PgliteTemplate.dump() })

describe.skipIf(Postgres.databaseUrl === undefined)("PgStore on Postgres", () => {
  suite("store contract (Postgres)", onPostgres())
  focused("postgres", onPostgres)

  it.live(
    "layerConfig connects to DATABASE_URL and migrates it",
    () =>
      Effect.gen(function* () {
        const db = yield* Postgres.fresh(Postgres.databaseUrl!, { prefix: "ratelock_config" })
        const env = ConfigProvider.fromEnvRecord({ DATABASE_URL: db.url, DATABASE_POOL_SIZE: "2" })
        const store = PgStore.layerConfig.pipe(Layer.provide(ConfigProvider.layer(env)))
        yield* Effect.gen(function* () {
          const partner = { id: uuid(), name: "Config", createdAt: t0 }
          yield* (yield* PartnerRepo.PartnerRepo).insertPartner(partner)
          assert.isTrue(Option.isSome(yield* (yield* PartnerRepo.PartnerRepo).findPartner(partner.id)))
          const sql = yield* SqlClient.SqlClient
          const tables = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.tables
            WHERE table_schema = 'public' AND table_name = 'contracts'`
          assert.strictEqual(tables[0]?.n, 1)
        }).pipe(Effect.provide(store))
      }).pipe(Effect.scoped),
    60_000
  )
})

describe("PgStore on PGlite", () => {
  suite("store contract (PGlite)", onPglite())
  focused("pglite", onPglite)
})

/** Writes a quote as the store did before migration 9: without a snapshot or pricing inputs. */
const insertBeforeMarketData = (quote: Quote.QuoteRecord) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { snapshot_id: _, pricing_inputs: __, ...row } = quoteRow(quote)
    yield* sql`INSERT INTO quotes ${sql.insert(row)}`
  })

/**
 * Writes a contract as the store did before migration 12: its quote accepted, no corridor counted
 * (and no funding index: migration 20).
 */
const insertBeforeLimits = (contract: Contract.ContractRecord) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { funding_index: _, ...row } = contractRow(contract)
    yield* sql`UPDATE quotes SET accepted_at = ${row.created_at} WHERE id = ${contract.quoteId}`
    yield* sql`INSERT INTO contracts ${sql.insert(row)}`
    const history = historyRows(contract.id, 1, contract.history)
    if (Arr.isReadonlyArrayNonEmpty(history)) yield* sql`INSERT INTO contract_history ${sql.insert(history)}`
  })

/** Migrates up to (not including) migration `id`. */
const migrateBefore = (id: number) =>
  PgMigrator.make({})({
    loader: PgMigrator.fromRecord(
      Object.fromEntries(Object.entries(PgMigrations.migrations).filter(([key]) => Number.parseInt(key, 10) < id))
    ),
    table: PgStore.migrationsTable
  })

describe("PgStore migrations", () => {
  it.effect(
    "migration 21: tokens issued before roles become admin, with no expiry or last use; a later token must name its role",
    () =>
      Effect.gen(function* () {
        yield* migrateBefore(21)
        const sql = yield* SqlClient.SqlClient
        const old = {
          id: uuid(),
          name: "demo",
          secret_hash: "cd".repeat(32),
          created_at: new Date("2025-01-02T03:04:05.678Z")
        }
        const revoked = {
          ...old,
          id: uuid(),
          secret_hash: "ef".repeat(32),
          created_at: new Date("2025-01-02T03:04:06.000Z"),
          revoked_at: new Date("2025-02-01T00:00:00.001Z")
        }
        yield* sql`INSERT INTO operator_tokens ${sql.insert(old)}`
        yield* sql`INSERT INTO operator_tokens ${sql.insert(revoked)}`
        assert.deepStrictEqual(
          (yield* PgStore.migrate).map(([id]) => id),
          Object.keys(PgMigrations.migrations)
            .map((key) => Number.parseInt(key, 10))
            .filter((id) => id >= 21)
        )
        const tokens = yield* Effect.flatMap(OperatorTokenRepo.OperatorTokenRepo, (repo) => repo.list()).pipe(
          Effect.provide(PgOperatorTokenRepo.layer)
        )
        assert.deepStrictEqual(plain(tokens), [
          plain({
            id: old.id,
            name: "demo",
            secretHash: old.secret_hash,
            role: "admin",
            createdAt: at("2025-01-02T03:04:05.678Z"),
            expiresAt: null,
            revokedAt: null,
            lastUsedAt: null
          }),
          plain({
            id: revoked.id,
            name: "demo",
            secretHash: revoked.secret_hash,
            role: "admin",
            createdAt: at("2025-01-02T03:04:06.000Z"),
            expiresAt: null,
            revokedAt: at("2025-02-01T00:00:00.001Z"),
            lastUsedAt: null
          })
        ])
        // the default filled the old rows and is gone: a token without a role is refused, as is an unknown role
        const unnamed = { ...old, id: uuid(), secret_hash: "ab".repeat(32) }
        assert.strictEqual(
          (yield* Effect.flip(sql`INSERT INTO operator_tokens ${sql.insert(unnamed)}`)).reason._tag,
          "ConstraintError"
        )
        const unknown = { ...unnamed, role: "root" }
        assert.strictEqual(
          (yield* Effect.flip(sql`INSERT INTO operator_tokens ${sql.insert(unknown)}`)).reason._tag,
          "ConstraintError"
        )
      }).pipe(Effect.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() }))),
    60_000
  )

  it.effect(
    "migration 20: a released deposit is owed back, not taken off its funding address; unmatched tokens are booked once",
    () =>
      Effect.gen(function* () {
        yield* migrateBefore(20)
        const sql = yield* SqlClient.SqlClient
        const scope = R.freshScope()
        const quote = R.quote(scope, { contractType: "forward", depositAmount: R.dec("100.000000") })
        const t1 = R.plus(R.base, Duration.minutes(1))
        const t2 = R.plus(t1, Duration.days(2))
        const active = R.moved(R.contract(quote), "active", t1, { fundedAmount: R.dec("112.345678") })
        const settled = R.moved(active, "settled", t2)
        const funding = [
          ...R.ledgerPair(active, "funds_received", "funding_wallet", "partner_prepayment", "112.345678", t1),
          ...R.ledgerPair(active, "deposit_held", "partner_prepayment", "deposits_held", "100.000000", t1)
        ]
        // as a forward's settlement booked its deposit before: taken off the funding address
        const released = (account: "funding_wallet" | "refunds_payable") =>
          R.ledgerPair(settled, "deposit_released", "deposits_held", account, "100.000000", t2)
        const transfer = (index: number, overrides: Partial<ContractRepo.UnmatchedTransfer> = {}) => ({
          contractId: settled.id,
          partnerId: settled.partnerId,
          environment: settled.environment,
          chain: settled.chain,
          transactionHash: `0x${"12".repeat(32)}`,
          index,
          blockNumber: 9_000 + index,
          token: settled.settlementCurrency,
          amount: "1.500000",
          unit: "token" as const,
          reason: "not_awaiting_funds" as const,
          contractStatus: "settled" as const,
          observedAt: R.plus(t2, Duration.minutes(index)),
          ...overrides
        })
        const late = transfer(0)
        const others = [
          transfer(1, { token: "0x7ceb23fd6bc0add59e62ac25578270cff1b9f619", amount: "15", unit: "base_units" }),
          transfer(2, { token: "USDT" }),
          transfer(3, { amount: "0.000000" })
        ]
        yield* Effect.gen(function* () {
          yield* (yield* PartnerRepo.PartnerRepo).insertPartner({ id: scope.partnerId, name: "Old", createdAt: R.base })
          yield* insertBeforeMarketData(quote)
          yield* insertBeforeLimits(settled)
          const ledger = [
            ...funding.map((e) => ledgerRow(e, 2)),
            ...released("funding_wallet").map((e) => ledgerRow(e, 3))
          ]
          for (const row of ledger) yield* sql`INSERT INTO ledger_entries ${sql.insert(row)}`
          for (const t of [late, ...others]) yield* sql`INSERT INTO unmatched_transfers ${sql.insert(unmatchedRow(t))}`
        }).pipe(Effect.provide(PgPartnerRepo.layer))

        assert.deepStrictEqual(
          (yield* PgStore.migrate).map(([id]) => id),
          [
            20,
            ...Object.keys(PgMigrations.migrations)
              .map((key) => Number.parseInt(key, 10))
              .filter((id) => id > 20)
          ]
        )
        yield* Effect.gen(function* () {
          const contracts = yield* ContractRepo.ContractRepo
          const movements = yield* MovementRepo.MovementRepo
          // the contract reads back, with no funding index; its deposit is owed back now
          assert.deepStrictEqual(R.plain(Option.getOrThrow(yield* contracts.findById(settled.id))), R.plain(settled))
          assert.deepStrictEqual(
            R.plain(yield* contracts.ledgerEntries(settled.id)),
            R.plain([...funding, ...released("refunds_payable")])
          )
          // the unmatched tokens booked as core books them; another token, or nothing, not
          const source = TreasuryLedger.unmatchedSource(late)
          const booked = TreasuryLedger.unmatchedEntries(late, settled)
          assert.strictEqual(booked.length, 2)
          assert.deepStrictEqual(R.plain(yield* movements.entriesOf(source)), R.plain(booked))
          for (const other of others) {
            assert.deepStrictEqual(yield* movements.entriesOf(TreasuryLedger.unmatchedSource(other)), [])
          }
          // recorded again, it is booked no more
          yield* contracts.recordUnmatchedTransfer(late)
          assert.deepStrictEqual(R.plain(yield* movements.entriesOf(source)), R.plain(booked))
          // by the books, the funding address holds the funds, the deposit and the late tokens
          const balances = yield* movements.fundingBalances({ environment: settled.environment, chain: settled.chain })
          assert.deepStrictEqual(
            balances.map((b) => [b.contractId, Money.format(b.balance), b.status, b.fundingIndex]),
            [[settled.id, "113.845678", "settled", null]]
          )
          // a movement's nonce is held in the payouts' table, under its own name
          const refund = R.movement(settled)
          yield* movements.insert(refund)
          const signer = `0x${"ef".repeat(20)}`
          yield* movements.recordSigned(
            { ...refund, status: "prepared", updatedAt: R.plusMillis(refund.updatedAt, 1) },
            refund,
            { signer, floor: 3, pending: 3 },
            (nonce) => Effect.succeed({ transactionHash: "0x1", persisted: `signed at ${nonce}` })
          )
          const held = yield* sql<{ readonly holder: string; readonly nonce: string }>`
            SELECT holder, nonce::text AS nonce FROM hot_wallet_nonces WHERE signer = ${signer}`
          assert.deepStrictEqual(held, [{ holder: `movement:${refund.id}`, nonce: "3" }])
        }).pipe(Effect.provide(Layer.mergeAll(PgContractRepo.layer, PgMovementRepo.layer)))

        // the new rules hold: an account, kind or currency the treasury does not know; a second sweep in flight
        for (const refused of [
          sql`UPDATE ledger_entries SET account = 'treasury' WHERE contract_id = ${settled.id}`,
          sql`UPDATE treasury_entries SET currency = 'BTC'`,
          sql`UPDATE treasury_entries SET kind = 'gift'`,
          sql`UPDATE movements SET waiting = 'stuck'`
        ]) {
          assert.strictEqual((yield* Effect.flip(refused)).reason._tag, "ConstraintError")
        }
      }).pipe(Effect.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() }))),
    60_000
  )

  it.effect(
    "payouts stored before migration 17 read back unchanged, an EVM one in flight keeps its nonce, and new ones sign past it",
    () =>
      Effect.gen(function* () {
        yield* migrateBefore(17)
        const sql = yield* SqlClient.SqlClient
        const scope = R.freshScope()
        const pending = R.payout(R.contract(R.quote(scope)), { chain: "ethereum", createdAt: R.base })
        const confirmed = R.payout(R.contract(R.quote(scope)), {
          createdAt: R.plus(R.base, Duration.seconds(1)),
          status: "confirmed",
          prepared: "AQID",
          transactionHash: "0xabc",
          blockNumber: 7
        })
        const signer = `0x${"ab".repeat(20)}`
        // an EVM payout in flight, signed at nonce 5 before the store handed nonces out
        const inFlight = R.payout(R.contract(R.quote(scope)), {
          chain: "ethereum",
          createdAt: R.plus(R.base, Duration.seconds(2)),
          status: "prepared",
          prepared: JSON.stringify({ v: 1, chainId: 1, from: signer, nonce: 5, serialized: "0x02" }),
          transactionHash: `0x${"cd".repeat(32)}`
        })
        // as the store wrote a payout before the migration: without the three columns
        for (const payout of [pending, confirmed, inFlight]) {
          const { nonce: _, waiting: __, replacements: ___, ...row } = payoutRow(payout)
          yield* sql`INSERT INTO payouts ${sql.insert(row)}`
        }

        // 17 and every migration after it
        assert.deepStrictEqual(
          (yield* PgStore.migrate).map(([id]) => id),
          Object.keys(PgMigrations.migrations)
            .map((key) => Number.parseInt(key, 10))
            .filter((id) => id >= 17)
        )
        yield* Effect.gen(function* () {
          const payouts = yield* PayoutRepo.PayoutRepo
          for (const payout of [pending, confirmed]) {
            assert.deepStrictEqual(
              R.plain(Option.getOrNull(yield* payouts.findByContract(payout.contractId))),
              R.plain(payout)
            )
          }
          assert.deepStrictEqual(ids(yield* payouts.list({ statuses: ["pending", "confirmed"], limit: 10 })), [
            pending.id,
            confirmed.id
          ])
          // the payout in flight now holds its nonce: the next payout of its wallet is signed past it
          assert.strictEqual(Option.getOrThrow(yield* payouts.findByContract(inFlight.contractId)).nonce, 5)
          const written = yield* payouts.recordSigned(
            { ...pending, status: "prepared", updatedAt: R.plus(R.base, Duration.minutes(1)) },
            pending,
            { signer, floor: 5, pending: 5 },
            (nonce) => Effect.succeed({ transactionHash: "0x1", persisted: `signed at ${nonce}` })
          )
          assert.strictEqual(Option.getOrThrow(written).nonce, 6)
        }).pipe(Effect.provide(PgPayoutRepo.layer))

        // the new rules hold: a wait core does not know, a negative count or nonce, a signer not in lowercase
        for (const refused of [
          sql`UPDATE payouts SET waiting = 'stuck' WHERE id = ${pending.id}`,
          sql`UPDATE payouts SET replacements = -1 WHERE id = ${pending.id}`,
          sql`UPDATE payouts SET nonce = -1 WHERE id = ${pending.id}`,
          sql`INSERT INTO hot_wallet_nonces (environment, chain, signer, nonce, holder, allocated_at)
            VALUES ('sandbox', 'ethereum', ${signer.toUpperCase()}, 0, 'payout:x', now())`
        ]) {
          assert.strictEqual((yield* Effect.flip(refused)).reason._tag, "ConstraintError")
        }
        // and the primary key: a nonce of the wallet recorded once
        const again =
          yield* Effect.flip(sql`INSERT INTO hot_wallet_nonces (environment, chain, signer, nonce, holder, allocated_at)
          VALUES ('sandbox', 'ethereum', ${signer}, 6, 'sweep:x', now())`)
        assert.strictEqual(again.reason._tag, "UniqueViolation")
      }).pipe(Effect.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() }))),
    60_000
  )

  it.effect(
    "quotes stored before market data keep every field and point at the illustrative snapshot, without inputs",
    () =>
      Effect.gen(function* () {
        yield* migrateBefore(9)
        const scope = R.freshScope()
        const priced = R.quote(scope)
        const accepted = R.quote(scope, { createdAt: R.plus(R.base, Duration.seconds(1)) })
        const failed = R.failedQuote(scope)
        const contract = R.contract(accepted)
        yield* Effect.gen(function* () {
          yield* (yield* PartnerRepo.PartnerRepo).insertPartner({ id: scope.partnerId, name: "Old", createdAt: R.base })
          for (const quote of [priced, accepted, failed]) yield* insertBeforeMarketData(quote)
          yield* insertBeforeLimits(contract)
        }).pipe(Effect.provide(PgPartnerRepo.layer))

        assert.deepStrictEqual(
          (yield* PgStore.migrate).map(([id]) => id),
          Object.keys(PgMigrations.migrations)
            .map((key) => Number.parseInt(key, 10))
            .filter((id) => id >= 9)
        )
        yield* Effect.gen(function* () {
          const quotes = yield* QuoteRepo.QuoteRepo
          const snapshots = yield* MarketSnapshotRepo.MarketSnapshotRepo
          const id = PgMigrations.illustrativeSnapshotId
          // priced quotes (accepted or not) name the illustrative snapshot; a failed one names none
          for (const quote of [priced, accepted]) {
            const stored = Option.getOrThrow(yield* quotes.find(scope, quote.id))
            assert.deepStrictEqual(
              R.plain(stored),
              R.plain({ ...quote, snapshotId: id, acceptedAt: stored.acceptedAt })
            )
            assert.isNull(stored.pricingInputs)
          }
          assert.deepStrictEqual(R.plain(Option.getOrNull(yield* quotes.find(scope, failed.id))), R.plain(failed))
          // the illustrative snapshot, hashed as core hashes it: importing it again finds it
          const illustrative = Option.getOrThrow(yield* snapshots.find(id))
          const hash = yield* MarketSnapshot.hash(MarketSnapshot.illustrative)
          assert.strictEqual(illustrative.hash, hash)
          assert.strictEqual(illustrative.source, "illustrative defaults")
          assert.strictEqual(DateTime.formatIso(illustrative.asOf), MarketSnapshot.illustrativeDocument.as_of)
          assert.strictEqual(
            MarketSnapshot.canonicalJson(illustrative.document),
            MarketSnapshot.canonicalJson(MarketSnapshot.illustrative)
          )
          assert.deepStrictEqual(
            Option.map(yield* snapshots.latest(), (s) => s.id),
            Option.some(id)
          )
          const again = yield* snapshots.insert(
            yield* MarketSnapshotRepo.record(MarketSnapshot.illustrative, { id: uuid(), importedAt: R.base })
          )
          assert.deepStrictEqual([again.created, again.snapshot.id], [false, id])
        }).pipe(Effect.provide(Layer.mergeAll(PgQuoteRepo.layer, PgMarketSnapshotRepo.layer, Digest.layerWebCrypto)))
      }).pipe(Effect.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() }))),
    60_000
  )

  it.effect(
    "migration 12 counts the contracts that hold capacity into their corridors, as the store counts them later",
    () =>
      Effect.gen(function* () {
        yield* migrateBefore(12)
        const scope = R.freshScope()
        const production = R.freshScope("production")
        const inUsd = R.quote(scope, { notionalAmount: R.dec("1000.00") })
        // 10000 BRL at 5.4424: 1837.424665589… USD, counted as 1837.424666
        const inBrl = R.quote(scope, { notionalCurrency: "BRL", notionalAmount: R.dec("10000") })
        const done = R.quote(scope)
        const eur = R.quote(production, { direction: "EUR_TO_USD", notionalCurrency: "EUR", lockedRate: R.dec("1.17") })
        const contracts = {
          inUsd: R.contract(inUsd),
          inBrl: R.contract(inBrl, {
            status: "active",
            history: [
              { status: "quote_created", at: R.base, cause: "contract created from quote" },
              { status: "active", at: R.base, cause: "funded" }
            ]
          }),
          done: R.contract(done, {
            status: "expired",
            history: [{ status: "expired", at: R.base, cause: "old" }]
          }),
          eur: R.contract(eur)
        }
        yield* Effect.gen(function* () {
          for (const s of [scope, production]) {
            yield* (yield* PartnerRepo.PartnerRepo).insertPartner({ id: s.partnerId, name: "Old", createdAt: R.base })
          }
          for (const quote of [inUsd, inBrl, done, eur]) yield* insertBeforeMarketData(quote)
          for (const contract of Object.values(contracts)) yield* insertBeforeLimits(contract)
        }).pipe(Effect.provide(PgPartnerRepo.layer))

        yield* PgStore.migrate
        yield* Effect.gen(function* () {
          const limits = yield* CorridorLimitRepo.CorridorLimitRepo
          const figures = (yield* limits.list()).map((c) => [c.environment, c.direction, Money.format(c.openNotional)])
          assert.deepStrictEqual(figures, [
            ["production", "EUR_TO_USD", "10000"],
            ["sandbox", "USD_TO_BRL", "2837.424666"]
          ])
          // leaving the holding statuses gives back exactly what was counted
          const repo = yield* ContractRepo.ContractRepo
          const later = R.plus(R.base, Duration.hours(2))
          yield* repo.commit(R.change(contracts.inUsd, R.moved(contracts.inUsd, "failed", later)))
          yield* repo.commit(R.change(contracts.inBrl, R.moved(contracts.inBrl, "exercised", later)))
          assert.isTrue(Money.isZero((yield* limits.find("sandbox", "USD_TO_BRL")).openNotional))
        }).pipe(Effect.provide(Layer.mergeAll(PgContractRepo.layer, PgCorridorLimitRepo.layer)))
      }).pipe(Effect.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() }))),
    60_000
  )

  it.effect(
    "a database with no priced quote gets no snapshot from the migration",
    () =>
      Effect.gen(function* () {
        yield* migrateBefore(9)
        const scope = R.freshScope()
        yield* Effect.gen(function* () {
          yield* (yield* PartnerRepo.PartnerRepo).insertPartner({ id: scope.partnerId, name: "Old", createdAt: R.base })
          yield* insertBeforeMarketData(R.failedQuote(scope))
        }).pipe(Effect.provide(PgPartnerRepo.layer))
        yield* PgStore.migrate
        const latest = yield* Effect.flatMap(MarketSnapshotRepo.MarketSnapshotRepo, (repo) => repo.latest()).pipe(
          Effect.provide(PgMarketSnapshotRepo.layer)
        )
        assert.isTrue(Option.isNone(latest))
      }).pipe(Effect.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() }))),
    60_000
  )

  it.effect(
    "an upgraded store keeps its rows and rules, and hands out each rail's funding indexes from where its counter stopped",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // the schema as it was before migration 5, with rows in it and indexes already handed out
        const before = Object.fromEntries(
          Object.entries(PgMigrations.migrations).filter(([key]) => Number.parseInt(key, 10) < 5)
        )
        yield* PgMigrator.make({})({ loader: PgMigrator.fromRecord(before), table: PgStore.migrationsTable })
        yield* sql`INSERT INTO funding_address_counters (chain, environment, next_index)
          VALUES ('polygon', 'sandbox', 42), ('solana', 'production', 7)`
        const repos = Layer.mergeAll(PgContractRepo.layer, PgQuoteRepo.layer, PgPartnerRepo.layer)
        const scope = R.freshScope()
        const quote = R.quote(scope)
        const contract = R.contract(quote)
        yield* Effect.gen(function* () {
          yield* (yield* PartnerRepo.PartnerRepo).insertPartner({ id: scope.partnerId, name: "Old", createdAt: R.base })
          yield* insertBeforeMarketData(quote)
          yield* insertBeforeLimits(contract)
        }).pipe(Effect.provide(repos))

        yield* PgStore.migrate
        const allocated = yield* Effect.gen(function* () {
          const contracts = yield* ContractRepo.ContractRepo
          // the contract written before the upgrade reads back and still moves
          const stored = Option.getOrThrow(yield* contracts.findById(contract.id))
          assert.deepStrictEqual(R.plain(stored), R.plain(contract))
          const active = R.moved(stored, "funds_in_route", R.plus(R.base, Duration.minutes(1)))
          yield* contracts.commit(R.change(stored, active))
          assert.strictEqual(Option.getOrThrow(yield* contracts.findById(contract.id)).status, "funds_in_route")
          return [
            yield* contracts.allocateFundingIndex({ chain: "polygon", environment: "sandbox" }),
            yield* contracts.allocateFundingIndex({ chain: "polygon", environment: "sandbox" }),
            yield* contracts.allocateFundingIndex({ chain: "solana", environment: "production" }),
            yield* contracts.allocateFundingIndex({ chain: "ethereum", environment: "sandbox" })
          ]
        }).pipe(Effect.provide(repos))
        assert.deepStrictEqual(allocated, [42, 43, 7, 0])
        // the counters are gone: code still using them fails rather than hand out an index twice
        const counters = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.tables
          WHERE table_name = 'funding_address_counters'`
        assert.strictEqual(counters[0]?.n, 0)
        // the rules hold on the domains: a negative amount or an unknown status is refused
        const refused = yield* Effect.flip(sql`UPDATE contracts SET funded_amount = -1 WHERE id = ${contract.id}`)
        assert.strictEqual(refused.reason._tag, "ConstraintError")
        const unknown = yield* Effect.flip(sql`UPDATE contracts SET status = 'lost' WHERE id = ${contract.id}`)
        assert.strictEqual(unknown.reason._tag, "ConstraintError")
      }).pipe(Effect.provide(PgliteClient.layer({ loadDataDir: PgliteTemplate.dump() }))),
    60_000
  )
})
