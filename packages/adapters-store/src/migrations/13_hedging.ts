/**
 * Hedging the book (issue 18): a policy per environment and market pair, leased by the hedging
 * pass like any worker job; hedge orders, at most one per pair waiting for an outcome
 * (`hedge_orders_outstanding`), the position read from the filled ones
 * (`hedge_orders_fills`); the double-entry ledger of their fills, in the corridors' currencies;
 * and the simulated venue's own books (`sim_hedge_…`), in the same database so a restart forgets
 * nothing. The venue's rows name our order ids but do not reference them: it is another party.
 */
import { statements } from "./statements.ts"

// the column rules as migration 1 wrote them, copied rather than imported: a released migration stands alone
const environment = `environment text NOT NULL CHECK (environment IN ('sandbox', 'production'))`

export const hedging = statements([
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
])
