/**
 * Migration 2: funds into a funding address that did not fund its contract (after it stopped
 * awaiting funds, or another token), kept for an operator's refund; amount in tokens or raw base
 * units per `unit`.
 */
import { statements } from "./statements.ts"

// the column rules as migration 1 wrote them, copied rather than imported: a released migration stands alone
const environment = `environment text NOT NULL CHECK (environment IN ('sandbox', 'production'))`
const chain = `chain text NOT NULL CHECK (chain IN ('solana', 'ethereum', 'polygon'))`
const contractStatuses = `('quote_created', 'funds_in_route', 'active', 'exercised', 'settled', 'expired', 'failed', 'defaulted', 'deposit_forfeited')`

export const unmatchedTransfers = statements([
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
])
