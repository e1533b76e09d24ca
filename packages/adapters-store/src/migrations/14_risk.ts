/**
 * The book (issue 17): the operator's stress scenarios, one row per name, and the workers' current
 * revaluation, one row per environment, each document kept as its encoded JSON.
 */
import { statements } from "./statements.ts"

// the column rules as migration 1 wrote them, copied rather than imported: a released migration stands alone
const environment = `environment text NOT NULL CHECK (environment IN ('sandbox', 'production'))`

export const risk = statements([
  `CREATE TABLE risk_scenarios (
    name text PRIMARY KEY,
    document jsonb NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE TABLE risk_revaluations (
    ${environment} PRIMARY KEY,
    computed_at timestamptz(3) NOT NULL,
    snapshot_id uuid REFERENCES market_snapshots (id),
    report jsonb NOT NULL
  )`
])
