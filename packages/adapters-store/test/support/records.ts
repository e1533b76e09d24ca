/**
 * Valid records for the store contract suite, and the helpers that keep its tests apart while
 * they share one store: a fresh partner (uuid) per test, explicit instants, and a private span of
 * time for each test that claims worker jobs (claims are not scoped by partner).
 */
import { BigDecimal, DateTime, Duration } from "effect"
import {
  type Contract,
  type ContractRepo,
  type DailyClose,
  type EventRepo,
  type Ledger,
  MarketSnapshot,
  Money,
  PeriodPnl
} from "@ratelock/core"
import { MarketSnapshotRepo } from "@ratelock/core"
import type { MovementRepo, Partner, PayoutRepo, PricingInputs, Quote, Rail } from "@ratelock/core"
import { Effect, Schema } from "effect"
import { Digest } from "effect/crypto"

export const uuid = (): string => crypto.randomUUID()

export const dec = Money.unsafe

export const at = (iso: string): DateTime.Utc => DateTime.makeUnsafe(iso)

export const plusMillis = (t: DateTime.Utc, millis: number): DateTime.Utc =>
  DateTime.makeUnsafe(t.epochMilliseconds + millis)

export const plus = (t: DateTime.Utc, duration: Duration.Input): DateTime.Utc =>
  plusMillis(t, Duration.toMillis(duration))

/** The instant most records are written at, in tests that claim nothing (any partner-scoped test). */
export const base: DateTime.Utc = at("2024-05-01T12:00:00.123Z")

const workerSpan = Duration.days(30)
let nextWorkerStart = at("1999-12-01T00:00:00.000Z").epochMilliseconds

/**
 * A span of time of its own (30 days, ms precision) for a test that claims worker jobs or lists
 * contracts by status, which see every partner's rows. Spans go backwards from 1999 and every
 * other test writes at 2024, so at any `now` inside this span, the jobs of the tests that ran
 * before are not due yet, and this test's rows are the oldest in the store. The suite's tests
 * run one after another.
 */
export const workerEpoch = (): DateTime.Utc => {
  nextWorkerStart -= Duration.toMillis(workerSpan)
  return DateTime.makeUnsafe(nextWorkerStart + 7)
}

export const freshScope = (environment: Partner.Environment = "sandbox"): Partner.PartnerScope => ({
  partnerId: uuid(),
  environment
})

export const otherEnvironment = (scope: Partner.PartnerScope): Partner.PartnerScope => ({
  partnerId: scope.partnerId,
  environment: scope.environment === "sandbox" ? "production" : "sandbox"
})

/** A priced quote, created at `createdAt` (default `base`) and valid 90 s. */
export const quote = (scope: Partner.PartnerScope, overrides: Partial<Quote.QuoteRecord> = {}): Quote.QuoteRecord => {
  const createdAt = overrides.createdAt ?? base
  return {
    id: uuid(),
    partnerId: scope.partnerId,
    environment: scope.environment,
    customerReferenceId: "customer-1",
    customerName: "Ana Souza",
    contractType: "option",
    direction: "USD_TO_BRL",
    notionalCurrency: "USD",
    notionalAmount: dec("10000.00"),
    providerRate: dec("5.4400"),
    marketRate: dec("5.4412"),
    marketRateTimestamp: plusMillis(createdAt, -1_500),
    strikeMode: "custom",
    targetStrike: dec("5.5000"),
    providerExtraSpread: dec("0.0010"),
    status: "created",
    failureReason: null,
    lockedRate: dec("5.4424"),
    strikeAdvantageBps: 12,
    premiumAmount: dec("12.345678"),
    depositAmount: null,
    totalAmount: dec("12.345678"),
    maxTransactionAmount: dec("10000.000000"),
    windowStart: plus(createdAt, Duration.days(1)),
    windowEnd: plus(createdAt, Duration.days(8)),
    chain: "polygon",
    settlementCurrency: "USDC",
    expiresAt: plus(createdAt, Duration.seconds(90)),
    createdAt,
    acceptedAt: null,
    snapshotId: null,
    pricingInputs: null,
    ...overrides
  }
}

/**
 * A snapshot document observed at `asOf`, decoded as an import decodes it: the illustrative one
 * with a smile, a second pillar and holidays (so every kind of field is stored), its source naming
 * it apart from any other.
 */
export const snapshotDocument = (asOf: DateTime.Utc, source = `test ${uuid()}`): MarketSnapshot.MarketSnapshot =>
  Schema.decodeUnknownSync(MarketSnapshot.MarketSnapshot)({
    ...MarketSnapshot.illustrativeDocument,
    as_of: DateTime.formatIso(asOf),
    source,
    holidays: { BRL: ["2027-01-01", "2026-12-25"] },
    vols: {
      ...MarketSnapshot.illustrativeDocument.vols,
      "USD/BRL": [
        { tenor_days: 30, atm: "0.1400", rr25: "-0.012", bf25: "0.004" },
        { tenor_days: 365, atm: "0.155", rr25: "-0.01" }
      ]
    }
  })

/** The record of `document` as imported at `importedAt` under a new id, hashed as core hashes it. */
export const storedSnapshot = (
  document: MarketSnapshot.MarketSnapshot,
  importedAt: DateTime.Utc = base
): Effect.Effect<MarketSnapshotRepo.StoredSnapshot> =>
  MarketSnapshotRepo.record(document, { id: uuid(), importedAt }).pipe(Effect.provide(Digest.layerWebCrypto))

/** Model inputs with doubles that only an exact round trip keeps (no short decimal form). */
export const pricingInputs = (overrides: Partial<PricingInputs.PricingInputs> = {}): PricingInputs.PricingInputs => ({
  spot: dec("5.44120"),
  forward_t1: 5.441200000000001,
  forward_t2: 0.1 + 0.2 + 5.2,
  rate_domestic: Math.log(1 + 0.1425 / 1.7) / 3,
  rate_foreign: -1.2345678901234566e-7,
  sigma: 1 / 7,
  t1: 2 / 365,
  t2: 8 / 365,
  engine: "crr-lattice",
  engine_version: "1",
  steps: 200,
  ...overrides
})

/** A quote that could not be priced. */
export const failedQuote = (scope: Partner.PartnerScope, overrides: Partial<Quote.QuoteRecord> = {}) =>
  quote(scope, {
    status: "failed",
    failureReason: { code: "provider_rate_off_market", message: "provider_rate is 6 % from market_rate" },
    lockedRate: dec("0"),
    premiumAmount: dec("0"),
    totalAmount: dec("0"),
    ...overrides
  })

/** A new contract (`quote_created`, one history entry) from a quote, created 10 s after it. */
export const contract = (
  from: Quote.QuoteRecord,
  overrides: Partial<Contract.ContractRecord> = {}
): Contract.ContractRecord => {
  const createdAt = overrides.createdAt ?? plus(from.createdAt, Duration.seconds(10))
  return {
    id: uuid(),
    partnerId: from.partnerId,
    environment: from.environment,
    quoteId: from.id,
    serviceContractReference: `RL-${uuid().slice(0, 8)}`,
    customerReferenceId: from.customerReferenceId,
    partnerTransactionReference: null,
    contractType: from.contractType,
    direction: from.direction,
    notionalCurrency: from.notionalCurrency,
    notionalAmount: from.notionalAmount,
    lockedRate: from.lockedRate,
    providerRateAtLock: from.providerRate,
    marketRateAtLock: from.marketRate,
    premiumAmount: from.premiumAmount,
    depositAmount: from.depositAmount,
    totalAmount: from.totalAmount,
    maxTransactionAmount: from.maxTransactionAmount,
    windowStart: from.windowStart,
    windowEnd: from.windowEnd,
    chain: from.chain,
    settlementCurrency: from.settlementCurrency,
    fundingWalletAddress: `0x${uuid().replaceAll("-", "")}00000000`,
    fundingIndex: null,
    fundedAmount: dec("0.000000"),
    fundingDeadline: plus(createdAt, Duration.hours(1)),
    status: "quote_created",
    exercise: null,
    eventSequence: 0,
    history: [{ status: "quote_created", at: createdAt, cause: "contract created from quote" }],
    createdAt,
    updatedAt: createdAt,
    ...overrides
  }
}

/** The contract after one transition at `when`: a history entry more, and the patch. */
export const moved = (
  before: Contract.ContractRecord,
  status: Contract.ContractStatus,
  when: DateTime.Utc,
  patch: Partial<Contract.ContractRecord> = {}
): Contract.ContractRecord => ({
  ...before,
  ...patch,
  status,
  history: [...before.history, { status, at: when, cause: `moved to ${status}` }],
  updatedAt: when
})

/** A commit of `after` computed from `before`, with nothing else unless given. */
export const change = (
  before: Contract.ContractRecord,
  after: Contract.ContractRecord,
  parts: Partial<Omit<ContractRepo.ContractChange, "contract">> = {}
): ContractRepo.ContractChange => ({
  contract: after,
  expectedVersion: before.history.length,
  outgoing: null,
  incoming: null,
  transfer: null,
  ledger: [],
  ...parts
})

/** An outgoing event of the contract, `sequence` = its `eventSequence`, pending and due at creation. */
export const outgoing = (
  of: Contract.ContractRecord,
  overrides: Partial<EventRepo.OutgoingEvent> = {}
): EventRepo.OutgoingEvent => {
  const id = overrides.id ?? uuid()
  const createdAt = overrides.createdAt ?? of.updatedAt
  const eventType = overrides.eventType ?? "funds_received"
  return {
    id,
    eventId: id,
    partnerId: of.partnerId,
    environment: of.environment,
    contractId: of.id,
    eventType,
    sequence: of.eventSequence,
    payload: {
      event_type: eventType,
      event_id: id,
      fx_contract_id: of.id,
      sequence: of.eventSequence,
      amount: "5.4400"
    },
    status: "pending",
    attempts: 0,
    lastError: null,
    nextAttemptAt: createdAt,
    createdAt,
    deliveredAt: null,
    lastBody: null,
    traceContext: null,
    ...overrides
  }
}

/** An inbound event of the contract with a fresh Idempotency-Key. */
export const incoming = (
  of: Contract.ContractRecord,
  overrides: Partial<EventRepo.IncomingEvent> = {}
): EventRepo.IncomingEvent => {
  const createdAt = overrides.createdAt ?? of.updatedAt
  return {
    id: uuid(),
    partnerId: of.partnerId,
    environment: of.environment,
    contractId: of.id,
    eventType: "funds_in_route",
    idempotencyKey: `key-${uuid()}`,
    status: "processed",
    payload: { event_type: "funds_in_route", fx_contract_id: of.id, amount: "12.345678", nested: { list: [1, "a"] } },
    createdAt,
    processedAt: createdAt,
    traceContext: null,
    ...overrides
  }
}

/** A confirmed transfer with a fresh transaction hash. */
export const transfer = (chain: Rail.Chain, overrides: Partial<ContractRepo.FundingTransfer> = {}) => ({
  chain,
  transactionHash: `0x${uuid().replaceAll("-", "")}${uuid().replaceAll("-", "")}`,
  index: 0,
  blockNumber: 123_456,
  amount: dec("12.345678"),
  ...overrides
})

/** A balanced double entry: `amount` debited to `debit`, credited to `credit`. */
export const ledgerPair = (
  of: Contract.ContractRecord,
  kind: Ledger.EntryKind,
  debit: Ledger.Account,
  credit: Ledger.Account,
  amount: string,
  when: DateTime.Utc,
  currency: Rail.FundsCurrency = of.settlementCurrency
): ReadonlyArray<Ledger.LedgerEntry> => {
  const entry = { contractId: of.id, partnerId: of.partnerId, environment: of.environment, kind, currency, at: when }
  const value = dec(amount)
  return [
    { ...entry, account: debit, amount: value },
    { ...entry, account: credit, amount: BigDecimal.negate(value) }
  ]
}

/** What a job the hot wallet signs (a payout, a movement) holds before anything is signed: pending, due at creation. */
const unsigned = (createdAt: DateTime.Utc) => ({
  status: "pending" as const,
  prepared: null,
  transactionHash: null,
  nonce: null,
  waiting: null,
  replacements: 0,
  blockNumber: null,
  attempts: 0,
  lastError: null,
  nextAttemptAt: createdAt,
  createdAt,
  updatedAt: createdAt
})

/** A payout of the contract, pending and due at creation. */
export const payout = (
  of: Contract.ContractRecord,
  overrides: Partial<PayoutRepo.PayoutRecord> = {}
): PayoutRepo.PayoutRecord => {
  const createdAt = overrides.createdAt ?? of.updatedAt
  return {
    id: uuid(),
    contractId: of.id,
    partnerId: of.partnerId,
    environment: of.environment,
    chain: of.chain,
    currency: "USDC",
    destination: "0x00000000000000000000000000000000000000aa",
    amount: dec("5.440000"),
    fxDeltaInQuoteCurrency: dec("29.6000000000"),
    ...unsigned(createdAt),
    ...overrides
  }
}

/** A movement of the contract: by default the refund of its deposit, pending and due at creation. */
export const movement = (
  of: Contract.ContractRecord,
  overrides: Partial<MovementRepo.Movement> = {}
): MovementRepo.Movement => {
  const createdAt = overrides.createdAt ?? of.updatedAt
  return {
    id: uuid(),
    kind: "refund",
    purpose: "deposit",
    key: `deposit:${of.id}`,
    contractId: of.id,
    partnerId: of.partnerId,
    environment: of.environment,
    chain: of.chain,
    currency: of.settlementCurrency,
    source: null,
    fundingIndex: null,
    destination: "0x00000000000000000000000000000000000000bb",
    amount: dec("100.000000"),
    requestedBy: "worker",
    ...unsigned(createdAt),
    ...overrides
  }
}

/** A sweep of the contract's funding address into the hot wallet, pending and due at creation. */
export const sweep = (
  of: Contract.ContractRecord,
  overrides: Partial<MovementRepo.Movement> = {}
): MovementRepo.Movement => {
  const id = overrides.id ?? uuid()
  return movement(of, {
    id,
    kind: "sweep",
    purpose: "hot_wallet",
    key: `sweep:${id}`,
    source: of.fundingWalletAddress,
    fundingIndex: 7,
    destination: null,
    amount: dec("12.345678"),
    ...overrides
  })
}

let nextCloseStart = at("2100-01-01T00:00:00.000Z").epochMilliseconds

/**
 * A span of time of its own (30 days) for a test of the daily closes, whose latest close and lists see every
 * test's closes of an environment: spans go forward from 2100, after everything the other tests write, so each
 * test's closes are the newest when it runs (the suite's tests run one after another).
 */
export const closeEpoch = (): DateTime.Utc => {
  const start = nextCloseStart
  nextCloseStart += Duration.toMillis(Duration.days(30))
  return DateTime.makeUnsafe(start)
}

/** An open lock at a close, its figures doubles that only an exact round trip keeps (`-0` and the tiniest among them). */
export const closeLock = (overrides: Partial<DailyClose.CloseLock> = {}): DailyClose.CloseLock => ({
  contract_id: uuid(),
  partner_id: uuid(),
  direction: "USD_TO_BRL",
  notional_base: 10_000.000000000002,
  strike: 0.1 + 0.2 + 5.2,
  window_start: at("2100-01-02T00:00:00.000Z").epochMilliseconds,
  window_end: at("2100-01-09T00:00:00.000Z").epochMilliseconds,
  mtm: -1234.5678901234567,
  delta: -0,
  gamma: 5e-324,
  vega: 1 / 3,
  theta: -1.2345678901234566e-7,
  vanna: 2 / 3,
  volga: -Math.E * 1e-3,
  vol: Math.PI / 20,
  ...overrides
})

/** Every P&L line: a few set, with their scales, the others zero. */
const pnlLines = (): PeriodPnl.PnlLines => ({
  ...PeriodPnl.zeroLines(),
  premiums: dec("12.345678"),
  payouts: dec("-29.60"),
  realised: dec("-17.254322"),
  unrealised: dec("4.1"),
  total: dec("-13.154322"),
  unexplained: dec("-0.000001")
})

/**
 * A close of `environment` at `closedAt`, every field of its summary set (decimals of several scales, the P&L after
 * the close `previous`), on the illustrative snapshot, with `locks`. Scheduled for `closedAt` unless overridden.
 */
export const dailyClose = (
  environment: Partner.Environment,
  closedAt: DateTime.Utc,
  overrides: Partial<DailyClose.DailyClose> = {}
): DailyClose.DailyClose => {
  const id = overrides.id ?? uuid()
  const previous = uuid()
  const partnerId = uuid()
  const figures = { spot: dec("5.4420"), mtm: dec("-1234.56"), delta: dec("-0.000001"), gamma: dec("12.5") }
  return {
    id,
    environment,
    closed_at: closedAt,
    scheduled_for: closedAt,
    snapshot_id: uuid(),
    snapshot_as_of: plusMillis(closedAt, -60_000),
    previous_close_id: previous,
    usd_per: { USD: dec("1"), BRL: dec("0.18375597"), MXN: dec("0.0588"), EUR: dec("1.0850"), NGN: dec("0.000650") },
    pairs: [
      {
        pair: "USD/BRL",
        quote: "BRL",
        spot: figures.spot,
        usd_per_quote: dec("0.18375597"),
        open_locks: 2,
        mtm: figures.mtm,
        delta: figures.delta,
        gamma: figures.gamma,
        vega: dec("0"),
        theta: dec("-3.00"),
        mtm_usd: dec("-226.86"),
        payouts_due_usd: dec("29.60"),
        hedge_position: dec("-80000.25"),
        hedge_mark: dec("1500.123456"),
        hedge_mark_usd: dec("275.66"),
        hedge_realised: dec("0.00")
      }
    ],
    payouts_due: [
      {
        contract_id: uuid(),
        partner_id: partnerId,
        pair: "USD/BRL",
        token: "USDC",
        amount: dec("29.600000"),
        amount_usd: dec("29.60")
      }
    ],
    balances: [
      { ledger: "contracts", account: "premium_income", currency: "USDC", balance: dec("-12.345678") },
      { ledger: "hedges", account: "hedge_venue", currency: "BRL", balance: dec("432961.35301") }
    ],
    pnl: {
      from_close_id: previous,
      to_close_id: id,
      from: plus(closedAt, Duration.days(-1)),
      to: closedAt,
      days: 86_401 / 86_400,
      usd: pnlLines(),
      pairs: [
        { pair: "USD/BRL", quote: "BRL", usd: pnlLines(), in_quote: pnlLines(), locks_sold: 3, locks_settled: 1 }
      ],
      partners: [
        {
          partner_id: partnerId,
          locks_sold: 3,
          premiums: dec("12.345678"),
          forfeits: dec("0"),
          payouts: dec("-29.60"),
          realised: dec("-17.254322"),
          pairs: [
            {
              pair: "USD/BRL",
              locks_sold: 3,
              premiums: dec("12.345678"),
              forfeits: dec("0"),
              payouts: dec("-29.60"),
              realised: dec("-17.254322")
            }
          ]
        }
      ],
      tokens: [{ token: "USDC", premiums: dec("12.345678"), forfeits: dec("0.000000"), payouts: dec("-29.600000") }],
      network_fees: [{ chain: "polygon", currency: "POL", amount: dec("0.001234567890123456") }]
    },
    snapshot: MarketSnapshot.illustrativeAt(plusMillis(closedAt, -60_000)),
    locks: [closeLock(), closeLock({ direction: "BRL_TO_USD", mtm: 0.1 + 0.2, delta: 7.000000000000001 })],
    ...overrides
  }
}

/**
 * A value with decimals and instants turned into strings that show their scale and milliseconds
 * (`"5.4400"`, `"2024-05-01T12:00:00.123Z"`), for exact round-trip comparisons.
 */
export const plain = (value: unknown): unknown => {
  if (BigDecimal.isBigDecimal(value)) return `decimal ${Money.format(value)}`
  if (DateTime.isDateTime(value)) return `instant ${DateTime.formatIso(value)}`
  if (Array.isArray(value)) return value.map(plain)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
  }
  return value
}

/** Newest first by `(createdAt, id)`: the order every list promises. */
export const byNewest = (a: { createdAt: DateTime.Utc; id: string }, b: { createdAt: DateTime.Utc; id: string }) =>
  b.createdAt.epochMilliseconds - a.createdAt.epochMilliseconds || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** The cursor position of a row: what the programs hand back as the next page's `after`. */
export const positionOf = (row: { readonly createdAt: DateTime.Utc; readonly id: string }) => ({
  createdAt: DateTime.formatIso(row.createdAt),
  id: row.id
})
