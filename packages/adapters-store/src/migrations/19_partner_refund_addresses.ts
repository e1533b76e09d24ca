/**
 * Each partner's refund address per environment and chain (`PartnerRepo.saveRefundAddress`): where
 * funds of the partner's that are not a payout go back to. One row per partner, environment and
 * chain, replaced when the operator sets another; the address is stored as the chain's payout rule
 * gave it back (EVM lowercase). A few rows per partner, written by operators, read by `partner list`.
 */
import { statements } from "./statements.ts"

export const partnerRefundAddresses = statements([
  `CREATE TABLE partner_refund_addresses (
    partner_id uuid NOT NULL REFERENCES partners (id),
    environment ratelock_environment NOT NULL,
    chain ratelock_chain NOT NULL,
    address text NOT NULL CHECK (address <> ''),
    updated_at timestamptz(3) NOT NULL,
    PRIMARY KEY (partner_id, environment, chain)
  )`
])
