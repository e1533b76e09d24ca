/**
 * Booking treasury entries on Postgres, each source once whoever books it again: as CTEs of the
 * statement that books them (a movement's confirmation, an unmatched transfer's record, a plain
 * booking). The sources are claimed in `treasury_bookings` (`INSERT … ON CONFLICT DO NOTHING`:
 * of concurrent bookers of one source, the later waits on the earlier's row, then finds it taken)
 * and the entries of the sources claimed now, only those, are inserted in the order given.
 */
import type { TreasuryLedger } from "@ratelock/core"
import type { Array } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import { json } from "./rows/columns.ts"
import { treasuryColumnList, treasuryJson, treasuryRecordset } from "./rows/treasury.ts"

/**
 * `input` (the entries), `claimed` (the sources booked now; none unless `when` holds) and `booked`
 * (their entries inserted), for a `WITH`.
 */
export const bookingCtes = (
  sql: SqlClient.SqlClient,
  entries: Array.NonEmptyReadonlyArray<TreasuryLedger.TreasuryEntry>,
  when?: Statement.Fragment
): Statement.Fragment => {
  const rows = entries.map((e, n) => ({ ...treasuryJson(e), n }))
  const columns = sql.literal(treasuryColumnList)
  return sql`input AS (
      SELECT * FROM jsonb_to_recordset(${json(rows)}::jsonb) AS v(${sql.literal(treasuryRecordset)}, n int)
    ), claimed AS (
      INSERT INTO treasury_bookings (source) SELECT DISTINCT source FROM input${when === undefined ? sql`` : sql` WHERE ${when}`}
      ON CONFLICT (source) DO NOTHING RETURNING source
    ), booked AS (
      INSERT INTO treasury_entries (${columns})
      SELECT ${columns} FROM input WHERE source IN (SELECT source FROM claimed) ORDER BY n
    )`
}
