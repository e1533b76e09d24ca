/**
 * The schema of the Postgres store, as migrations for Effect's migrator (`<id>_<name>` keys, run
 * once each, in id order, in one transaction), one file each. The same SQL runs on a server and on
 * PGlite, so it sticks to plain Postgres: no extensions.
 *
 * Conventions: money and rates are `numeric` (exact, the scale as written); every timestamp is
 * `timestamptz(3)`, the precision the keyset cursors rely on; every row a partner can read
 * carries `(partner_id, environment)` and every list runs on an index that leads with it.
 *
 * Released migrations are never edited, and never import a value from `@ratelock/core` or from the
 * repositories (what they need is copied in as literals), so a change elsewhere never changes what
 * a migration did: a change is a new file and its line below. The keys are what the migrations table
 * records: never renamed.
 */
import { PgMigrator } from "@effect/sql-pg"
import type { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { initial } from "./01_initial.ts"
import { unmatchedTransfers } from "./02_unmatched_transfers.ts"
import { lateFundsWatch } from "./03_late_funds_watch.ts"
import { conflictGuard } from "./04_conflict_guard.ts"
import { fundingIndexSequences } from "./05_funding_index_sequences.ts"
import { checksOnDomains } from "./06_checks_on_domains.ts"
import { apiReplicas } from "./07_api_replicas.ts"
import { sandboxWebhookInbox } from "./08_sandbox_webhook_inbox.ts"
import { marketSnapshots } from "./09_market_snapshots.ts"
import { operatorTokens } from "./10_operator_tokens.ts"
import { eventTraceContext } from "./11_event_trace_context.ts"
import { corridorLimits } from "./12_corridor_limits.ts"
import { hedging } from "./13_hedging.ts"
import { risk } from "./14_risk.ts"
import { failedDeliveries } from "./15_failed_deliveries.ts"
import { revaluationLease } from "./16_revaluation_lease.ts"
import { payoutNonces } from "./17_payout_nonces.ts"
import { hotWalletReadings } from "./18_hot_wallet_readings.ts"
import { partnerRefundAddresses } from "./19_partner_refund_addresses.ts"
import { moneyLoop } from "./20_money_loop.ts"
import { operatorAudit } from "./21_operator_audit.ts"
import { dailyCloses } from "./22_daily_closes.ts"

export { illustrativeSnapshotId } from "./09_market_snapshots.ts"

/** Every migration, in order. */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "1_initial": initial,
  "2_unmatched_transfers": unmatchedTransfers,
  "3_late_funds_watch": lateFundsWatch,
  "4_conflict_guard": conflictGuard,
  "5_funding_index_sequences": fundingIndexSequences,
  "6_checks_on_domains": checksOnDomains,
  "7_api_replicas": apiReplicas,
  "8_sandbox_webhook_inbox": sandboxWebhookInbox,
  "9_market_snapshots": marketSnapshots,
  "10_operator_tokens": operatorTokens,
  "11_event_trace_context": eventTraceContext,
  "12_corridor_limits": corridorLimits,
  "13_hedging": hedging,
  "14_risk": risk,
  "15_failed_deliveries": failedDeliveries,
  "16_revaluation_lease": revaluationLease,
  "17_payout_nonces": payoutNonces,
  "18_hot_wallet_readings": hotWalletReadings,
  "19_partner_refund_addresses": partnerRefundAddresses,
  "20_money_loop": moneyLoop,
  "21_operator_audit": operatorAudit,
  "22_daily_closes": dailyCloses
}

export const loader = PgMigrator.fromRecord(migrations)
