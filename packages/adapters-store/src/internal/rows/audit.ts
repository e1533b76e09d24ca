/**
 * `operator_audit` rows and `AuditRecord`s: the one place the audit log's columns are named. What
 * the target was before and after are `jsonb` (null when the record has none), written as JSON
 * text and read back parsed.
 */
import { AuditRepo, OperatorRole } from "@ratelock/core"
import { Schema } from "effect"
import { json, rowSchema, Timestamp, timestamp, utc } from "./columns.ts"

const AuditColumns = Schema.Struct({
  id: Schema.String,
  at: Timestamp,
  via: AuditRepo.AuditRecord.fields.via,
  actor: Schema.String,
  token_id: Schema.NullOr(Schema.String),
  role: Schema.NullOr(OperatorRole.OperatorRole),
  action: Schema.String,
  target_kind: Schema.String,
  target_id: Schema.NullOr(Schema.String),
  outcome: AuditRepo.AuditOutcome,
  reason: Schema.NullOr(Schema.String),
  before: Schema.NullOr(Schema.Json),
  after: Schema.NullOr(Schema.Json),
  request_id: Schema.NullOr(Schema.String),
  trace_id: Schema.NullOr(Schema.String),
  client_address: Schema.NullOr(Schema.String)
})

type Written = Omit<typeof AuditColumns.Type, "before" | "after"> & {
  /** JSON text for the `jsonb` column, or SQL null. */
  readonly before: string | null
  readonly after: string | null
}

const jsonOrNull = (value: Schema.Json | null): string | null => (value === null ? null : json(value))

/** The row a record is written as. */
export const auditRow = (r: AuditRepo.AuditRecord): Written => ({
  id: r.id,
  at: timestamp(r.at),
  via: r.via,
  actor: r.actor,
  token_id: r.tokenId,
  role: r.role,
  action: r.action,
  target_kind: r.targetKind,
  target_id: r.targetId,
  outcome: r.outcome,
  reason: r.reason,
  before: jsonOrNull(r.before),
  after: jsonOrNull(r.after),
  request_id: r.requestId,
  trace_id: r.traceId,
  client_address: r.clientAddress
})

/** An `operator_audit` row → `AuditRecord`. */
export const AuditRow = rowSchema("OperatorAuditRow", AuditColumns, AuditRepo.AuditRecord, (r) => ({
  id: r.id,
  at: utc(r.at),
  via: r.via,
  actor: r.actor,
  tokenId: r.token_id,
  role: r.role,
  action: r.action,
  targetKind: r.target_kind,
  targetId: r.target_id,
  outcome: r.outcome,
  reason: r.reason,
  before: r.before,
  after: r.after,
  requestId: r.request_id,
  traceId: r.trace_id,
  clientAddress: r.client_address
}))
