/**
 * The money loop (issue 27): what Ratelock moves on chain by itself and the books it keeps of it.
 *
 * - `contracts.funding_index`: the HD index a contract's funding address derives from, which a
 *   sweep signs with; null on the contracts made before it was kept.
 * - `ledger_entries.account` gains `refunds_payable`: a forward's released deposit is owed back to
 *   the partner (refunded from the hot wallet), no longer taken off its funding address; and
 *   `ledger_entries_funding` indexes the `funding_wallet` entries alone, which the sweep pass sums.
 * - `movements`: sweeps of funding addresses and refunds to partners, one row per `key`
 *   (`movements_key_unique`), at most one sweep pending or prepared per funding address
 *   (`movements_sweeping`), claimed with a lease as payouts are (`movements_due`).
 * - `treasury_entries`: the treasury's double-entry ledger, each booking under a `source`;
 *   `treasury_bookings` holds one row per source booked, the guard that books a source once
 *   whoever books it again (its primary key makes concurrent bookers of one source take turns).
 * - `reconciliation_runs`: each reconciliation of an environment and chain with its differences.
 *
 * Their enumerated columns are on domains, as migration 6 put the lifecycle tables' rules.
 *
 * Two moves of data written before: the `deposit_released` entries that credited
 * `funding_wallet` credit `refunds_payable` now (the deposit is refunded from the hot wallet; the
 * funding address keeps it until it is swept, so the books of the address must too); and every
 * unmatched transfer of its contract's settlement token is booked as `TreasuryLedger.unmatchedEntries`
 * books it now (debit `funding_wallet` at the funding address, credit `unmatched_funds`), here in
 * SQL: a released migration imports nothing from core.
 */
import { statements } from "./statements.ts"

// core's literals when this migration was released, copied: a released migration stands alone
const ledgerAccounts = `('funding_wallet', 'partner_prepayment', 'premium_income', 'deposits_held', 'forfeited_deposits', 'payout_expense', 'payout_wallet', 'refunds_payable')`
const movementWaits = `('mining', 'fee_cap', 'insufficient_funds', 'behind_nonce', 'no_refund_address', 'watch_only')`
const treasuryAccounts = `('funding_wallet', 'partner_prepayment', 'payout_wallet', 'treasury', 'refunds_payable', 'unmatched_funds', 'network_fees', 'account_rent', 'owner_funding')`
const treasuryKinds = `('sweep', 'refund', 'network_fee', 'unmatched_received', 'inflow_recorded')`
const treasuryCurrencies = `('USDC', 'USDT', 'EURC', 'BRLA', 'ETH', 'POL', 'SOL')`

/** An unmatched transfer's source, as `TreasuryLedger.unmatchedSource` names it. */
const unmatchedSource = `'unmatched:' || u.chain || ':' || u.transaction_hash || ':' || u.log_index`

/** The unmatched transfers that book (`u`, with their contract `c`): of the contract's settlement token, and not nothing. */
const unmatchedOfContract = `unmatched_transfers u JOIN contracts c ON c.id = u.contract_id`
const booksUnmatched = `u.unit = 'token' AND u.token = c.settlement_currency AND u.amount <> 0`

export const moneyLoop = statements([
  `ALTER TABLE contracts ADD COLUMN funding_index ratelock_nonnegative_integer`,

  `ALTER DOMAIN ratelock_ledger_account DROP CONSTRAINT ratelock_ledger_account_check`,
  `ALTER DOMAIN ratelock_ledger_account ADD CONSTRAINT ratelock_ledger_account_check CHECK (VALUE IN ${ledgerAccounts})`,
  // the deposit is now refunded from the hot wallet: the funding address keeps it until it is swept
  `UPDATE ledger_entries SET account = 'refunds_payable' WHERE kind = 'deposit_released' AND account = 'funding_wallet'`,
  // the funding addresses' books, read by every sweep pass: the funding accounts' entries alone
  // (one a funding commit), so the pass does not read the whole ledger
  `CREATE INDEX ledger_entries_funding ON ledger_entries (contract_id, currency) INCLUDE (amount)
    WHERE account = 'funding_wallet'`,

  `CREATE DOMAIN ratelock_movement_kind AS text CHECK (VALUE IN ('sweep', 'refund'))`,
  `CREATE DOMAIN ratelock_movement_purpose AS text CHECK (VALUE IN ('hot_wallet', 'treasury', 'deposit', 'surplus', 'unmatched'))`,
  `CREATE DOMAIN ratelock_movement_status AS text CHECK (VALUE IN ('pending', 'prepared', 'confirmed', 'failed'))`,
  `CREATE DOMAIN ratelock_movement_wait AS text CHECK (VALUE IN ${movementWaits})`,
  `CREATE TABLE movements (
    id uuid PRIMARY KEY,
    kind ratelock_movement_kind NOT NULL,
    purpose ratelock_movement_purpose NOT NULL,
    key text NOT NULL CHECK (key <> ''),
    contract_id uuid NOT NULL,
    partner_id uuid NOT NULL,
    environment ratelock_environment NOT NULL,
    chain ratelock_chain NOT NULL,
    currency ratelock_settlement_currency NOT NULL,
    source text,
    funding_index ratelock_nonnegative_integer,
    destination text,
    amount ratelock_nonnegative_numeric NOT NULL,
    status ratelock_movement_status NOT NULL,
    prepared text,
    transaction_hash text,
    nonce ratelock_nonnegative_bigint,
    waiting ratelock_movement_wait,
    replacements ratelock_nonnegative_integer NOT NULL,
    block_number ratelock_nonnegative_bigint,
    attempts ratelock_nonnegative_integer NOT NULL,
    last_error text,
    requested_by text NOT NULL,
    next_attempt_at timestamptz(3) NOT NULL,
    lease_owner text,
    lease_expires_at timestamptz(3),
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL,
    CONSTRAINT movements_key_unique UNIQUE (key),
    -- a sweep empties a funding address into the hot wallet or the treasury; a refund leaves the hot wallet
    CHECK ((kind = 'sweep') = (purpose IN ('hot_wallet', 'treasury'))),
    CHECK ((kind = 'sweep') = (source IS NOT NULL))
  )`,
  `CREATE UNIQUE INDEX movements_sweeping ON movements (chain, source)
    WHERE kind = 'sweep' AND status IN ('pending', 'prepared')`,
  `CREATE INDEX movements_due ON movements (next_attempt_at, id) WHERE status IN ('pending', 'prepared')`,
  `CREATE INDEX movements_created ON movements (created_at DESC, id DESC)`,

  `CREATE DOMAIN ratelock_treasury_kind AS text CHECK (VALUE IN ${treasuryKinds})`,
  `CREATE DOMAIN ratelock_treasury_account AS text CHECK (VALUE IN ${treasuryAccounts})`,
  `CREATE DOMAIN ratelock_treasury_currency AS text CHECK (VALUE IN ${treasuryCurrencies})`,
  `CREATE TABLE treasury_bookings (
    source text PRIMARY KEY CHECK (source <> '')
  )`,
  // per source and currency the amounts sum to zero
  `CREATE TABLE treasury_entries (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source text NOT NULL REFERENCES treasury_bookings (source),
    environment ratelock_environment NOT NULL,
    chain ratelock_chain NOT NULL,
    address text,
    contract_id uuid,
    partner_id uuid,
    kind ratelock_treasury_kind NOT NULL,
    account ratelock_treasury_account NOT NULL,
    currency ratelock_treasury_currency NOT NULL,
    amount numeric NOT NULL,
    at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX treasury_entries_source ON treasury_entries (source, id)`,
  `CREATE INDEX treasury_entries_at ON treasury_entries (at)`,
  // the books of the funding addresses and of the wallets, read by every sweep pass and reconciliation
  `CREATE INDEX treasury_entries_funding ON treasury_entries (chain, address, currency) INCLUDE (amount)
    WHERE account = 'funding_wallet'`,
  `CREATE INDEX treasury_entries_wallets ON treasury_entries (environment, chain, account)
    WHERE account IN ('payout_wallet', 'treasury')`,

  `CREATE TABLE reconciliation_runs (
    id uuid PRIMARY KEY,
    environment ratelock_environment NOT NULL,
    chain ratelock_chain NOT NULL,
    at timestamptz(3) NOT NULL,
    checked ratelock_nonnegative_integer NOT NULL,
    chain_calls ratelock_nonnegative_integer NOT NULL,
    error text,
    differences jsonb NOT NULL CHECK (jsonb_typeof(differences) = 'array')
  )`,
  `CREATE INDEX reconciliation_runs_latest ON reconciliation_runs (environment, chain, at DESC, id DESC)`,

  // the unmatched transfers recorded before: booked as they are from now on, each source once
  `INSERT INTO treasury_bookings (source) SELECT ${unmatchedSource} FROM ${unmatchedOfContract} WHERE ${booksUnmatched}`,
  `INSERT INTO treasury_entries (source, environment, chain, address, contract_id, partner_id, kind, account,
      currency, amount, at)
    SELECT ${unmatchedSource}, u.environment, u.chain, line.address, u.contract_id, u.partner_id,
      'unmatched_received', line.account, u.token, line.amount, u.observed_at
    FROM ${unmatchedOfContract} CROSS JOIN LATERAL (VALUES
        (1, 'funding_wallet', c.funding_wallet_address, u.amount),
        (2, 'unmatched_funds', NULL, -u.amount)
      ) AS line (n, account, address, amount)
    WHERE ${booksUnmatched}
    ORDER BY u.observed_at, u.block_number, u.log_index, u.transaction_hash, line.n`
])
