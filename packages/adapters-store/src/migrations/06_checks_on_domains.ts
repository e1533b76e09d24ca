/**
 * The single-column CHECKs of the tables every lifecycle writes, moved onto domains. PostgreSQL
 * rebuilds a table's CHECK expressions from their stored text on every statement that writes
 * the table (about a fifth of its CPU in `pnpm bench:lifecycle`); a domain's checks are read
 * once per connection. The rules are the same; the seldom-written tables keep their CHECKs, and
 * so do the checks over several columns.
 */
import { statements } from "./statements.ts"

// the column rules as migration 1 wrote them, copied rather than imported: a released migration stands alone
const fundsCurrencies = `('USDC', 'USDT', 'EURC', 'BRLA')`
const contractStatuses = `('quote_created', 'funds_in_route', 'active', 'exercised', 'settled', 'expired', 'failed', 'defaulted', 'deposit_forfeited')`

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

export const checksOnDomains = statements([
  ...Object.entries(checkDomains).map(([name, definition]) => `CREATE DOMAIN ${name} AS ${definition}`),
  ...Object.entries(checkedColumns).map(
    ([table, columns]) =>
      `ALTER TABLE ${table} ${Object.entries(columns)
        .map(([column, domain]) => `DROP CONSTRAINT ${table}_${column}_check, ALTER COLUMN ${column} TYPE ${domain}`)
        .join(", ")}`
  )
])
