/**
 * Migration 1: the first schema. Partners with their API keys (secret hashes only) and webhook
 * endpoints and signing secrets; quotes; contracts with their history; webhook events of both
 * directions; idempotency keys; counted funding transfers; payouts; the funding-address counters
 * (replaced by sequences in migration 5); the double-entry ledger.
 */
import { statements } from "./statements.ts"

const environment = `environment text NOT NULL CHECK (environment IN ('sandbox', 'production'))`
const chain = `chain text NOT NULL CHECK (chain IN ('solana', 'ethereum', 'polygon'))`
const settlementCurrency = `settlement_currency text NOT NULL CHECK (settlement_currency IN ('USDC', 'USDT', 'EURC'))`
const fundsCurrencies = `('USDC', 'USDT', 'EURC', 'BRLA')`
// what a partner asks to lock, and the terms a quote prices and its contract locks: the same
// columns in both tables
const lockRequest = `contract_type text NOT NULL CHECK (contract_type IN ('forward', 'option')),
    direction text NOT NULL,
    notional_currency text NOT NULL,
    notional_amount numeric NOT NULL CHECK (notional_amount >= 0)`
const lockTerms = `premium_amount numeric NOT NULL CHECK (premium_amount >= 0),
    deposit_amount numeric CHECK (deposit_amount >= 0),
    total_amount numeric NOT NULL CHECK (total_amount >= 0),
    max_transaction_amount numeric NOT NULL CHECK (max_transaction_amount >= 0),
    window_start timestamptz(3) NOT NULL,
    window_end timestamptz(3) NOT NULL,
    ${chain},
    ${settlementCurrency}`
const contractStatuses = `('quote_created', 'funds_in_route', 'active', 'exercised', 'settled', 'expired', 'failed', 'defaulted', 'deposit_forfeited')`

export const initial = statements([
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
    ${lockRequest},
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
    ${lockTerms},
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
    ${lockRequest},
    locked_rate numeric NOT NULL CHECK (locked_rate >= 0),
    provider_rate_at_lock numeric NOT NULL CHECK (provider_rate_at_lock >= 0),
    market_rate_at_lock numeric NOT NULL CHECK (market_rate_at_lock >= 0),
    ${lockTerms},
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
])
