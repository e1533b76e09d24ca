/**
 * `operator_tokens`, `worker_heartbeats` and the backlog counts: the one place their columns are
 * named, in the schemas reads decode and the mappings writes bind.
 */
import { BacklogRepo, OperatorRole, OperatorTokenRepo, Partner, WorkerHeartbeatRepo } from "@ratelock/core"
import { Schema } from "effect"
import { rowSchema, Timestamp, timestamp, timestampOrNull, utc, utcOrNull } from "./columns.ts"
import { RevocableColumns, revocableOf, revocableRow } from "./revocable.ts"

const TokenColumns = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  role: OperatorRole.OperatorRole,
  expires_at: Schema.NullOr(Timestamp),
  last_used_at: Schema.NullOr(Timestamp),
  ...RevocableColumns.fields
})

/** The row a token is written as. */
export const tokenRow = (t: OperatorTokenRepo.OperatorTokenRecord): typeof TokenColumns.Type => ({
  id: t.id,
  name: t.name,
  role: t.role,
  expires_at: timestampOrNull(t.expiresAt),
  last_used_at: timestampOrNull(t.lastUsedAt),
  ...revocableRow(t)
})

/** An `operator_tokens` row → `OperatorTokenRecord`. */
export const TokenRow = rowSchema("OperatorTokenRow", TokenColumns, OperatorTokenRepo.OperatorTokenRecord, (r) => ({
  id: r.id,
  name: r.name,
  role: r.role,
  expiresAt: utcOrNull(r.expires_at),
  lastUsedAt: utcOrNull(r.last_used_at),
  ...revocableOf(r)
}))

const HeartbeatColumns = Schema.Struct({
  owner: Schema.String,
  pass: Schema.String,
  last_pass_at: Timestamp,
  ok: Schema.Boolean
})

/** The row a heartbeat is written as. */
export const heartbeatRow = (h: WorkerHeartbeatRepo.WorkerHeartbeat): typeof HeartbeatColumns.Type => ({
  owner: h.owner,
  pass: h.pass,
  last_pass_at: timestamp(h.lastPassAt),
  ok: h.ok
})

/** A `worker_heartbeats` row → `WorkerHeartbeat`. */
export const HeartbeatRow = rowSchema(
  "WorkerHeartbeatRow",
  HeartbeatColumns,
  WorkerHeartbeatRepo.WorkerHeartbeat,
  (r) => ({
    owner: r.owner,
    pass: r.pass,
    lastPassAt: utc(r.last_pass_at),
    ok: r.ok
  })
)

/** One environment's counts, as `PgBacklogRepo`'s statement selects them → `EnvironmentBacklog`. */
const BacklogColumns = Schema.Struct({
  environment: Partner.Environment,
  undelivered: Schema.Int,
  oldest_undelivered: Schema.NullOr(Timestamp),
  awaiting: Schema.Int,
  oldest_awaiting: Schema.NullOr(Timestamp),
  failed: Schema.Int,
  unmatched: Schema.Int
})

export const BacklogRow = rowSchema("BacklogRow", BacklogColumns, BacklogRepo.EnvironmentBacklog, (r) => ({
  environment: r.environment,
  undeliveredEvents: r.undelivered,
  oldestUndeliveredAt: utcOrNull(r.oldest_undelivered),
  payoutsAwaitingConfirmation: r.awaiting,
  oldestAwaitingPayoutAt: utcOrNull(r.oldest_awaiting),
  payoutsFailed: r.failed,
  unmatchedFunds: r.unmatched
}))

/** One partner's failing deliveries, as `PgBacklogRepo`'s statement selects them → `FailingDeliveries`. */
const FailingDeliveriesColumns = Schema.Struct({
  partner_id: Schema.String,
  partner_name: Schema.String,
  retrying: Schema.Int,
  oldest_retrying: Schema.NullOr(Timestamp),
  failed: Schema.Int,
  last_error: Schema.NullOr(Schema.String)
})

export const FailingDeliveriesRow = rowSchema(
  "FailingDeliveriesRow",
  FailingDeliveriesColumns,
  BacklogRepo.FailingDeliveries,
  (r) => ({
    partnerId: r.partner_id,
    partnerName: r.partner_name,
    retrying: r.retrying,
    oldestRetryingAt: utcOrNull(r.oldest_retrying),
    failed: r.failed,
    lastError: r.last_error
  })
)
