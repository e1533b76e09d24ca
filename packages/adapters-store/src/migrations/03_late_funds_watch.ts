/** Contracts past funding, by their last transition: the late-funds watch reads the recent ones. */
import { statements } from "./statements.ts"

export const lateFundsWatch = statements([
  `CREATE INDEX contracts_late_funds ON contracts (updated_at)
    WHERE status NOT IN ('quote_created', 'funds_in_route')`
])
