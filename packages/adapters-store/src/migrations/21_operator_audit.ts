/**
 * Operator roles and the audit log.
 *
 * `operator_tokens` gains what a token may do (`role`), when it stops working (`expires_at`, null:
 * never) and when it last authenticated a request (`last_used_at`). Tokens issued before roles
 * existed could do everything, so they become `admin`: the column is added with that default,
 * which fills the rows already there, and the default is dropped at once, so a token written
 * later without a role is refused rather than made an admin by omission.
 *
 * `operator_audit` keeps one record per operator action, newest first by `(at, id)`, and a
 * target's history on an index of its own. Actor and action filter the newest-first walk without
 * an index: operators act by hand, so the log stays small, and each index would be one more
 * insert in every action's transaction (two of them cost a `limits set` about 5 % more, measured
 * with `pnpm bench:http`). It is append-only: a trigger refuses every
 * `UPDATE`, `DELETE` and `TRUNCATE` of it, whoever runs them (the owner can still drop the
 * trigger: it stops mistakes and the application, not the database's owner).
 *
 * Copied from core as they were when this was released (a migration imports no value from core):
 * the roles (`OperatorRole.roles`), the ways an action is taken (`AuditRecord.via`) and the
 * outcomes (`AuditOutcome`).
 */
import { statements } from "./statements.ts"

export const operatorAudit = statements([
  `ALTER TABLE operator_tokens
    ADD COLUMN role text NOT NULL DEFAULT 'admin' CHECK (role IN ('viewer', 'trader', 'risk', 'admin')),
    ADD COLUMN expires_at timestamptz(3),
    ADD COLUMN last_used_at timestamptz(3)`,
  `ALTER TABLE operator_tokens ALTER COLUMN role DROP DEFAULT`,
  `CREATE TABLE operator_audit (
    id uuid PRIMARY KEY,
    at timestamptz(3) NOT NULL,
    via text NOT NULL CHECK (via IN ('api', 'cli')),
    actor text NOT NULL,
    token_id text,
    role text CHECK (role IN ('viewer', 'trader', 'risk', 'admin')),
    action text NOT NULL,
    target_kind text NOT NULL,
    target_id text,
    outcome text NOT NULL CHECK (outcome IN ('ok', 'refused', 'forbidden', 'failed')),
    reason text,
    before jsonb,
    after jsonb,
    request_id text,
    trace_id text,
    client_address text
  )`,
  // newest first, and from an instant on (`since`)
  `CREATE INDEX operator_audit_at ON operator_audit (at, id)`,
  `CREATE INDEX operator_audit_target ON operator_audit (target_id, at, id) WHERE target_id IS NOT NULL`,
  `CREATE FUNCTION ratelock_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % of operator_audit is refused', TG_OP
      USING ERRCODE = 'insufficient_privilege';
  END $$`,
  // per statement, so an UPDATE or DELETE that matches no row is refused too
  `CREATE TRIGGER operator_audit_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON operator_audit
    FOR EACH STATEMENT EXECUTE FUNCTION ratelock_audit_append_only()`
])
