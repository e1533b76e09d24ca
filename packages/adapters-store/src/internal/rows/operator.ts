/**
 * `operator_tokens`, `worker_heartbeats` and the backlog counts: the one place their columns are
 * named, in the schemas reads decode and the mappings writes bind.
 */
import { BacklogRepo, OperatorTokenRepo, Partner, WorkerHeartbeatRepo } from "@ratelock/core"
import { Schema, SchemaGetter } from "effect"
import { Timestamp, timestamp, timestampOrNull, utc, utcOrNull, writtenByMapping } from "./columns.ts"

const TokenColumns = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  secret_hash: Schema.String,
  created_at: Timestamp,
  revoked_at: Schema.NullOr(Timestamp)
})

/** The row a token is written as. */
export const tokenRow = (t: OperatorTokenRepo.OperatorTokenRecord): typeof TokenColumns.Type => ({
  id: t.id,
  name: t.name,
  secret_hash: t.secretHash,
  created_at: timestamp(t.createdAt),
  revoked_at: timestampOrNull(t.revokedAt)
})

/** An `operator_tokens` row → `OperatorTokenRecord`. */
export const TokenRow = TokenColumns.pipe(
  Schema.decodeTo(OperatorTokenRepo.OperatorTokenRecord, {
    decode: SchemaGetter.transform(
      (r): OperatorTokenRepo.OperatorTokenRecord => ({
        id: r.id,
        name: r.name,
        secretHash: r.secret_hash,
        createdAt: utc(r.created_at),
        revokedAt: utcOrNull(r.revoked_at)
      })
    ),
    encode: writtenByMapping()
  })
).annotate({ identifier: "OperatorTokenRow" })

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
export const HeartbeatRow = HeartbeatColumns.pipe(
  Schema.decodeTo(WorkerHeartbeatRepo.WorkerHeartbeat, {
    decode: SchemaGetter.transform(
      (r): WorkerHeartbeatRepo.WorkerHeartbeat => ({
        owner: r.owner,
        pass: r.pass,
        lastPassAt: utc(r.last_pass_at),
        ok: r.ok
      })
    ),
    encode: writtenByMapping()
  })
).annotate({ identifier: "WorkerHeartbeatRow" })

/** One environment's counts, as `PgBacklogRepo`'s statement selects them → `EnvironmentBacklog`. */
export const BacklogRow = Schema.Struct({
  environment: Partner.Environment,
  undelivered: Schema.Int,
  oldest_undelivered: Schema.NullOr(Timestamp),
  awaiting: Schema.Int,
  oldest_awaiting: Schema.NullOr(Timestamp),
  failed: Schema.Int,
  unmatched: Schema.Int
})
  .pipe(
    Schema.decodeTo(BacklogRepo.EnvironmentBacklog, {
      decode: SchemaGetter.transform(
        (r): BacklogRepo.EnvironmentBacklog => ({
          environment: r.environment,
          undeliveredEvents: r.undelivered,
          oldestUndeliveredAt: utcOrNull(r.oldest_undelivered),
          payoutsAwaitingConfirmation: r.awaiting,
          oldestAwaitingPayoutAt: utcOrNull(r.oldest_awaiting),
          payoutsFailed: r.failed,
          unmatchedFunds: r.unmatched
        })
      ),
      encode: writtenByMapping()
    })
  )
  .annotate({ identifier: "BacklogRow" })

/** One partner's failing deliveries, as `PgBacklogRepo`'s statement selects them → `FailingDeliveries`. */
export const FailingDeliveriesRow = Schema.Struct({
  partner_id: Schema.String,
  partner_name: Schema.String,
  retrying: Schema.Int,
  oldest_retrying: Schema.NullOr(Timestamp),
  failed: Schema.Int,
  last_error: Schema.NullOr(Schema.String)
})
  .pipe(
    Schema.decodeTo(BacklogRepo.FailingDeliveries, {
      decode: SchemaGetter.transform(
        (r): BacklogRepo.FailingDeliveries => ({
          partnerId: r.partner_id,
          partnerName: r.partner_name,
          retrying: r.retrying,
          oldestRetryingAt: utcOrNull(r.oldest_retrying),
          failed: r.failed,
          lastError: r.last_error
        })
      ),
      encode: writtenByMapping()
    })
  )
  .annotate({ identifier: "FailingDeliveriesRow" })
