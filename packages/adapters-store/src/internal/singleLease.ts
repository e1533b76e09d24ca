/**
 * A lease kept in a table of one row (`risk_revaluation_lease`, `daily_close_lease`): of the workers finding the
 * same work due at once, the one holding it does the work, the others skip. Free when its columns are null (never
 * taken, or freed by `EmbeddedStore.recover`) or its end has passed.
 */
import type { StoreError } from "@ratelock/core"
import { type DateTime, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { timestamp } from "./rows/columns.ts"
import { orStoreError } from "./sql.ts"

/** Who holds the lease, until when. */
export interface SingleLease {
  readonly owner: string
  readonly until: DateTime.Utc
}

/** What a port with a single lease does with it. */
export interface SingleLeaseMethods {
  /** Takes the lease for `lease` if nobody holds it at `now`: true when `lease` holds it. */
  readonly claim: (lease: SingleLease, now: DateTime.Utc) => Effect.Effect<boolean, StoreError.StoreError>
  /** Ends the lease at `now`, if `lease` still holds it. */
  readonly release: (lease: SingleLease, now: DateTime.Utc) => Effect.Effect<void, StoreError.StoreError>
}

/** `claim` and `release` of the lease in `table`, their spans and failures named `<repository>.claim` and `.release`. */
export const singleLease = (sql: SqlClient.SqlClient, table: string, repository: string): SingleLeaseMethods => ({
  claim: Effect.fn(`${repository}.claim`)(
    function* (lease: SingleLease, now: DateTime.Utc) {
      // the conflicting row is locked and its WHERE read again: of two claims at once, one takes it
      const rows = yield* sql`INSERT INTO ${sql(table)} AS held (lease_owner, lease_expires_at)
      VALUES (${lease.owner}, ${timestamp(lease.until)})
      ON CONFLICT (singleton) DO UPDATE SET lease_owner = EXCLUDED.lease_owner,
        lease_expires_at = EXCLUDED.lease_expires_at
      WHERE held.lease_expires_at IS NULL OR held.lease_expires_at <= ${timestamp(now)}
      RETURNING lease_owner`
      return rows.length === 1
    },
    orStoreError(`${repository}.claim`)
  ),

  release: Effect.fn(`${repository}.release`)(
    function* (lease: SingleLease, now: DateTime.Utc) {
      yield* sql`UPDATE ${sql(table)} SET lease_expires_at = ${timestamp(now)}
      WHERE lease_owner = ${lease.owner} AND lease_expires_at = ${timestamp(lease.until)}`
    },
    orStoreError(`${repository}.release`)
  )
})
