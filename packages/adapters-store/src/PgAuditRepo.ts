/**
 * `AuditRepo` on Postgres: `operator_audit` (migration 21), one row per operator action. It is
 * append-only: this repository only inserts, and the table's trigger refuses `UPDATE`, `DELETE`
 * and `TRUNCATE` from anyone. Lists are newest first by `(at, id)`, a strict keyset below the
 * previous page's last record: a target's on `operator_audit_target`, the rest on
 * `operator_audit_at`, actor and action filtering that walk (the log is small; see migration 21).
 */
import { AuditRepo } from "@ratelock/core"
import { Effect, Layer } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { before } from "./internal/keyset.ts"
import { AuditRow, auditRow } from "./internal/rows/audit.ts"
import { timestamp } from "./internal/rows/columns.ts"
import { orStoreError, Parameters } from "./internal/sql.ts"

export const layer: Layer.Layer<AuditRepo.AuditRepo, never, SqlClient.SqlClient> = Layer.effect(
  AuditRepo.AuditRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const append = Effect.fn("PgAuditRepo.append")(function* (record: AuditRepo.AuditRecord) {
      yield* sql`INSERT INTO operator_audit ${sql.insert(auditRow(record))}`
    }, orStoreError("PgAuditRepo.append"))

    const listed = SqlSchema.findAll({
      Request: Parameters<AuditRepo.AuditQuery>(),
      Result: AuditRow,
      execute: (q) => sql`SELECT * FROM operator_audit
        WHERE ${sql.and([
          ...(q.actor === undefined ? [] : [sql`actor = ${q.actor}`]),
          ...(q.action === undefined ? [] : [sql`action = ${q.action}`]),
          ...(q.target === undefined ? [] : [sql`target_id = ${q.target}`]),
          ...(q.since === undefined ? [] : [sql`at >= ${timestamp(q.since)}`]),
          ...(q.after === undefined ? [] : [before(sql, q.after, "at")])
        ])}
        ORDER BY at DESC, id DESC LIMIT ${Math.max(0, q.limit)}`
    })

    const list = Effect.fn("PgAuditRepo.list")(function* (query: AuditRepo.AuditQuery) {
      return yield* listed(query)
    }, orStoreError("PgAuditRepo.list"))

    return AuditRepo.AuditRepo.of({ append, list })
  })
)
