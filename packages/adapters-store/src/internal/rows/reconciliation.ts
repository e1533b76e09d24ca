/**
 * `reconciliation_runs` rows and `ReconciliationRun`s. A run's differences are one `jsonb` array,
 * each written by the mapping below: decimals as their text (the scale kept), `since` in epoch
 * milliseconds, as instants are inside the contracts' history JSON.
 */
import { Partner, Rail, ReconciliationRepo, TreasuryLedger } from "@ratelock/core"
import { Schema } from "effect"
import {
  decimal,
  EpochMillis,
  fromMillis,
  json,
  Numeric,
  numeric,
  rowSchema,
  Timestamp,
  timestamp,
  utc
} from "./columns.ts"

const DifferenceJson = Schema.Struct({
  wallet: ReconciliationRepo.ReconciledWallet,
  address: Schema.String,
  contract_id: Schema.NullOr(Schema.String),
  currency: TreasuryLedger.TreasuryCurrency,
  ledger: Numeric,
  on_chain: Numeric,
  difference: Numeric,
  since: EpochMillis
})

const RunColumns = Schema.Struct({
  id: Schema.String,
  environment: Partner.Environment,
  chain: Rail.Chain,
  at: Timestamp,
  checked: Schema.Int,
  chain_calls: Schema.Int,
  error: Schema.NullOr(Schema.String),
  differences: Schema.Array(DifferenceJson)
})

const differenceJson = (d: ReconciliationRepo.ReconciliationDifference): typeof DifferenceJson.Type => ({
  wallet: d.wallet,
  address: d.address,
  contract_id: d.contractId,
  currency: d.currency,
  ledger: numeric(d.ledger),
  on_chain: numeric(d.onChain),
  difference: numeric(d.difference),
  since: d.since.epochMilliseconds
})

/** The row a run is written as (its differences as JSON text, for the `jsonb` column). */
export const runRow = (r: ReconciliationRepo.ReconciliationRun) => ({
  id: r.id,
  environment: r.environment,
  chain: r.chain,
  at: timestamp(r.at),
  checked: r.checked,
  chain_calls: r.chainCalls,
  error: r.error,
  differences: json(r.differences.map(differenceJson))
})

/** A `reconciliation_runs` row → `ReconciliationRun`. */
export const RunRow = rowSchema("ReconciliationRunRow", RunColumns, ReconciliationRepo.ReconciliationRun, (r) => ({
  id: r.id,
  environment: r.environment,
  chain: r.chain,
  at: utc(r.at),
  checked: r.checked,
  chainCalls: r.chain_calls,
  error: r.error,
  differences: r.differences.map((d) => ({
    wallet: d.wallet,
    address: d.address,
    contractId: d.contract_id,
    currency: d.currency,
    ledger: decimal(d.ledger),
    onChain: decimal(d.on_chain),
    difference: decimal(d.difference),
    since: fromMillis(d.since)
  }))
}))
