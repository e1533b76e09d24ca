/**
 * The schema of the Postgres store, as migrations for Effect's migrator (`<id>_<name>` keys, run
 * once each, in id order, in one transaction). The same SQL runs on a server and on PGlite, so it
 * sticks to plain Postgres: no extensions.
 *
 * Conventions: money and rates are `numeric` (exact, the scale as written); every timestamp is
 * `timestamptz(3)`, the precision the keyset cursors rely on; every row a partner can read
 * carries `(partner_id, environment)` and every list runs on an index that leads with it.
 * Released migrations are never edited: a change is a new entry.
 */
import { PgMigrator } from "@effect/sql-pg"
import { CorridorLimit, MarketSnapshot, Money } from "@ratelock/core"
import type { Corridor, Partner } from "@ratelock/core"
import { Effect } from "effect"
import { Digest } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { timestamp } from "./internal/rows/columns.ts"
import { documentJson } from "./internal/rows/snapshots.ts"

const environment = `environment text NOT NULL CHECK (environment IN ('sandbox', 'production'))`
const chain = `chain text NOT NULL CHECK (chain IN ('solana', 'ethereum', 'polygon'))`
const settlementCurrency = `settlement_currency text NOT NULL CHECK (settlement_currency IN ('USDC', 'USDT', 'EURC'))`
const fundsCurrencies = `('USDC', 'USDT', 'EURC', 'BRLA')`
const contractStatuses = `('quote_created', 'funds_in_route', 'active', 'exercised', 'settled', 'expired', 'failed', 'defaulted', 'deposit_forfeited')`

const initial: ReadonlyArray<string> = [
  `CREATE TABLE partners (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    created_at timestamptz(3) NOT NULL
  )`,
  `CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    partner_id uuid NOT NULL REFERENCES partners (id),
    ${environment},
    secret_hash text NOT NULL,
    created_at timestamptz(3) NOT NULL,
    revoked_at timestamptz(3)
  )`,
  `CREATE INDEX api_keys_scope ON api_keys (partner_id, environment)`,
  `CREATE TABLE webhook_endpoints (
    partner_id uuid NOT NULL REFERENCES partners (id),
    ${environment},
    url text NOT NULL,
    PRIMARY KEY (partner_id, environment)
  )`,
  // signing secrets, newest first by position; kept in clear: they key the HMACs
  `CREATE TABLE webhook_secrets (
    partner_id uuid NOT NULL,
    environment text NOT NULL,
    position integer NOT NULL CHECK (position >= 0),
    secret text NOT NULL,
    valid_until timestamptz(3),
    PRIMARY KEY (partner_id, environment, position),
    FOREIGN KEY (partner_id, environment) REFERENCES webhook_endpoints (partner_id, environment) ON DELETE CASCADE
  )`,
  `CREATE TABLE quotes (
    id uuid PRIMARY KEY,
    partner_id uuid NOT NULL,
    ${environment},
    customer_reference_id text NOT NULL,
    customer_name text NOT NULL,
    contract_type text NOT NULL CHECK (contract_type IN ('forward', 'option')),
    direction text NOT NULL,
    notional_currency text NOT NULL,
    notional_amount numeric NOT NULL CHECK (notional_amount >= 0),
    provider_rate numeric NOT NULL CHECK (provider_rate >= 0),
    market_rate numeric NOT NULL CHECK (market_rate >= 0),
    market_rate_timestamp timestamptz(3) NOT NULL,
    strike_mode text NOT NULL CHECK (strike_mode IN ('cip_fair', 'live_spot', 'custom')),
    target_strike numeric CHECK (target_strike >= 0),
    provider_extra_spread numeric NOT NULL,
    status text NOT NULL CHECK (status IN ('created', 'failed')),
    failure_code text,
    failure_message text,
    locked_rate numeric NOT NULL CHECK (locked_rate >= 0),
    strike_advantage_bps integer NOT NULL CHECK (strike_advantage_bps >= 0),
    premium_amount numeric NOT NULL CHECK (premium_amount >= 0),
    deposit_amount numeric CHECK (deposit_amount >= 0),
    total_amount numeric NOT NULL CHECK (total_amount >= 0),
    max_transaction_amount numeric NOT NULL CHECK (max_transaction_amount >= 0),
    window_start timestamptz(3) NOT NULL,
    window_end timestamptz(3) NOT NULL,
    ${chain},
    ${settlementCurrency},
    expires_at timestamptz(3) NOT NULL,
    created_at timestamptz(3) NOT NULL,
    accepted_at timestamptz(3),
    CHECK ((failure_code IS NULL) = (failure_message IS NULL))
  )`,
  `CREATE INDEX quotes_scope_created ON quotes (partner_id, environment, created_at DESC, id DESC)`,
  `CREATE INDEX quotes_scope_customer ON quotes (partner_id, environment, customer_reference_id, created_at DESC, id DESC)`,
  `CREATE TABLE contracts (
    id uuid PRIMARY KEY,
    partner_id uuid NOT NULL,
    ${environment},
    quote_id uuid NOT NULL REFERENCES quotes (id),
    service_contract_reference text NOT NULL,
    customer_reference_id text NOT NULL,
    partner_transaction_reference text,
    contract_type text NOT NULL CHECK (contract_type IN ('forward', 'option')),
    direction text NOT NULL,
    notional_currency text NOT NULL,
    notional_amount numeric NOT NULL CHECK (notional_amount >= 0),
    locked_rate numeric NOT NULL CHECK (locked_rate >= 0),
    provider_rate_at_lock numeric NOT NULL CHECK (provider_rate_at_lock >= 0),
    market_rate_at_lock numeric NOT NULL CHECK (market_rate_at_lock >= 0),
    premium_amount numeric NOT NULL CHECK (premium_amount >= 0),
    deposit_amount numeric CHECK (deposit_amount >= 0),
    total_amount numeric NOT NULL CHECK (total_amount >= 0),
    max_transaction_amount numeric NOT NULL CHECK (max_transaction_amount >= 0),
    window_start timestamptz(3) NOT NULL,
    window_end timestamptz(3) NOT NULL,
    ${chain},
    ${settlementCurrency},
    funding_wallet_address text NOT NULL,
    funded_amount numeric NOT NULL CHECK (funded_amount >= 0),
    funding_deadline timestamptz(3) NOT NULL,
    status text NOT NULL CHECK (status IN ${contractStatuses}),
    exercise_executed_at timestamptz(3),
    exercise_live_execution_rate numeric CHECK (exercise_live_execution_rate >= 0),
    exercise_payout_wallet_address text,
    exercise_payout_currency text CHECK (exercise_payout_currency IN ${fundsCurrencies}),
    event_sequence integer NOT NULL CHECK (event_sequence >= 0),
    version integer NOT NULL CHECK (version >= 1),
    funding_cursor text,
    lease_owner text,
    lease_expires_at timestamptz(3),
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL,
    CONSTRAINT contracts_quote_unique UNIQUE (quote_id),
    CHECK (num_nulls(exercise_executed_at, exercise_live_execution_rate, exercise_payout_wallet_address, exercise_payout_currency) IN (0, 4))
  )`,
  `CREATE INDEX contracts_scope_customer ON contracts (partner_id, environment, customer_reference_id, created_at DESC, id DESC)`,
  `CREATE INDEX contracts_status ON contracts (status, created_at, id)`,
  `CREATE INDEX contracts_due_expiry ON contracts (window_end, id) WHERE status = 'active'`,
  `CREATE INDEX contracts_due_funding ON contracts (funding_deadline, id) WHERE status IN ('quote_created', 'funds_in_route')`,
  // one row per transition; seq 1..version
  `CREATE TABLE contract_history (
    contract_id uuid NOT NULL REFERENCES contracts (id),
    seq integer NOT NULL CHECK (seq >= 1),
    status text NOT NULL CHECK (status IN ${contractStatuses}),
    at timestamptz(3) NOT NULL,
    cause text NOT NULL,
    PRIMARY KEY (contract_id, seq)
  )`,
  // both directions in one table, so the audit listing is one keyset query
  `CREATE TABLE webhook_events (
    id uuid PRIMARY KEY,
    direction text NOT NULL CHECK (direction IN ('incoming', 'outgoing')),
    partner_id uuid NOT NULL,
    ${environment},
    contract_id uuid NOT NULL,
    event_type text NOT NULL,
    idempotency_key text,
    event_id text,
    sequence integer CHECK (sequence >= 1),
    status text NOT NULL,
    payload json NOT NULL,
    attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error text,
    last_body text,
    next_attempt_at timestamptz(3),
    lease_owner text,
    lease_expires_at timestamptz(3),
    created_at timestamptz(3) NOT NULL,
    processed_at timestamptz(3),
    CHECK (CASE direction
      WHEN 'incoming' THEN event_type IN ('funds_in_route', 'contract_exercised')
        AND status IN ('processed', 'queued')
        AND idempotency_key IS NOT NULL AND event_id IS NULL AND sequence IS NULL
      ELSE event_type IN ('funds_received', 'payout_settled', 'payout_failed', 'contract_expired')
        AND status IN ('pending', 'delivered', 'retrying', 'failed')
        AND event_id IS NOT NULL AND sequence IS NOT NULL AND next_attempt_at IS NOT NULL AND idempotency_key IS NULL
    END)
  )`,
  `CREATE UNIQUE INDEX webhook_events_incoming_key ON webhook_events (partner_id, environment, idempotency_key) WHERE direction = 'incoming'`,
  `CREATE UNIQUE INDEX webhook_events_outgoing_sequence ON webhook_events (contract_id, sequence) WHERE direction = 'outgoing'`,
  `CREATE INDEX webhook_events_scope_created ON webhook_events (partner_id, environment, created_at DESC, id DESC)`,
  `CREATE INDEX webhook_events_scope_contract ON webhook_events (partner_id, environment, contract_id, created_at DESC, id DESC)`,
  `CREATE INDEX webhook_events_payout_feed ON webhook_events (partner_id, environment, created_at, id) WHERE direction = 'outgoing' AND event_type IN ('payout_settled', 'payout_failed')`,
  `CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at, id) WHERE direction = 'outgoing' AND status IN ('pending', 'retrying')`,
  `CREATE TABLE idempotency_keys (
    partner_id uuid NOT NULL,
    ${environment},
    key text NOT NULL,
    fingerprint text NOT NULL,
    response_status integer,
    response_body text,
    created_at timestamptz(3) NOT NULL,
    expires_at timestamptz(3) NOT NULL,
    PRIMARY KEY (partner_id, environment, key),
    CHECK ((response_status IS NULL) = (response_body IS NULL))
  )`,
  // a transfer is counted once: its chain identity is the key
  `CREATE TABLE funding_transfers (
    ${chain},
    transaction_hash text NOT NULL,
    log_index integer NOT NULL CHECK (log_index >= 0),
    contract_id uuid NOT NULL REFERENCES contracts (id),
    block_number bigint NOT NULL CHECK (block_number >= 0),
    amount numeric NOT NULL CHECK (amount >= 0),
    counted_at timestamptz(3) NOT NULL,
    PRIMARY KEY (chain, transaction_hash, log_index)
  )`,
  `CREATE INDEX funding_transfers_contract ON funding_transfers (contract_id)`,
  `CREATE TABLE payouts (
    id uuid PRIMARY KEY,
    contract_id uuid NOT NULL,
    partner_id uuid NOT NULL,
    ${environment},
    ${chain},
    currency text NOT NULL CHECK (currency IN ${fundsCurrencies}),
    destination text NOT NULL,
    amount numeric NOT NULL CHECK (amount >= 0),
    fx_delta_in_quote_currency numeric NOT NULL CHECK (fx_delta_in_quote_currency >= 0),
    status text NOT NULL CHECK (status IN ('pending', 'prepared', 'confirmed', 'failed')),
    prepared text,
    transaction_hash text,
    block_number bigint CHECK (block_number >= 0),
    attempts integer NOT NULL CHECK (attempts >= 0),
    last_error text,
    next_attempt_at timestamptz(3) NOT NULL,
    lease_owner text,
    lease_expires_at timestamptz(3),
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL,
    CONSTRAINT payouts_contract_unique UNIQUE (contract_id)
  )`,
  `CREATE INDEX payouts_due ON payouts (next_attempt_at, id) WHERE status IN ('pending', 'prepared')`,
  `CREATE INDEX payouts_scope ON payouts (partner_id, environment, created_at, id)`,
  // the next never-issued HD index per chain and environment
  `CREATE TABLE funding_address_counters (
    chain text NOT NULL,
    environment text NOT NULL,
    next_index bigint NOT NULL CHECK (next_index >= 0),
    PRIMARY KEY (chain, environment)
  )`,
  // double entry: per (contract_id, version) and currency the amounts sum to zero; version is the
  // contract version the commit produced, so it groups the entries of one commit
  `CREATE TABLE ledger_entries (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    contract_id uuid NOT NULL,
    version integer NOT NULL,
    partner_id uuid NOT NULL,
    ${environment},
    kind text NOT NULL CHECK (kind IN ('funds_received', 'premium_received', 'deposit_held', 'deposit_released', 'deposit_forfeited', 'payout_paid')),
    account text NOT NULL CHECK (account IN ('funding_wallet', 'partner_prepayment', 'premium_income', 'deposits_held', 'forfeited_deposits', 'payout_expense', 'payout_wallet')),
    currency text NOT NULL CHECK (currency IN ${fundsCurrencies}),
    amount numeric NOT NULL,
    at timestamptz(3) NOT NULL,
    FOREIGN KEY (contract_id, version) REFERENCES contract_history (contract_id, seq)
  )`,
  `CREATE INDEX ledger_entries_contract ON ledger_entries (contract_id, id)`,
  `CREATE INDEX ledger_entries_scope ON ledger_entries (partner_id, environment, currency, account)`
]

// funds into a funding address that did not fund its contract (after it stopped awaiting funds,
// or another token), kept for an operator's refund; amount in tokens or raw base units per `unit`
const unmatchedTransfers: ReadonlyArray<string> = [
  `CREATE TABLE unmatched_transfers (
    ${chain},
    transaction_hash text NOT NULL,
    log_index integer NOT NULL CHECK (log_index >= 0),
    contract_id uuid NOT NULL REFERENCES contracts (id),
    partner_id uuid NOT NULL,
    ${environment},
    block_number bigint NOT NULL CHECK (block_number >= 0),
    token text NOT NULL,
    amount numeric NOT NULL CHECK (amount >= 0),
    unit text NOT NULL CHECK (unit IN ('token', 'base_units')),
    reason text NOT NULL CHECK (reason IN ('not_awaiting_funds', 'wrong_token')),
    contract_status text NOT NULL CHECK (contract_status IN ${contractStatuses}),
    observed_at timestamptz(3) NOT NULL,
    PRIMARY KEY (chain, transaction_hash, log_index)
  )`,
  `CREATE INDEX unmatched_transfers_contract ON unmatched_transfers (contract_id, observed_at)`
]

/** Contracts past funding, by their last transition: the late-funds watch reads the recent ones. */
const lateFundsWatch: ReadonlyArray<string> = [
  `CREATE INDEX contracts_late_funds ON contracts (updated_at)
    WHERE status NOT IN ('quote_created', 'funds_in_route')`
]

/**
 * A guard a single statement can end with: `SELECT ratelock_conflict_unless(<condition>)` fails the
 * whole statement as a serialization failure (40001) when a compare-and-set in it matched nothing,
 * so its unconditional inserts are rolled back with it. One statement instead of a transaction of
 * several saves the round trips of BEGIN, COMMIT and the statements in between.
 */
const conflictGuard: ReadonlyArray<string> = [
  `CREATE FUNCTION ratelock_conflict_unless(ok boolean) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    IF ok IS NOT TRUE THEN
      RAISE EXCEPTION 'the row changed since it was read' USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN true;
  END $$`
]

/** The sequence that hands out one rail's funding-address indexes. */
export const fundingIndexSequence = (chain: string, environment: string) => `funding_index_${chain}_${environment}`

/**
 * Funding-address indexes from one sequence per chain and environment instead of a counter row:
 * every contract creation updated that one row and held its lock until its commit was on disk,
 * so concurrent creations queued on it. Each sequence starts where its counter stopped; the
 * counters are dropped, so a replica still on the old code fails instead of reusing an index.
 */
const fundingIndexSequences: ReadonlyArray<string> = [
  ...["solana", "ethereum", "polygon"].flatMap((chain) =>
    ["sandbox", "production"].flatMap((environment) => {
      const name = fundingIndexSequence(chain, environment)
      return [
        `CREATE SEQUENCE ${name} AS bigint MINVALUE 0 START WITH 0`,
        `SELECT setval('${name}', next_index, false) FROM funding_address_counters
          WHERE chain = '${chain}' AND environment = '${environment}' AND next_index > 0`
      ]
    })
  ),
  `DROP TABLE funding_address_counters`
]

/**
 * The single-column CHECKs of the tables every lifecycle writes, moved onto domains. PostgreSQL
 * rebuilds a table's CHECK expressions from their stored text on every statement that writes
 * the table (about a fifth of its CPU in `pnpm bench:lifecycle`); a domain's checks are read
 * once per connection. The rules are the same; the seldom-written tables keep their CHECKs, and
 * so do the checks over several columns.
 */
const checkDomains: Record<string, string> = {
  ratelock_environment: `text CHECK (VALUE IN ('sandbox', 'production'))`,
  ratelock_chain: `text CHECK (VALUE IN ('solana', 'ethereum', 'polygon'))`,
  ratelock_settlement_currency: `text CHECK (VALUE IN ('USDC', 'USDT', 'EURC'))`,
  ratelock_funds_currency: `text CHECK (VALUE IN ${fundsCurrencies})`,
  ratelock_contract_type: `text CHECK (VALUE IN ('forward', 'option'))`,
  ratelock_contract_status: `text CHECK (VALUE IN ${contractStatuses})`,
  ratelock_quote_status: `text CHECK (VALUE IN ('created', 'failed'))`,
  ratelock_strike_mode: `text CHECK (VALUE IN ('cip_fair', 'live_spot', 'custom'))`,
  ratelock_event_direction: `text CHECK (VALUE IN ('incoming', 'outgoing'))`,
  ratelock_payout_status: `text CHECK (VALUE IN ('pending', 'prepared', 'confirmed', 'failed'))`,
  ratelock_ledger_kind: `text CHECK (VALUE IN ('funds_received', 'premium_received', 'deposit_held', 'deposit_released', 'deposit_forfeited', 'payout_paid'))`,
  ratelock_ledger_account: `text CHECK (VALUE IN ('funding_wallet', 'partner_prepayment', 'premium_income', 'deposits_held', 'forfeited_deposits', 'payout_expense', 'payout_wallet'))`,
  ratelock_nonnegative_numeric: `numeric CHECK (VALUE >= 0)`,
  ratelock_nonnegative_integer: `integer CHECK (VALUE >= 0)`,
  ratelock_positive_integer: `integer CHECK (VALUE >= 1)`,
  ratelock_nonnegative_bigint: `bigint CHECK (VALUE >= 0)`
}

/** Per table: each column whose CHECK (named `<table>_<column>_check`) becomes its domain. */
const checkedColumns: Record<string, Record<string, string>> = {
  quotes: {
    environment: "ratelock_environment",
    chain: "ratelock_chain",
    settlement_currency: "ratelock_settlement_currency",
    contract_type: "ratelock_contract_type",
    notional_amount: "ratelock_nonnegative_numeric",
    provider_rate: "ratelock_nonnegative_numeric",
    market_rate: "ratelock_nonnegative_numeric",
    strike_mode: "ratelock_strike_mode",
    target_strike: "ratelock_nonnegative_numeric",
    status: "ratelock_quote_status",
    locked_rate: "ratelock_nonnegative_numeric",
    strike_advantage_bps: "ratelock_nonnegative_integer",
    premium_amount: "ratelock_nonnegative_numeric",
    deposit_amount: "ratelock_nonnegative_numeric",
    total_amount: "ratelock_nonnegative_numeric",
    max_transaction_amount: "ratelock_nonnegative_numeric"
  },
  contracts: {
    environment: "ratelock_environment",
    chain: "ratelock_chain",
    settlement_currency: "ratelock_settlement_currency",
    contract_type: "ratelock_contract_type",
    notional_amount: "ratelock_nonnegative_numeric",
    locked_rate: "ratelock_nonnegative_numeric",
    provider_rate_at_lock: "ratelock_nonnegative_numeric",
    market_rate_at_lock: "ratelock_nonnegative_numeric",
    premium_amount: "ratelock_nonnegative_numeric",
    deposit_amount: "ratelock_nonnegative_numeric",
    total_amount: "ratelock_nonnegative_numeric",
    max_transaction_amount: "ratelock_nonnegative_numeric",
    funded_amount: "ratelock_nonnegative_numeric",
    status: "ratelock_contract_status",
    exercise_live_execution_rate: "ratelock_nonnegative_numeric",
    exercise_payout_currency: "ratelock_funds_currency",
    event_sequence: "ratelock_nonnegative_integer",
    version: "ratelock_positive_integer"
  },
  contract_history: { status: "ratelock_contract_status" },
  webhook_events: {
    direction: "ratelock_event_direction",
    environment: "ratelock_environment",
    sequence: "ratelock_positive_integer",
    attempts: "ratelock_nonnegative_integer"
  },
  funding_transfers: {
    chain: "ratelock_chain",
    log_index: "ratelock_nonnegative_integer",
    block_number: "ratelock_nonnegative_bigint",
    amount: "ratelock_nonnegative_numeric"
  },
  payouts: {
    environment: "ratelock_environment",
    chain: "ratelock_chain",
    currency: "ratelock_funds_currency",
    amount: "ratelock_nonnegative_numeric",
    fx_delta_in_quote_currency: "ratelock_nonnegative_numeric",
    status: "ratelock_payout_status",
    block_number: "ratelock_nonnegative_bigint",
    attempts: "ratelock_nonnegative_integer"
  },
  ledger_entries: {
    environment: "ratelock_environment",
    kind: "ratelock_ledger_kind",
    account: "ratelock_ledger_account",
    currency: "ratelock_funds_currency"
  }
}

const checksOnDomains: ReadonlyArray<string> = [
  ...Object.entries(checkDomains).map(([name, definition]) => `CREATE DOMAIN ${name} AS ${definition}`),
  ...Object.entries(checkedColumns).map(
    ([table, columns]) =>
      `ALTER TABLE ${table} ${Object.entries(columns)
        .map(([column, domain]) => `DROP CONSTRAINT ${table}_${column}_check, ALTER COLUMN ${column} TYPE ${domain}`)
        .join(", ")}`
  )
]

/**
 * The API replicas running on this database, for the per-key rate limit they share
 * (`@ratelock/http`'s `RateLimitShares`): each replica upserts its row every second with an expiry
 * a few seconds on, the requests per second it saw per API key over its last second (`demand`,
 * a JSON object), and the live replicas it counted (itself included).
 */
const apiReplicas: ReadonlyArray<string> = [
  `CREATE TABLE api_replicas (
    id text PRIMARY KEY,
    expires_at timestamptz(3) NOT NULL,
    replicas integer NOT NULL,
    demand jsonb NOT NULL
  )`
]

/**
 * The sandbox's webhook inbox (`WebhookInbox` in core): deliveries to the service's own receiver,
 * the newest 100 per partner kept.
 */
const sandboxWebhookInbox: ReadonlyArray<string> = [
  `CREATE TABLE sandbox_webhook_inbox (
    id uuid PRIMARY KEY,
    partner_id uuid NOT NULL REFERENCES partners (id),
    received_at timestamptz(3) NOT NULL,
    headers json NOT NULL,
    body text NOT NULL,
    signature_problem text
  )`,
  `CREATE INDEX sandbox_webhook_inbox_newest ON sandbox_webhook_inbox (partner_id, received_at DESC, id DESC)`
]

/** Runs statements one by one (the extended protocol takes one statement per query). */
const statements = (list: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(list, (statement) => sql.unsafe(statement), { discard: true })
  )

/** The id of the illustrative snapshot that migration 9 stores for the quotes priced before market data. */
export const illustrativeSnapshotId = "00000000-0000-4000-8000-000000000001"

/**
 * Market-data snapshots (issue 15), immutable, one per document hash; `latest` reads the newest by
 * `(as_of, imported_at, id)` on `market_snapshots_latest`. Quotes name the snapshot that priced
 * them and keep their model inputs (`json`: each double as its shortest JSON text, read back
 * exactly). Quotes priced before this migration came from the static table of illustrative
 * defaults: when there are any, the illustrative snapshot (core's `MarketSnapshot.illustrative`,
 * its hash computed here as `MarketSnapshot.hash` does) is stored under `illustrativeSnapshotId`
 * and they point at it, without inputs (what the engine took was not kept). A database with no
 * priced quote gets no snapshot, as a new memory store has none.
 */
const marketSnapshots = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* statements([
    `CREATE TABLE market_snapshots (
      id uuid PRIMARY KEY,
      hash text NOT NULL UNIQUE CHECK (hash ~ '^[0-9a-f]{64}$'),
      as_of timestamptz(3) NOT NULL,
      source text NOT NULL,
      document json NOT NULL,
      imported_at timestamptz(3) NOT NULL
    )`,
    `CREATE INDEX market_snapshots_latest ON market_snapshots (as_of DESC, imported_at DESC, id DESC)`,
    `ALTER TABLE quotes
      ADD COLUMN snapshot_id uuid REFERENCES market_snapshots (id),
      ADD COLUMN pricing_inputs json`
  ])
  const illustrative = MarketSnapshot.illustrative
  const hash = yield* MarketSnapshot.hash(illustrative).pipe(Effect.provide(Digest.layerWebCrypto))
  yield* sql`INSERT INTO market_snapshots (id, hash, as_of, source, document, imported_at)
    SELECT ${illustrativeSnapshotId}::uuid, ${hash}::text, ${timestamp(illustrative.as_of)}::timestamptz,
      ${illustrative.source}::text, ${documentJson(illustrative)}::json, now()
    WHERE EXISTS (SELECT 1 FROM quotes WHERE status = 'created')`
  yield* sql`UPDATE quotes SET snapshot_id = ${illustrativeSnapshotId} WHERE status = 'created'`
})

/**
 * Corridor limits (issue 17; risk.md, Limits): per environment and corridor, the operator's limits
 * (null: the default) and `open_notional`, Σ N_b of the corridor's contracts in `quote_created`,
 * `funds_in_route` and `active`. The contract insert adds to it under the limits and the commits
 * that leave or enter those statuses move it, each in its own statement (`PgContractRepo`), so it
 * never drifts from the contracts. The contracts already stored are counted here with core's own
 * rule (`CorridorLimit.lockNotional`), so a transition later takes away exactly what was added.
 *
 * `ratelock_capacity_unless` is the insert's guard: a lock that did not fit fails its statement
 * with a check violation named `corridor_capacity`, which the repository answers as
 * `CorridorCapacityExceeded`.
 */
const corridorLimits = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* statements([
    `CREATE TABLE corridor_limits (
      environment ratelock_environment NOT NULL,
      direction text NOT NULL,
      max_lock_notional ratelock_nonnegative_numeric,
      max_open_notional ratelock_nonnegative_numeric,
      max_net_delta ratelock_nonnegative_numeric,
      open_notional ratelock_nonnegative_numeric NOT NULL DEFAULT 0,
      updated_at timestamptz(3),
      PRIMARY KEY (environment, direction)
    )`,
    `CREATE FUNCTION ratelock_capacity_unless(ok boolean) RETURNS boolean LANGUAGE plpgsql AS $$
    BEGIN
      IF ok IS NOT TRUE THEN
        RAISE EXCEPTION 'the lock does not fit its corridor''s limits'
          USING ERRCODE = 'check_violation', CONSTRAINT = 'corridor_capacity';
      END IF;
      RETURN true;
    END $$`
  ])
  const held = yield* sql<{
    readonly environment: Partner.Environment
    readonly direction: Corridor.Direction
    readonly notional_currency: Corridor.Currency
    readonly notional_amount: string
    readonly locked_rate: string
  }>`SELECT environment, direction, notional_currency, notional_amount::text, locked_rate::text FROM contracts
    WHERE status = ANY(${CorridorLimit.holdingStatuses}::text[])`
  const open = new Map<
    string,
    { environment: Partner.Environment; direction: Corridor.Direction; sum: Money.Decimal }
  >()
  for (const c of held) {
    const key = `${c.environment}|${c.direction}`
    const notional = CorridorLimit.lockNotional({
      direction: c.direction,
      notionalCurrency: c.notional_currency,
      notionalAmount: Money.unsafe(c.notional_amount),
      lockedRate: Money.unsafe(c.locked_rate)
    })
    const before = open.get(key)
    open.set(key, {
      environment: c.environment,
      direction: c.direction,
      sum: Money.sum(before?.sum ?? Money.zero, notional)
    })
  }
  for (const corridor of open.values()) {
    yield* sql`INSERT INTO corridor_limits (environment, direction, open_notional)
      VALUES (${corridor.environment}, ${corridor.direction}, ${Money.format(corridor.sum)}::numeric)`
  }
})

/**
 * Hedging the book (issue 18): a policy per environment and market pair, leased by the hedging
 * pass like any worker job; hedge orders, at most one per pair waiting for an outcome
 * (`hedge_orders_outstanding`), the position read from the filled ones
 * (`hedge_orders_fills`); the double-entry ledger of their fills, in the corridors' currencies;
 * and the simulated venue's own books (`sim_hedge_…`), in the same database so a restart forgets
 * nothing. The venue's rows name our order ids but do not reference them: it is another party.
 */
const hedging: ReadonlyArray<string> = [
  `CREATE TABLE hedge_policies (
    ${environment},
    pair text NOT NULL CHECK (pair ~ '^[A-Z]{3}/[A-Z]{3}$'),
    target_ratio numeric NOT NULL CHECK (target_ratio >= 0 AND target_ratio <= 1),
    band numeric NOT NULL CHECK (band > 0),
    instrument text NOT NULL CHECK (instrument IN ('spot', 'forward')),
    value_days integer CHECK (value_days >= 1),
    updated_at timestamptz(3) NOT NULL,
    lease_owner text,
    lease_expires_at timestamptz(3),
    PRIMARY KEY (environment, pair),
    CHECK ((instrument = 'forward') = (value_days IS NOT NULL))
  )`,
  `CREATE TABLE hedge_orders (
    id uuid PRIMARY KEY,
    ${environment},
    pair text NOT NULL CHECK (pair ~ '^[A-Z]{3}/[A-Z]{3}$'),
    side text NOT NULL CHECK (side IN ('buy', 'sell')),
    amount numeric NOT NULL CHECK (amount > 0),
    instrument text NOT NULL CHECK (instrument IN ('spot', 'forward')),
    value_date text NOT NULL CHECK (value_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    status text NOT NULL CHECK (status IN ('intended', 'sent', 'filled', 'rejected')),
    delta numeric NOT NULL,
    position numeric NOT NULL,
    target numeric NOT NULL,
    target_ratio numeric NOT NULL,
    band numeric NOT NULL,
    delta_snapshot_id text,
    delta_as_of timestamptz(3) NOT NULL,
    venue text NOT NULL,
    fill_rate numeric CHECK (fill_rate > 0),
    fill_amount numeric CHECK (fill_amount > 0),
    filled_at timestamptz(3),
    rejection_reason text,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL,
    CHECK (num_nulls(fill_rate, fill_amount, filled_at) = CASE WHEN status = 'filled' THEN 0 ELSE 3 END),
    CHECK ((status = 'rejected') = (rejection_reason IS NOT NULL))
  )`,
  `CREATE UNIQUE INDEX hedge_orders_outstanding ON hedge_orders (environment, pair)
    WHERE status IN ('intended', 'sent')`,
  `CREATE INDEX hedge_orders_fills ON hedge_orders (environment, pair) INCLUDE (side, fill_amount)
    WHERE status = 'filled'`,
  `CREATE INDEX hedge_orders_created ON hedge_orders (created_at DESC, id DESC)`,
  // per order and currency the amounts sum to zero
  `CREATE TABLE hedge_ledger_entries (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id uuid NOT NULL REFERENCES hedge_orders (id),
    ${environment},
    pair text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('hedge_filled')),
    account text NOT NULL CHECK (account IN ('hedge_position', 'hedge_venue')),
    currency text NOT NULL CHECK (currency IN ('USD', 'BRL', 'MXN', 'EUR', 'NGN')),
    amount numeric NOT NULL,
    at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX hedge_ledger_entries_order ON hedge_ledger_entries (order_id, id)`,
  `CREATE INDEX hedge_ledger_entries_scope ON hedge_ledger_entries (environment, currency, account)`,
  // what the simulated venue received, once per order id, and how many times it was asked
  `CREATE TABLE sim_hedge_fills (
    order_id uuid PRIMARY KEY,
    ${environment},
    pair text NOT NULL,
    side text NOT NULL CHECK (side IN ('buy', 'sell')),
    amount numeric NOT NULL CHECK (amount > 0),
    outcome text NOT NULL CHECK (outcome IN ('filled', 'rejected')),
    rate numeric CHECK (rate > 0),
    mid numeric CHECK (mid > 0),
    spread_bps numeric CHECK (spread_bps >= 0),
    reason text,
    timed_out boolean NOT NULL,
    executions integer NOT NULL CHECK (executions >= 1),
    received_at timestamptz(3) NOT NULL,
    CHECK (num_nulls(rate, mid, spread_bps) = CASE WHEN outcome = 'filled' THEN 0 ELSE 3 END),
    CHECK ((outcome = 'rejected') = (reason IS NOT NULL))
  )`,
  // what the next new orders will meet: a rejection, or a fill answered with a timeout
  `CREATE TABLE sim_hedge_venue_control (
    action text PRIMARY KEY CHECK (action IN ('reject', 'timeout')),
    remaining integer NOT NULL CHECK (remaining >= 0)
  )`
]

/**
 * The operator's side (issue 16): operator tokens (the operator API's bearer tokens, stored as
 * SHA-256 hashes, found by hash), the workers' heartbeats (one row per process and pass, for the
 * operator's status), and an index for counting payouts given up on (the status and its gauges
 * count them; `payouts_due` already covers those awaiting confirmation).
 */
const operatorTokens: ReadonlyArray<string> = [
  `CREATE TABLE operator_tokens (
    id uuid PRIMARY KEY,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    secret_hash text NOT NULL UNIQUE CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
    created_at timestamptz(3) NOT NULL,
    revoked_at timestamptz(3)
  )`,
  `CREATE TABLE worker_heartbeats (
    owner text NOT NULL,
    pass text NOT NULL,
    last_pass_at timestamptz(3) NOT NULL,
    ok boolean NOT NULL,
    PRIMARY KEY (owner, pass)
  )`,
  `CREATE INDEX payouts_failed ON payouts (environment) WHERE status = 'failed'`
]

/**
 * The book (issue 17): the operator's stress scenarios, one row per name, and the workers' current
 * revaluation, one row per environment, each document kept as its encoded JSON.
 */
const risk: ReadonlyArray<string> = [
  `CREATE TABLE risk_scenarios (
    name text PRIMARY KEY,
    document jsonb NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE TABLE risk_revaluations (
    ${environment} PRIMARY KEY,
    computed_at timestamptz(3) NOT NULL,
    snapshot_id uuid REFERENCES market_snapshots (id),
    report jsonb NOT NULL
  )`
]

/**
 * Trace context kept with webhook events (core's `TraceContext`): the W3C `traceparent` of the
 * span that recorded an incoming event or committed the transition that queued an outgoing one,
 * null when the service was not traced. A delivery attempt's span links to it.
 */
const eventTraceContext: ReadonlyArray<string> = [
  `ALTER TABLE webhook_events ADD COLUMN trace_context text
    CHECK (trace_context ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$')`
]

/**
 * The outgoing events given up on, per environment and partner: what the operator's failing
 * deliveries count (`BacklogRepo.failingDeliveries`) without reading the delivered ones.
 */
const failedDeliveries: ReadonlyArray<string> = [
  `CREATE INDEX webhook_events_failed ON webhook_events (environment, partner_id, created_at DESC, id DESC)
    WHERE direction = 'outgoing' AND status = 'failed'`
]

/**
 * The one lease on revaluing the book (`RiskRevaluationRepo.claim`): a single row, so that of the
 * workers finding the book due at once one revalues it, the others skip. Free when its columns are
 * null, as every worker lease (the embedded store frees them all on opening).
 */
const revaluationLease: ReadonlyArray<string> = [
  `CREATE TABLE risk_revaluation_lease (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    lease_owner text,
    lease_expires_at timestamptz(3)
  )`
]

export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "1_initial": statements(initial),
  "2_unmatched_transfers": statements(unmatchedTransfers),
  "3_late_funds_watch": statements(lateFundsWatch),
  "4_conflict_guard": statements(conflictGuard),
  "5_funding_index_sequences": statements(fundingIndexSequences),
  "6_checks_on_domains": statements(checksOnDomains),
  "7_api_replicas": statements(apiReplicas),
  "8_sandbox_webhook_inbox": statements(sandboxWebhookInbox),
  "9_market_snapshots": marketSnapshots,
  "10_operator_tokens": statements(operatorTokens),
  "11_event_trace_context": statements(eventTraceContext),
  "12_corridor_limits": corridorLimits,
  "13_hedging": statements(hedging),
  "14_risk": statements(risk),
  "15_failed_deliveries": statements(failedDeliveries),
  "16_revaluation_lease": statements(revaluationLease)
}

export const loader = PgMigrator.fromRecord(migrations)
