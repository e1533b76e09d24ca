/**
 * Funding-address indexes from one sequence per chain and environment instead of a counter row:
 * every contract creation updated that one row and held its lock until its commit was on disk,
 * so concurrent creations queued on it. Each sequence starts where its counter stopped; the
 * counters are dropped, so a replica still on the old code fails instead of reusing an index.
 */
import { statements } from "./statements.ts"

// the sequences' names as this migration made them (the repository names them again, on its own)
const sequenceName = (chain: string, environment: string) => `funding_index_${chain}_${environment}`

export const fundingIndexSequences = statements([
  ...["solana", "ethereum", "polygon"].flatMap((chain) =>
    ["sandbox", "production"].flatMap((environment) => {
      const name = sequenceName(chain, environment)
      return [
        `CREATE SEQUENCE ${name} AS bigint MINVALUE 0 START WITH 0`,
        `SELECT setval('${name}', next_index, false) FROM funding_address_counters
          WHERE chain = '${chain}' AND environment = '${environment}' AND next_index > 0`
      ]
    })
  ),
  `DROP TABLE funding_address_counters`
])
