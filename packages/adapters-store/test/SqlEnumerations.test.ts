/**
 * The SQL schema's enumerations are core's literal lists: every `ratelock_…` domain with a
 * `VALUE IN (…)` check, and the outgoing events' CHECK, hold exactly the values core's schemas
 * allow. A value added in core without a migration (or dropped in a migration alone) fails here,
 * before a store refuses a real row.
 */
import * as PgliteTemplate from "@ratelock/test-support/PgliteTemplate"
import { assert, describe, it } from "@effect/vitest"
import {
  AuditRepo,
  Contract,
  Corridor,
  HedgeLedger,
  HedgeOrder,
  HedgePolicy,
  HotWalletRepo,
  InboundEvent,
  Ledger,
  MovementRepo,
  OperatorRole,
  OutboundEvent,
  Partner,
  PayoutRepo,
  PayoutWait,
  Quote,
  QuoteRequest,
  Rail,
  TreasuryLedger,
  WebhookEventRecord
} from "@ratelock/core"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as EmbeddedStore from "../src/EmbeddedStore.ts"

/** Each domain, and the core list it must equal. */
const domains: Record<string, ReadonlyArray<string>> = {
  ratelock_environment: Partner.Environment.literals,
  ratelock_chain: Rail.Chain.literals,
  ratelock_settlement_currency: Rail.SettlementCurrency.literals,
  ratelock_funds_currency: Rail.FundsCurrency.literals,
  ratelock_contract_type: QuoteRequest.ContractType.literals,
  ratelock_contract_status: Contract.ContractStatus.literals,
  ratelock_quote_status: Quote.QuoteStatus.literals,
  ratelock_strike_mode: QuoteRequest.StrikeMode.literals,
  ratelock_event_direction: WebhookEventRecord.EventDirection.literals,
  ratelock_payout_status: PayoutRepo.PayoutStatus.literals,
  ratelock_payout_wait: PayoutWait.PayoutWait.literals,
  ratelock_ledger_kind: Ledger.EntryKind.literals,
  ratelock_ledger_account: Ledger.Account.literals,
  ratelock_hot_wallet_asset: HotWalletRepo.HotWalletAsset.literals,
  ratelock_movement_kind: MovementRepo.MovementKind.literals,
  ratelock_movement_purpose: MovementRepo.MovementPurpose.literals,
  ratelock_movement_status: MovementRepo.MovementStatus.literals,
  ratelock_movement_wait: MovementRepo.MovementWait.members.flatMap((m) => m.literals),
  ratelock_treasury_kind: TreasuryLedger.TreasuryEntryKind.literals,
  ratelock_treasury_account: TreasuryLedger.TreasuryAccount.literals,
  ratelock_treasury_currency: TreasuryLedger.TreasuryCurrency.members.flatMap((m) => m.literals)
}

const quoted = (definition: string) => [...definition.matchAll(/'([^']*)'/g)].map((m) => m[1]!).sort()
const sorted = (values: ReadonlyArray<string>) => [...values].sort()

describe("SQL enumerations", () => {
  it.live(
    "every enumerated domain holds core's values, no more, no fewer",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly name: string; readonly definition: string }>`
          SELECT t.typname AS name, pg_get_constraintdef(c.oid) AS definition
          FROM pg_constraint c JOIN pg_type t ON t.oid = c.contypid
          WHERE t.typname LIKE 'ratelock_%' AND pg_get_constraintdef(c.oid) LIKE '%''%'`
        assert.deepStrictEqual(rows.map((r) => r.name).sort(), Object.keys(domains).sort())
        for (const row of rows) assert.deepStrictEqual(quoted(row.definition), sorted(domains[row.name]!), row.name)
      }).pipe(Effect.provide(EmbeddedStore.layer({ loadDataDir: PgliteTemplate.dump() }))),
    { timeout: 60_000 }
  )

  it.live(
    "the webhook events' CHECK names core's event types and statuses, no more, no fewer",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ readonly definition: string }>`
          SELECT pg_get_constraintdef(c.oid) AS definition FROM pg_constraint c
          WHERE c.conrelid = 'webhook_events'::regclass AND pg_get_constraintdef(c.oid) LIKE '%funds_received%'`
        const inbound = InboundEvent.InboundEvent.members.map((m) => m.fields.event_type.literal)
        const outbound = OutboundEvent.OutboundEvent.members.map((m) => m.fields.event_type.literal)
        // CASE direction WHEN 'incoming' THEN event_type IN (inbound) AND status IN (…) ELSE (outbound, …)
        const expected = new Set([
          "incoming",
          ...inbound,
          ...outbound,
          ...WebhookEventRecord.WebhookEventStatus.literals
        ])
        assert.deepStrictEqual([...new Set(quoted(row!.definition))].sort(), [...expected].sort())
      }).pipe(Effect.provide(EmbeddedStore.layer({ loadDataDir: PgliteTemplate.dump() }))),
    { timeout: 60_000 }
  )

  it.live(
    "the hedging and operator tables' CHECKs name core's statuses, sides, instruments, accounts, currencies, roles and outcomes",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const columns: ReadonlyArray<readonly [table: string, column: string, values: ReadonlyArray<string>]> = [
          ["hedge_policies", "environment", Partner.Environment.literals],
          ["hedge_policies", "instrument", HedgePolicy.Instrument.literals],
          ["hedge_orders", "environment", Partner.Environment.literals],
          ["hedge_orders", "side", HedgePolicy.Side.literals],
          ["hedge_orders", "instrument", HedgePolicy.Instrument.literals],
          ["hedge_orders", "status", HedgeOrder.HedgeOrderStatus.literals],
          ["hedge_ledger_entries", "kind", HedgeLedger.HedgeEntryKind.literals],
          ["hedge_ledger_entries", "account", HedgeLedger.HedgeAccount.literals],
          ["hedge_ledger_entries", "currency", Corridor.Currency.literals],
          ["sim_hedge_fills", "side", HedgePolicy.Side.literals],
          ["operator_tokens", "role", OperatorRole.roles],
          ["operator_audit", "role", OperatorRole.roles],
          ["operator_audit", "via", AuditRepo.AuditRecord.fields.via.literals],
          ["operator_audit", "outcome", AuditRepo.AuditOutcome.literals]
        ]
        for (const [table, column, values] of columns) {
          const [row] = yield* sql<{ readonly definition: string }>`
            SELECT pg_get_constraintdef(c.oid) AS definition FROM pg_constraint c
            WHERE c.conname = ${`${table}_${column}_check`}`
          assert.deepStrictEqual(quoted(row!.definition), sorted(values), `${table}.${column}`)
        }
      }).pipe(Effect.provide(EmbeddedStore.layer({ loadDataDir: PgliteTemplate.dump() }))),
    { timeout: 60_000 }
  )
})
