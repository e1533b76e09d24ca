/**
 * The daily closes (issue 29): what the book, the hedges and the ledgers stood at, per environment, at one instant.
 *
 * - `daily_closes`: one row per close. The columns a close is found and ordered by are columns (`environment`,
 *   `closed_at`, `scheduled_for`, `snapshot_id`); the rest of its summary (pairs, payouts due, balances, P&L) is
 *   one `jsonb` document, read whole and never queried into, and so is the market snapshot it was valued on (kept
 *   with the close, whatever happens to the stored ones, so no reference to `market_snapshots`).
 *   `daily_closes_cut` makes a scheduled close one per environment and cut, whatever the workers: the insert of a
 *   second one does nothing (`ON CONFLICT DO NOTHING` on it). `daily_closes_closed` serves the latest close and
 *   the lists, by `(closed_at, id)`.
 * - `daily_close_locks`: each open lock at the close, one row per contract, its model figures `float8` (the
 *   engine's doubles, kept to the bit) and its window in epoch milliseconds.
 * - Both are append-only: a close is never changed. A statement-level trigger refuses every `UPDATE`, `DELETE`
 *   and `TRUNCATE` of either, even one that matches no row (SQLSTATE `42501`, as migration 21 does for
 *   `operator_audit`); the database's owner can still drop it.
 * - `daily_close_lease`: the one lease on closing, a single row as migration 16's is for the revaluation.
 *
 * Ids are `text COLLATE "C"`: ordered as their bytes, the order the memory store sorts them in (and lock rows come
 * back by contract id in the primary key's order).
 */
import { statements } from "./statements.ts"

export const dailyCloses = statements([
  `CREATE TABLE daily_closes (
    id text COLLATE "C" PRIMARY KEY,
    environment ratelock_environment NOT NULL,
    closed_at timestamptz(3) NOT NULL,
    scheduled_for timestamptz(3),
    snapshot_id text,
    summary jsonb NOT NULL,
    snapshot jsonb NOT NULL
  )`,
  `CREATE UNIQUE INDEX daily_closes_cut ON daily_closes (environment, scheduled_for) WHERE scheduled_for IS NOT NULL`,
  `CREATE INDEX daily_closes_closed ON daily_closes (environment, closed_at, id)`,
  `CREATE TABLE daily_close_locks (
    close_id text COLLATE "C" NOT NULL REFERENCES daily_closes (id),
    contract_id text COLLATE "C" NOT NULL,
    partner_id text NOT NULL,
    direction text NOT NULL,
    notional_base float8 NOT NULL,
    strike float8 NOT NULL,
    window_start bigint NOT NULL,
    window_end bigint NOT NULL,
    mtm float8 NOT NULL,
    delta float8 NOT NULL,
    gamma float8 NOT NULL,
    vega float8 NOT NULL,
    theta float8 NOT NULL,
    vanna float8 NOT NULL,
    volga float8 NOT NULL,
    vol float8 NOT NULL,
    PRIMARY KEY (close_id, contract_id)
  )`,
  `CREATE FUNCTION ratelock_close_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'a daily close is immutable: % of % is refused', TG_OP, TG_TABLE_NAME
      USING ERRCODE = 'insufficient_privilege';
  END $$`,
  // per statement, so an UPDATE or DELETE that matches no row is refused too
  `CREATE TRIGGER daily_closes_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON daily_closes
    FOR EACH STATEMENT EXECUTE FUNCTION ratelock_close_append_only()`,
  `CREATE TRIGGER daily_close_locks_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON daily_close_locks
    FOR EACH STATEMENT EXECUTE FUNCTION ratelock_close_append_only()`,
  `CREATE TABLE daily_close_lease (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    lease_owner text,
    lease_expires_at timestamptz(3)
  )`
])
