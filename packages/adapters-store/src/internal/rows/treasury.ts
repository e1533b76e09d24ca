/**
 * `treasury_entries` rows and `TreasuryEntry`s: the one place their columns are named, the
 * booking's own (source, rail, address, contract) beside what every ledger entry books
 * (`ledger.ts`). Entries are written from JSON (`jsonb_to_recordset`, see `internal/treasury.ts`),
 * so the write mapping gives JSON values: decimals as their text, instants as ISO strings.
 */
import { Partner, Rail, TreasuryLedger } from "@ratelock/core"
import { DateTime, Schema } from "effect"
import { entryColumns, entryOf } from "./ledger.ts"
import { numeric, recordset, rowSchema } from "./columns.ts"

const TreasuryColumns = Schema.Struct({
  source: Schema.String,
  environment: Partner.Environment,
  chain: Rail.Chain,
  address: Schema.NullOr(Schema.String),
  contract_id: Schema.NullOr(Schema.String),
  partner_id: Schema.NullOr(Schema.String),
  ...entryColumns(TreasuryLedger.TreasuryEntryKind, TreasuryLedger.TreasuryAccount, TreasuryLedger.TreasuryCurrency)
})

/** The columns an entry is written as, with the SQL type each is read from JSON as. */
const written = {
  source: "text",
  environment: "text",
  chain: "text",
  address: "text",
  contract_id: "uuid",
  partner_id: "uuid",
  kind: "text",
  account: "text",
  currency: "text",
  amount: "numeric",
  at: "timestamptz"
} as const

/** The column list of an insert, and the column definitions of a `jsonb_to_recordset` of entries. */
export const { columns: treasuryColumnList, definitions: treasuryRecordset } = recordset(written)

/** The JSON object an entry is written from (the columns of `treasuryRecordset`). */
export const treasuryJson = (e: TreasuryLedger.TreasuryEntry): Record<keyof typeof written, string | null> => ({
  source: e.source,
  environment: e.environment,
  chain: e.chain,
  address: e.address,
  contract_id: e.contractId,
  partner_id: e.partnerId,
  kind: e.kind,
  account: e.account,
  currency: e.currency,
  amount: numeric(e.amount),
  at: DateTime.formatIso(e.at)
})

/** A `treasury_entries` row → `TreasuryEntry`. */
export const TreasuryRow = rowSchema("TreasuryRow", TreasuryColumns, TreasuryLedger.TreasuryEntry, (r) => ({
  source: r.source,
  environment: r.environment,
  chain: r.chain,
  address: r.address,
  contractId: r.contract_id,
  partnerId: r.partner_id,
  ...entryOf(r)
}))
