/**
 * The audit log as an operator reads it: one page of records, newest first, filtered by actor,
 * action, target and instant, each record as the JSON the operator API answers and `ratelock audit
 * list --json` prints (snake_case, instants in ISO, `before` and `after` as they were recorded).
 *
 * Pages are keyset pages under an opaque cursor (`kernel/Cursor.ts`), so records
 * written while someone pages never make a page skip or repeat one. A cursor that does not decode
 * is refused as the partner API's lists refuse one: `validation_error` on `query.cursor`.
 */
import { DateTime, Effect, Schema } from "effect"
import { Instant } from "../kernel/Fields.ts"
import { ValidationError } from "../kernel/ApiError.ts"
import * as Cursor from "../kernel/Cursor.ts"
import { AuditOutcome, type AuditRecord, AuditRepo } from "./AuditRepo.ts"
import { OperatorRole } from "./OperatorRole.ts"

/** One record of the log, as it is read. */
export const AuditEntry = Schema.Struct({
  id: Schema.String,
  at: Instant,
  via: Schema.Literals(["api", "cli"]).annotate({
    description: "api: through the operator API with a token; cli: the CLI on the database"
  }),
  actor: Schema.String.annotate({ description: "The token's operator name, or cli:<OS user>@<host>" }),
  token_id: Schema.NullOr(Schema.String),
  role: Schema.NullOr(OperatorRole).annotate({ description: "The role the action was taken under; null on the CLI" }),
  action: Schema.String.annotate({ description: "<concept>.<verb>: limits.set, partner.create, payout.bump, ..." }),
  target_kind: Schema.String.annotate({ description: "partner, api_key, corridor, hedge_order, contract, ..." }),
  target_id: Schema.NullOr(Schema.String),
  outcome: AuditOutcome,
  reason: Schema.NullOr(Schema.String).annotate({ description: "Why it was refused or failed: <code>: <message>" }),
  before: Schema.NullOr(Schema.Json).annotate({ description: "The target before the change, where that applies" }),
  after: Schema.NullOr(Schema.Json).annotate({ description: "What the change left (never a secret)" }),
  request_id: Schema.NullOr(Schema.String),
  trace_id: Schema.NullOr(Schema.String),
  client_address: Schema.NullOr(Schema.String)
}).annotate({ identifier: "OperatorAuditEntry" })
export type AuditEntry = typeof AuditEntry.Type

export const AuditPage = Schema.Struct({
  items: Schema.Array(AuditEntry),
  next_cursor: Schema.NullOr(Schema.String).annotate({ description: "The next (older) page's cursor; null: no more" })
}).annotate({ identifier: "OperatorAuditPage" })
export type AuditPage = typeof AuditPage.Type

export const entry = (record: AuditRecord): AuditEntry => ({
  id: record.id,
  at: DateTime.formatIso(record.at),
  via: record.via,
  actor: record.actor,
  token_id: record.tokenId,
  role: record.role,
  action: record.action,
  target_kind: record.targetKind,
  target_id: record.targetId,
  outcome: record.outcome,
  reason: record.reason,
  before: record.before,
  after: record.after,
  request_id: record.requestId,
  trace_id: record.traceId,
  client_address: record.clientAddress
})

/** A page holds 1 to `maxLimit` records, `defaultLimit` unless asked. */
export const defaultLimit = 100
export const maxLimit = 1000

export interface PageQuery {
  readonly actor?: string | undefined
  readonly action?: string | undefined
  /** A target's id. */
  readonly target?: string | undefined
  /** At or after this instant. */
  readonly since?: DateTime.Utc | undefined
  /** The `next_cursor` of the page before. */
  readonly cursor?: string | undefined
  readonly limit?: number | undefined
}

const position = (cursor: string | undefined) =>
  cursor === undefined
    ? Effect.succeed(undefined)
    : Cursor.decode(cursor).pipe(
        Effect.mapError(
          (e) =>
            new ValidationError({
              message: e.message,
              detail: [{ loc: ["query", "cursor"], msg: e.message, type: "value_error" }]
            })
        )
      )

/** The records matching every filter given, newest first, one page at a time. */
export const page = Effect.fn("AuditLog.page")(function* (query: PageQuery) {
  const limit = query.limit ?? defaultLimit
  // one more than the page: whether there is a next page, without counting
  const records = yield* (yield* AuditRepo).list({
    actor: query.actor,
    action: query.action,
    target: query.target,
    since: query.since,
    after: yield* position(query.cursor),
    limit: limit + 1
  })
  const items = records.slice(0, limit)
  const last = items[items.length - 1]
  const next =
    records.length > limit && last !== undefined
      ? Cursor.encode({ createdAt: DateTime.formatIso(last.at), id: last.id })
      : null
  return { items: items.map(entry), next_cursor: next } satisfies AuditPage
})
