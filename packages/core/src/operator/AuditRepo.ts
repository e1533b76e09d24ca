/**
 * Persistence port for the audit log: one record per operator action, whoever took it and however
 * (the operator API or the CLI), written in the transaction of the change it records. Append-only:
 * the port has no way to change or remove a record, and the SQL stores refuse `UPDATE` and
 * `DELETE` on the table with a trigger.
 */
import { Context, Schema } from "effect"
import type { DateTime, Effect } from "effect"
import type * as Cursor from "../kernel/Cursor.ts"
import type { StoreError } from "../kernel/StoreError.ts"
import { OperatorRole } from "./OperatorRole.ts"

export const AuditOutcome = Schema.Literals(["ok", "refused", "forbidden", "failed"]).annotate({
  identifier: "AuditOutcome",
  description:
    "ok: done; refused: a rule of the service said no (the reason says which); forbidden: the token's role does not allow it; failed: the service could not do it"
})
export type AuditOutcome = typeof AuditOutcome.Type

export const AuditRecord = Schema.Struct({
  id: Schema.String,
  at: Schema.DateTimeUtc,
  via: Schema.Literals(["api", "cli"]),
  /** The token's operator name, or `cli:<OS user>@<host>`. */
  actor: Schema.String,
  tokenId: Schema.NullOr(Schema.String),
  role: Schema.NullOr(OperatorRole),
  /** `<concept>.<verb>`: `limits.set`, `partner.create`, `payout.bump`, … */
  action: Schema.String,
  /** What it acted on: `partner`, `api_key`, `corridor`, `hedge_order`, `contract`, … */
  targetKind: Schema.String,
  targetId: Schema.NullOr(Schema.String),
  outcome: AuditOutcome,
  /** Why it was refused or failed: `<code>: <message>`. */
  reason: Schema.NullOr(Schema.String),
  /** What the target was before and after, where that applies; never a secret. */
  before: Schema.NullOr(Schema.Json),
  after: Schema.NullOr(Schema.Json),
  requestId: Schema.NullOr(Schema.String),
  traceId: Schema.NullOr(Schema.String),
  clientAddress: Schema.NullOr(Schema.String)
}).annotate({ identifier: "AuditRecord" })
export type AuditRecord = typeof AuditRecord.Type

export interface AuditQuery {
  readonly actor?: string | undefined
  readonly action?: string | undefined
  /** A target's id. */
  readonly target?: string | undefined
  /** At or after this instant. */
  readonly since?: DateTime.Utc | undefined
  /** Older than this position (the last record of the previous page). */
  readonly after?: Cursor.Position | undefined
  readonly limit: number
}

export interface AuditRepoShape {
  readonly append: (record: AuditRecord) => Effect.Effect<void, StoreError>
  /** The records matching every filter given, newest first (`at`, then `id`, descending). */
  readonly list: (query: AuditQuery) => Effect.Effect<ReadonlyArray<AuditRecord>, StoreError>
}

export class AuditRepo extends Context.Service<AuditRepo, AuditRepoShape>()("@ratelock/core/AuditRepo") {}
