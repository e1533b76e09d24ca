/**
 * A guard a single statement can end with: `SELECT ratelock_conflict_unless(<condition>)` fails the
 * whole statement as a serialization failure (40001) when a compare-and-set in it matched nothing,
 * so its unconditional inserts are rolled back with it. One statement instead of a transaction of
 * several saves the round trips of BEGIN, COMMIT and the statements in between.
 */
import { statements } from "./statements.ts"

export const conflictGuard = statements([
  `CREATE FUNCTION ratelock_conflict_unless(ok boolean) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    IF ok IS NOT TRUE THEN
      RAISE EXCEPTION 'the row changed since it was read' USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN true;
  END $$`
])
