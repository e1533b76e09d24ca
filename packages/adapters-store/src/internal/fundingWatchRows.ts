/**
 * A funding pass's light read of the contracts awaiting funds: the columns that say where to look
 * and from where, no history (the full record aggregates it as JSON, per row).
 */
import type { Contract, ContractRepo, Partner, Rail } from "@ratelock/core"
import type { SqlClient } from "effect/sql"
import { utc } from "./codec.ts"

export interface FundingWatchRow {
  readonly id: string
  readonly partner_id: string
  readonly status: string
  readonly environment: string
  readonly chain: string
  readonly settlement_currency: string
  readonly funding_wallet_address: string
  readonly funding_cursor: string | null
  readonly created_at: Date
}

export const columns = (sql: SqlClient.SqlClient) =>
  sql`id, partner_id, status, environment, chain, settlement_currency, funding_wallet_address, funding_cursor, created_at`

export const fromRow = (r: FundingWatchRow): ContractRepo.FundingWatch => ({
  contractId: r.id,
  partnerId: r.partner_id,
  status: r.status as Contract.ContractStatus,
  environment: r.environment as Partner.Environment,
  chain: r.chain as Rail.Chain,
  token: r.settlement_currency as Rail.SettlementCurrency,
  address: r.funding_wallet_address,
  cursor: r.funding_cursor,
  createdAt: utc(r.created_at)
})
