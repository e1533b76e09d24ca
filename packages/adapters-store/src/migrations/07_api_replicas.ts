/**
 * The API replicas running on this database, for the per-key rate limit they share
 * (`@ratelock/http`'s `RateLimitShares`): each replica upserts its row every second with an expiry
 * a few seconds on, the requests per second it saw per API key over its last second (`demand`,
 * a JSON object), and the live replicas it counted (itself included).
 */
import { statements } from "./statements.ts"

export const apiReplicas = statements([
  `CREATE TABLE api_replicas (
    id text PRIMARY KEY,
    expires_at timestamptz(3) NOT NULL,
    replicas integer NOT NULL,
    demand jsonb NOT NULL
  )`
])
