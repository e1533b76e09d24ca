/**
 * The SQL simulated chain's sweeps table (`sim_sweeps`), created by `sqlSchema.ensure` with the
 * first tables: one row per broadcast sweep transaction, a failed one included (it moved nothing
 * and counts the sweep's attempts). A balance reads it by source and by destination.
 */
import { columns } from "./sqlSchema.ts"

export const statements: ReadonlyArray<string> = [
  // one transaction per (sweep, attempt): its hash is derived from both
  `CREATE TABLE IF NOT EXISTS sim_sweeps (
    transaction_hash text PRIMARY KEY,
    sweep_id text NOT NULL,
    attempt integer NOT NULL CHECK (attempt >= 0),
    ${columns.chain},
    ${columns.environment},
    ${columns.token},
    source text NOT NULL,
    source_key text NOT NULL,
    destination text NOT NULL,
    destination_key text NOT NULL,
    amount numeric NOT NULL CHECK (amount > 0),
    ${columns.broadcast},
    CONSTRAINT sim_sweeps_attempt_unique UNIQUE (sweep_id, attempt)
  )`,
  `CREATE INDEX IF NOT EXISTS sim_sweeps_source ON sim_sweeps (chain, environment, token, source_key)`,
  `CREATE INDEX IF NOT EXISTS sim_sweeps_destination ON sim_sweeps (chain, environment, token, destination_key)`
]
