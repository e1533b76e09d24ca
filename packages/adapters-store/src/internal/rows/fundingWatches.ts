/**
 * A funding pass's light read of the contracts awaiting funds: the columns that say where to look
 * and from where, no history (the full record aggregates it as JSON, per row). Read only.
 */
import { Contract, ContractRepo, Partner, Rail } from "@ratelock/core"
import { Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { rowSchema, Timestamp, utc } from "./columns.ts"

/** The columns of `contracts` a funding watch reads → `FundingWatch`. */
const FundingWatchColumns = Schema.Struct({
  id: Schema.String,
  partner_id: Schema.String,
  status: Contract.ContractStatus,
  environment: Partner.Environment,
  chain: Rail.Chain,
  settlement_currency: Rail.SettlementCurrency,
  funding_wallet_address: Schema.String,
  funding_cursor: Schema.NullOr(Schema.String),
  created_at: Timestamp
})

export const FundingWatchRow = rowSchema("FundingWatchRow", FundingWatchColumns, ContractRepo.FundingWatch, (r) => ({
  contractId: r.id,
  partnerId: r.partner_id,
  status: r.status,
  environment: r.environment,
  chain: r.chain,
  token: r.settlement_currency,
  address: r.funding_wallet_address,
  cursor: r.funding_cursor,
  createdAt: utc(r.created_at)
}))

/** `SELECT` list of a funding watch. */
export const columns = (sql: SqlClient.SqlClient) =>
  sql`id, partner_id, status, environment, chain, settlement_currency, funding_wallet_address, funding_cursor, created_at`
