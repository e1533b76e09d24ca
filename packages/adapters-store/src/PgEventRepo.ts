/**
 * `EventRepo` on Postgres: incoming events and the outgoing outbox share `webhook_events`, so the
 * audit listing of both directions is one keyset query. Outgoing rows are written by
 * `ContractRepo.commit`; the delivery worker claims them with a lease, one contract at a time.
 */
import { EventRepo, type Lease, type Partner } from "@ratelock/core"
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { isUuid, json, leaseUntil, orStoreError, timestamp, timestampOrNull } from "./internal/codec.ts"
import { type EventRow, incomingFromRow, incomingRow, outgoingFromRow, viewFromRow } from "./internal/eventRows.ts"
import { after, before } from "./internal/keyset.ts"

export const layer: Layer.Layer<EventRepo.EventRepo, never, SqlClient.SqlClient> = Layer.effect(
  EventRepo.EventRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const inScope = (scope: Partner.PartnerScope) =>
      sql`partner_id = ${scope.partnerId} AND environment = ${scope.environment}`

    const findIncoming = Effect.fn("PgEventRepo.findIncoming")(function* (
      scope: Partner.PartnerScope,
      idempotencyKey: string
    ) {
      const rows = yield* sql<EventRow>`SELECT * FROM webhook_events
        WHERE direction = 'incoming' AND ${inScope(scope)} AND idempotency_key = ${idempotencyKey}`
      return Option.map(Option.fromNullishOr(rows[0]), incomingFromRow)
    }, orStoreError("PgEventRepo.findIncoming"))

    const insertIncoming = Effect.fn("PgEventRepo.insertIncoming")(function* (event: EventRepo.IncomingEvent) {
      yield* sql`INSERT INTO webhook_events ${sql.insert(incomingRow(event))}`
    }, orStoreError("PgEventRepo.insertIncoming"))

    const updateIncoming = Effect.fn("PgEventRepo.updateIncoming")(function* (event: EventRepo.IncomingEvent) {
      yield* sql`UPDATE webhook_events
        SET status = ${event.status}, payload = ${json(event.payload)}, processed_at = ${timestampOrNull(event.processedAt)}
        WHERE id = ${event.id} AND direction = 'incoming'`
    }, orStoreError("PgEventRepo.updateIncoming"))

    const list = Effect.fn("PgEventRepo.list")(function* (scope: Partner.PartnerScope, filter: EventRepo.EventFilter) {
      const where = [inScope(scope)]
      if (filter.direction !== undefined) where.push(sql`direction = ${filter.direction}`)
      if (filter.contractId !== undefined) {
        if (!isUuid(filter.contractId)) return []
        where.push(sql`contract_id = ${filter.contractId}`)
      }
      if (filter.after !== undefined) where.push(before(sql, filter.after))
      const rows = yield* sql<EventRow>`SELECT * FROM webhook_events WHERE ${sql.and(where)}
        ORDER BY created_at DESC, id DESC LIMIT ${filter.limit}`
      return rows.map(viewFromRow)
    }, orStoreError("PgEventRepo.list"))

    // due, unheld, and no earlier event of its contract still waiting: deliveries are serialised
    // per contract, and a failing event holds back its own contract only
    const claimOutgoing = Effect.fn("PgEventRepo.claimOutgoing")(function* (claim: Lease.Claim) {
      const now = timestamp(claim.now)
      const rows = yield* sql<EventRow>`WITH due AS MATERIALIZED (
          SELECT e.id FROM webhook_events e
          WHERE e.direction = 'outgoing' AND e.status IN ('pending', 'retrying') AND e.next_attempt_at <= ${now}
            AND (e.lease_expires_at IS NULL OR e.lease_expires_at <= ${now})
            AND NOT EXISTS (
              SELECT 1 FROM webhook_events p
              WHERE p.direction = 'outgoing' AND p.contract_id = e.contract_id AND p.sequence < e.sequence
                AND p.status IN ('pending', 'retrying'))
          ORDER BY e.created_at, e.id LIMIT ${claim.limit}
          FOR UPDATE OF e SKIP LOCKED
        ), claimed AS (
          UPDATE webhook_events SET lease_owner = ${claim.owner}, lease_expires_at = ${leaseUntil(claim)}
          FROM due WHERE webhook_events.id = due.id
          RETURNING webhook_events.*
        )
        SELECT * FROM claimed ORDER BY created_at, id`
      return rows.map(outgoingFromRow)
    }, orStoreError("PgEventRepo.claimOutgoing"))

    const updateOutgoing = Effect.fn("PgEventRepo.updateOutgoing")(function* (
      events: ReadonlyArray<EventRepo.OutgoingEvent>
    ) {
      if (events.length === 0) return
      // one statement for all: the states travel as one JSON array of rows; the id list lets
      // the planner look each row up by key (it cannot see into the JSON, and would hash-join a scan)
      const outcomes = events.map((e) => ({
        id: e.id,
        status: e.status,
        attempts: e.attempts,
        last_error: e.lastError,
        next_attempt_at: DateTime.formatIso(e.nextAttemptAt),
        processed_at: e.deliveredAt === null ? null : DateTime.formatIso(e.deliveredAt),
        last_body: e.lastBody
      }))
      yield* sql`UPDATE webhook_events w
        SET status = v.status, attempts = v.attempts, last_error = v.last_error,
          next_attempt_at = v.next_attempt_at, processed_at = v.processed_at, last_body = v.last_body,
          lease_owner = NULL, lease_expires_at = NULL
        FROM jsonb_to_recordset(${json(outcomes)}::jsonb) AS v(id uuid, status text, attempts int,
          last_error text, next_attempt_at timestamptz, processed_at timestamptz, last_body text)
        WHERE w.id = v.id AND w.id = ANY(${events.map((e) => e.id)}::uuid[]) AND w.direction = 'outgoing'`
    }, orStoreError("PgEventRepo.updateOutgoing"))

    const listPayoutEvents = Effect.fn("PgEventRepo.listPayoutEvents")(function* (
      scope: Partner.PartnerScope,
      filter: EventRepo.PayoutEventFilter
    ) {
      const where = [
        inScope(scope),
        sql`direction = 'outgoing'`,
        sql`event_type IN ('payout_settled', 'payout_failed')`
      ]
      if (filter.since !== undefined) where.push(sql`created_at >= ${timestamp(filter.since)}`)
      if (filter.after !== undefined) where.push(after(sql, filter.after))
      const rows = yield* sql<EventRow>`SELECT * FROM webhook_events WHERE ${sql.and(where)}
        ORDER BY created_at, id LIMIT ${filter.limit}`
      return rows.map(outgoingFromRow)
    }, orStoreError("PgEventRepo.listPayoutEvents"))

    const findOutgoing = Effect.fn("PgEventRepo.findOutgoing")(function* (scope: Partner.PartnerScope, id: string) {
      if (!isUuid(id)) return Option.none()
      const rows = yield* sql<EventRow>`SELECT * FROM webhook_events
        WHERE id = ${id} AND direction = 'outgoing' AND ${inScope(scope)}`
      return Option.map(Option.fromNullishOr(rows[0]), outgoingFromRow)
    }, orStoreError("PgEventRepo.findOutgoing"))

    return EventRepo.EventRepo.of({
      findIncoming,
      insertIncoming,
      updateIncoming,
      list,
      claimOutgoing,
      updateOutgoing,
      listPayoutEvents,
      findOutgoing
    })
  })
)
