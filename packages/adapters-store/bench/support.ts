/**
 * Helpers of the store benchmark (`bench/store.ts`): the records a write inserts, the bulk load of
 * contracts for one partner, and timing loops.
 */
import {
  type Cursor,
  IdempotencyRepo,
  Money,
  type Partner,
  type Quote,
  QuoteRepo,
  type StoreError
} from "@ratelock/core"
import { DateTime, Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"

// ---------------------------------------------------------------------------------------------
// Records

const dec = Money.unsafe
const priced = {
  notionalAmount: dec("10000.00"),
  providerRate: dec("5.4400"),
  marketRate: dec("5.4412"),
  targetStrike: dec("5.5000"),
  providerExtraSpread: dec("0.0010"),
  lockedRate: dec("5.4424"),
  premiumAmount: dec("12.345678"),
  maxTransactionAmount: dec("10000.000000")
}
const day = 86_400_000
const at = (t: DateTime.Utc, millis: number): DateTime.Utc => DateTime.makeUnsafe(t.epochMilliseconds + millis)

/** A priced quote as `Quotes.create` stores it: created now, valid 90 s, window in 1 to 8 days. */
export const quoteAt = (scope: Partner.PartnerScope, customer: string, now: DateTime.Utc): Quote.QuoteRecord => ({
  id: crypto.randomUUID(),
  partnerId: scope.partnerId,
  environment: scope.environment,
  customerReferenceId: customer,
  customerName: "Ana Souza",
  contractType: "option",
  direction: "USD_TO_BRL",
  notionalCurrency: "USD",
  notionalAmount: priced.notionalAmount,
  providerRate: priced.providerRate,
  marketRate: priced.marketRate,
  marketRateTimestamp: at(now, -1_500),
  strikeMode: "custom",
  targetStrike: priced.targetStrike,
  providerExtraSpread: priced.providerExtraSpread,
  status: "created",
  failureReason: null,
  lockedRate: priced.lockedRate,
  strikeAdvantageBps: 12,
  premiumAmount: priced.premiumAmount,
  depositAmount: null,
  totalAmount: priced.premiumAmount,
  maxTransactionAmount: priced.maxTransactionAmount,
  windowStart: at(now, day),
  windowEnd: at(now, 8 * day),
  chain: "polygon",
  settlementCurrency: "USDC",
  expiresAt: at(now, 90_000),
  createdAt: now,
  acceptedAt: null,
  snapshotId: null,
  pricingInputs: null
})

/** The stored response replayed for the key: the quote's wire body (about 600 bytes). */
const responseBody = (quote: Quote.QuoteRecord): string =>
  JSON.stringify({
    id: quote.id,
    status: "created",
    locked_rate: "5.4424",
    strike_mode: "custom",
    target_strike: "5.5000",
    strike_advantage_bps: 12,
    provider_extra_spread: "0.0010",
    premium_amount: "12.345678",
    deposit_amount: null,
    total_amount: "12.345678",
    window_start: DateTime.formatIso(quote.windowStart),
    window_end: DateTime.formatIso(quote.windowEnd),
    chain: "polygon",
    settlement_currency: "USDC",
    expires_at: DateTime.formatIso(quote.expiresAt),
    created_at: DateTime.formatIso(quote.createdAt)
  })

const fingerprint = "sha256:9f2c4e1a7b3d5f60812a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d"

/**
 * One write, in one transaction on the repositories (the ports), in the order a POST /quotes runs
 * them through `Idempotency`: claim the key, insert the quote, store the response for replay.
 * Build it once; the inner effect is one operation.
 */
export const writeQuote = (
  scope: Partner.PartnerScope,
  customer: string
): Effect.Effect<
  Effect.Effect<Quote.QuoteRecord, StoreError.StoreError | SqlError.SqlError>,
  never,
  SqlClient.SqlClient | QuoteRepo.QuoteRepo | IdempotencyRepo.IdempotencyRepo
> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const quotes = yield* QuoteRepo.QuoteRepo
    const keys = yield* IdempotencyRepo.IdempotencyRepo
    return sql.withTransaction(
      Effect.gen(function* () {
        const now = DateTime.makeUnsafe(Date.now())
        const quote = quoteAt(scope, customer, now)
        const key = `bench-${quote.id}`
        const claim: IdempotencyRepo.Claim = yield* keys.claim(scope, key, fingerprint, now, at(now, day))
        if (claim._tag !== "Claimed") return yield* Effect.die(`idempotency key ${key}: ${claim._tag}`)
        yield* quotes.insert(quote)
        yield* keys.complete(scope, key, { status: 201, body: responseBody(quote) }, at(now, day))
        return quote
      })
    )
  })

// ---------------------------------------------------------------------------------------------
// Bulk load: contract i (1..n) of one partner and customer, created at 2020-01-01 + ⌊i/2⌋ s (two
// rows share each instant, so the id tie-break is exercised), from quote i created 10 s before,
// `failed` after its funding deadline: version 2 with two history entries. Ids are md5-derived
// uuids, so contract and quote ids are random-looking and need no join.

const createdAt = `timestamptz '2020-01-01 00:00:00+00' + (i / 2) * interval '1 second'`

export const loadContracts = (scope: Partner.PartnerScope, customer: string, from: number, to: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = sql`FROM generate_series(${from}::int, ${to}::int) AS g(i), LATERAL (SELECT ${sql.literal(createdAt)} AS t) AS c`
    yield* sql`INSERT INTO quotes (id, partner_id, environment, customer_reference_id, customer_name, contract_type,
        direction, notional_currency, notional_amount, provider_rate, market_rate, market_rate_timestamp, strike_mode,
        target_strike, provider_extra_spread, status, locked_rate, strike_advantage_bps, premium_amount, total_amount,
        max_transaction_amount, window_start, window_end, chain, settlement_currency, expires_at, created_at, accepted_at)
      SELECT md5('q' || i)::uuid, ${scope.partnerId}::uuid, ${scope.environment}, ${customer}, 'Ana Souza', 'option',
        'USD_TO_BRL', 'USD', 10000.00, 5.4400, 5.4412, t - interval '11.5 seconds', 'custom',
        5.5000, 0.0010, 'created', 5.4424, 12, 12.345678, 12.345678,
        10000.000000, t + interval '1 day' - interval '10 seconds', t + interval '8 days' - interval '10 seconds',
        'polygon', 'USDC', t + interval '80 seconds', t - interval '10 seconds', t
      ${rows}`
    yield* sql`INSERT INTO contracts (id, partner_id, environment, quote_id, service_contract_reference,
        customer_reference_id, partner_transaction_reference, contract_type, direction, notional_currency,
        notional_amount, locked_rate, provider_rate_at_lock, market_rate_at_lock, premium_amount, total_amount,
        max_transaction_amount, window_start, window_end, chain, settlement_currency, funding_wallet_address,
        funded_amount, funding_deadline, status, event_sequence, version, created_at, updated_at)
      SELECT md5('c' || i)::uuid, ${scope.partnerId}::uuid, ${scope.environment}, md5('q' || i)::uuid,
        'RL-' || lpad(i::text, 8, '0'), ${customer}, 'order-' || i, 'option', 'USD_TO_BRL', 'USD',
        10000.00, 5.4424, 5.4400, 5.4412, 12.345678, 12.345678,
        10000.000000, t + interval '1 day' - interval '10 seconds', t + interval '8 days' - interval '10 seconds',
        'polygon', 'USDC', '0x' || md5('w' || i) || '00000000',
        0.000000, t + interval '1 hour', 'failed', 0, 2, t, t + interval '1 hour'
      ${rows}`
    yield* sql`INSERT INTO contract_history (contract_id, seq, status, at, cause)
      SELECT md5('c' || i)::uuid, h.seq, h.status, t + h.later, h.cause
      ${rows}, (VALUES (1, 'quote_created', interval '0', 'contract created from quote'),
        (2, 'failed', interval '1 hour', 'funding deadline passed with no confirmed funds')) AS h(seq, status, later, cause)`
  })

/** The positions of the rows at offsets `offset - 1` and `offset`, newest first: the page's `after` and first row. */
export const positionAt = (scope: Partner.PartnerScope, customer: string, offset: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ created_at: Date; id: string }>`SELECT created_at, id FROM contracts
      WHERE partner_id = ${scope.partnerId} AND environment = ${scope.environment} AND customer_reference_id = ${customer}
      ORDER BY created_at DESC, id DESC OFFSET ${offset - 1} LIMIT 2`
    const [after, first] = rows.map((r): Cursor.Position => ({ createdAt: r.created_at.toISOString(), id: r.id }))
    if (after === undefined || first === undefined) return yield* Effect.die(`no row at offset ${offset}`)
    return { after, first }
  })

// ---------------------------------------------------------------------------------------------
// Timing

export type Throughput = {
  readonly ops: number
  readonly perSecond: number
  readonly p50: number
  readonly p95: number
  /** CPU time of this process over wall time (1 = one core busy; PGlite runs inside it). */
  readonly cpu: number
}

export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/** `op` run back to back by `writers` fibers for `millis`: operations per second and latency. */
export const runFor = <E, R>(op: Effect.Effect<unknown, E, R>, writers: number, millis: number) =>
  Effect.gen(function* () {
    const latencies: Array<number> = []
    const cpu = process.cpuUsage()
    const start = performance.now()
    const end = start + millis
    yield* Effect.forEach(
      Array.from({ length: writers }),
      () =>
        Effect.gen(function* () {
          while (performance.now() < end) {
            const t = performance.now()
            yield* op
            latencies.push(performance.now() - t)
          }
        }),
      { concurrency: "unbounded", discard: true }
    )
    const elapsed = performance.now() - start
    const used = process.cpuUsage(cpu)
    latencies.sort((a, b) => a - b)
    return {
      ops: latencies.length,
      perSecond: (latencies.length * 1000) / elapsed,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      cpu: (used.user + used.system) / 1000 / elapsed
    } satisfies Throughput
  })

/** Warm-up, then the measured run. */
export const throughput = <E, R>(op: Effect.Effect<unknown, E, R>, writers: number, warmup: number, measure: number) =>
  Effect.andThen(runFor(op, writers, warmup), runFor(op, writers, measure))

export const elapsedSince = (start: number): string => `${((performance.now() - start) / 1000).toFixed(1)} s`

export const progress = (line: string) => Effect.sync(() => console.log(`  · ${line}`))
