/**
 * The one lease on revaluing the book (`RiskRevaluationRepo.claim`): a single row, so that of the
 * workers finding the book due at once one revalues it, the others skip. Free when its columns are
 * null, as every worker lease (the embedded store frees them all on opening).
 */
import { statements } from "./statements.ts"

export const revaluationLease = statements([
  `CREATE TABLE risk_revaluation_lease (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    lease_owner text,
    lease_expires_at timestamptz(3)
  )`
])
