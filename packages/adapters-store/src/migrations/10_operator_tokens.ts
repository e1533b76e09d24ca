/**
 * The operator's side (issue 16): operator tokens (the operator API's bearer tokens, stored as
 * SHA-256 hashes, found by hash), the workers' heartbeats (one row per process and pass, for the
 * operator's status), and an index for counting payouts given up on (the status and its gauges
 * count them; `payouts_due` already covers those awaiting confirmation).
 */
import { statements } from "./statements.ts"

export const operatorTokens = statements([
  `CREATE TABLE operator_tokens (
    id uuid PRIMARY KEY,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    secret_hash text NOT NULL UNIQUE CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
    created_at timestamptz(3) NOT NULL,
    revoked_at timestamptz(3)
  )`,
  `CREATE TABLE worker_heartbeats (
    owner text NOT NULL,
    pass text NOT NULL,
    last_pass_at timestamptz(3) NOT NULL,
    ok boolean NOT NULL,
    PRIMARY KEY (owner, pass)
  )`,
  `CREATE INDEX payouts_failed ON payouts (environment) WHERE status = 'failed'`
])
