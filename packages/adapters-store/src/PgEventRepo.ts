/**
 * `EventRepo` on Postgres: incoming events and the outgoing outbox share `webhook_events`, so the
 * audit listing of both directions is one keyset query. Outgoing rows are written by
 * `ContractRepo.commit`; the delivery worker claims them with a lease, one contract at a time.
 */
import { EventRepo, type Lease, type Partner } from "@ratelock/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { after, before, type Page } from "./internal/keyset.ts"
import { json, timestamp, timestampOrNull } from "./internal/rows/columns.ts"
import { deliveryState, EventViewRow, IncomingRow, incomingRow, OutgoingRow } from "./internal/rows/events.ts"
import { claimJobs, isUuid, orStoreError, Parameters } from "./internal/sql.ts"

interface List extends Partner.PartnerScope, EventRepo.EventFilter {}

interface ListPayoutEvents extends Partner.PartnerScope, Page {
  readonly since?: Date | undefined
}

export const layer: Layer.Layer<EventRepo.EventRepo, never, SqlClient.SqlClient> = Layer.effect(
  EventRepo.EventRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const inScope = (scope: Partner.PartnerScope) =>
      sql`partner_id = ${scope.partnerId} AND environment = ${scope.environment}`

    const incomingByKey = SqlSchema.findOneOption({
      Request: Parameters<Partner.PartnerScope & { readonly idempotencyKey: string }>(),
      Result: IncomingRow,
      execute: (r) => sql`SELECT * FROM webhook_events
        WHERE direction = 'incoming' AND ${inScope(r)} AND idempotency_key = ${r.idempotencyKey}`
    })

    const findIncoming = Effect.fn("PgEventRepo.findIncoming")(function* (
      scope: Partner.PartnerScope,
      idempotencyKey: string
    ) {
      return yield* incomingByKey({ ...scope, idempotencyKey })
    }, orStoreError("PgEventRepo.findIncoming"))

    const insertIncoming = Effect.fn("PgEventRepo.insertIncoming")(function* (event: EventRepo.IncomingEvent) {
      yield* sql`INSERT INTO webhook_events ${sql.insert(incomingRow(event))}`
    }, orStoreError("PgEventRepo.insertIncoming"))

    const updateIncoming = Effect.fn("PgEventRepo.updateIncoming")(function* (event: EventRepo.IncomingEvent) {
      yield* sql`UPDATE webhook_events
        SET status = ${event.status}, payload = ${json(event.payload)}, processed_at = ${timestampOrNull(event.processedAt)}
        WHERE id = ${event.id} AND direction = 'incoming'`
    }, orStoreError("PgEventRepo.updateIncoming"))

    const page = SqlSchema.findAll({
      Request: Parameters<List>(),
      Result: EventViewRow,
      execute: (r) => {
        const where = [inScope(r)]
        if (r.direction !== undefined) where.push(sql`direction = ${r.direction}`)
        if (r.contractId !== undefined) where.push(sql`contract_id = ${r.contractId}`)
        if (r.after !== undefined) where.push(before(sql, r.after))
        return sql`SELECT * FROM webhook_events WHERE ${sql.and(where)}
          ORDER BY created_at DESC, id DESC LIMIT ${r.limit}`
      }
    })

    const list = Effect.fn("PgEventRepo.list")(function* (scope: Partner.PartnerScope, filter: EventRepo.EventFilter) {
      if (filter.contractId !== undefined && !isUuid(filter.contractId)) return []
      return yield* page({ ...scope, ...filter })
    }, orStoreError("PgEventRepo.list"))

    // due, unheld, and no earlier event of its contract still waiting: deliveries are serialised
    // per contract, and a failing event holds back its own contract only
    const claimed = claimJobs({
      sql,
      table: "webhook_events",
      Result: OutgoingRow,
      due: (claim) => sql`job.direction = 'outgoing' AND job.status IN ('pending', 'retrying')
        AND job.next_attempt_at <= ${claim.now}
        AND NOT EXISTS (
          SELECT 1 FROM webhook_events p
          WHERE p.direction = 'outgoing' AND p.contract_id = job.contract_id AND p.sequence < job.sequence
            AND p.status IN ('pending', 'retrying'))`
    })

    const claimOutgoing = Effect.fn("PgEventRepo.claimOutgoing")(function* (claim: Lease.Claim) {
      return yield* claimed(claim)
    }, orStoreError("PgEventRepo.claimOutgoing"))

    const updateOutgoing = Effect.fn("PgEventRepo.updateOutgoing")(function* (
      events: ReadonlyArray<EventRepo.OutgoingEvent>
    ) {
      if (events.length === 0) return
      // one statement for all: the states travel as one JSON array of rows; the id list lets
      // the planner look each row up by key (it cannot see into the JSON, and would hash-join a scan)
      yield* sql`UPDATE webhook_events w
        SET status = v.status, attempts = v.attempts, last_error = v.last_error,
          next_attempt_at = v.next_attempt_at, processed_at = v.processed_at, last_body = v.last_body,
          lease_owner = NULL, lease_expires_at = NULL
        FROM jsonb_to_recordset(${json(events.map(deliveryState))}::jsonb) AS v(id uuid, status text, attempts int,
          last_error text, next_attempt_at timestamptz, processed_at timestamptz, last_body text)
        WHERE w.id = v.id AND w.id = ANY(${events.map((e) => e.id)}::uuid[]) AND w.direction = 'outgoing'`
    }, orStoreError("PgEventRepo.updateOutgoing"))

    const payoutEvents = SqlSchema.findAll({
      Request: Parameters<ListPayoutEvents>(),
      Result: OutgoingRow,
      execute: (r) => {
        const where = [inScope(r), sql`direction = 'outgoing'`, sql`event_type IN ('payout_settled', 'payout_failed')`]
        if (r.since !== undefined) where.push(sql`created_at >= ${r.since}`)
        if (r.after !== undefined) where.push(after(sql, r.after))
        return sql`SELECT * FROM webhook_events WHERE ${sql.and(where)} ORDER BY created_at, id LIMIT ${r.limit}`
      }
    })

    const listPayoutEvents = Effect.fn("PgEventRepo.listPayoutEvents")(function* (
      scope: Partner.PartnerScope,
      filter: EventRepo.PayoutEventFilter
    ) {
      return yield* payoutEvents({
        ...scope,
        since: filter.since === undefined ? undefined : timestamp(filter.since),
        limit: filter.limit,
        after: filter.after
      })
    }, orStoreError("PgEventRepo.listPayoutEvents"))

    const outgoingById = SqlSchema.findOneOption({
      Request: Parameters<Partner.PartnerScope & { readonly id: string }>(),
      Result: OutgoingRow,
      execute: (r) => sql`SELECT * FROM webhook_events
        WHERE id = ${r.id} AND direction = 'outgoing' AND ${inScope(r)}`
    })

    const findOutgoing = Effect.fn("PgEventRepo.findOutgoing")(function* (scope: Partner.PartnerScope, id: string) {
      if (!isUuid(id)) return Option.none()
      return yield* outgoingById({ ...scope, id })
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
