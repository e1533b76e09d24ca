/**
 * Payouts signed with nonces the store hands out (EVM hot wallets): a payout keeps the nonce its
 * transactions take (every version shares it), why it waits when it has not landed, and how many
 * versions were signed after the first. `hot_wallet_nonces` holds every nonce handed out per hot
 * wallet (environment, chain, signing address), by whatever signs with it (payouts now, sweeps and
 * refunds later; `holder` names it, e.g. `payout:<id>`): its primary key is what guarantees that no
 * two recorded transactions of a wallet share a nonce. `payouts_status` serves the operator's list
 * of payouts by status, oldest first.
 *
 * The new payout columns are on domains, as migration 6 put the table's other one-column rules.
 *
 * EVM payouts signed before this migration and not settled yet hold a nonce the store did not hand
 * out: it is written on them and in `hot_wallet_nonces`, or the next payout of their wallet would be
 * signed at the same nonce. Their persisted form then was `{"v":1,"chainId":…,"from":…,"nonce":…,…}`.
 */
import { statements } from "./statements.ts"

// core's `PayoutWait` literals when this migration was released, copied: a released migration stands alone
const payoutWaits = `('mining', 'fee_cap', 'insufficient_funds', 'behind_nonce')`

export const payoutNonces = statements([
  `CREATE DOMAIN ratelock_payout_wait AS text CHECK (VALUE IN ${payoutWaits})`,
  `ALTER TABLE payouts
    ADD COLUMN nonce ratelock_nonnegative_bigint,
    ADD COLUMN waiting ratelock_payout_wait,
    ADD COLUMN replacements ratelock_nonnegative_integer NOT NULL DEFAULT 0`,
  `CREATE TABLE hot_wallet_nonces (
    environment ratelock_environment NOT NULL,
    chain ratelock_chain NOT NULL,
    signer text NOT NULL CHECK (signer <> '' AND signer = lower(signer)),
    nonce bigint NOT NULL CHECK (nonce >= 0),
    holder text NOT NULL CHECK (holder <> ''),
    allocated_at timestamptz(3) NOT NULL,
    PRIMARY KEY (environment, chain, signer, nonce)
  )`,
  `CREATE INDEX hot_wallet_nonces_holder ON hot_wallet_nonces (holder)`,
  `UPDATE payouts SET nonce = (prepared::jsonb ->> 'nonce')::bigint
    WHERE status = 'prepared' AND chain IN ('ethereum', 'polygon') AND prepared LIKE '{"v":1,"chainId":%'`,
  `INSERT INTO hot_wallet_nonces (environment, chain, signer, nonce, holder, allocated_at)
    SELECT environment, chain, lower(prepared::jsonb ->> 'from'), nonce, 'payout:' || id, updated_at
    FROM payouts
    WHERE status = 'prepared' AND chain IN ('ethereum', 'polygon') AND prepared LIKE '{"v":1,"chainId":%'
    ON CONFLICT DO NOTHING`,
  `CREATE INDEX payouts_status ON payouts (status, created_at, id)`
])
