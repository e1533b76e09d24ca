/**
 * Migration 9: market-data snapshots (issue 15), immutable, one per document hash; `latest` reads
 * the newest by `(as_of, imported_at, id)` on `market_snapshots_latest`. Quotes name the snapshot
 * that priced them and keep their model inputs (`json`: each double as its shortest JSON text,
 * read back exactly). Quotes priced before this migration came from the static table of
 * illustrative defaults: when there are any, the illustrative snapshot is stored under
 * `illustrativeSnapshotId` and they point at it, without inputs (what the engine took was not
 * kept). A database with no priced quote gets no snapshot, as a new memory store has none.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { statements } from "./statements.ts"

/** The id of the illustrative snapshot that migration 9 stores for the quotes priced before market data. */
export const illustrativeSnapshotId = "00000000-0000-4000-8000-000000000001"

// core's `MarketSnapshot.illustrative` when this migration was released, copied as the JSON text the
// row keeps (split in lines only to fit the page) and its `MarketSnapshot.hash`: a released
// migration must never change when core does
const illustrative = {
  asOf: "2026-01-01T00:00:00.000Z",
  source: "illustrative defaults",
  hash: "eedd094cea7bd174f6d216c528992db5b45bac7dbbc2c4a36064198c19a8d246",
  document: [
    '{"as_of":"2026-01-01T00:00:00.000Z","source":"illustrative defaults",',
    '"rates":{"USD":{"convention":"ACT/360","points":[{"tenor_days":365,"rate":"0.0375"}]},',
    '"EUR":{"convention":"ACT/360","points":[{"tenor_days":365,"rate":"0.02"}]},',
    '"BRL":{"convention":"BUS/252","points":[{"tenor_days":365,"rate":"0.1425"}]},',
    '"MXN":{"convention":"ACT/360","points":[{"tenor_days":365,"rate":"0.07"}]},',
    '"NGN":{"convention":"ACT/365","points":[{"tenor_days":365,"rate":"0.27"}]}},"holidays":{},',
    '"spot":{"EUR/USD":"1.17","USD/BRL":"5.4","USD/MXN":"18.5","USD/NGN":"1500","EUR/BRL":"6.32","BRL/MXN":"3.43"},',
    '"vols":{"EUR/USD":[{"tenor_days":365,"atm":"0.075","rr25":"0","bf25":"0"}],',
    '"USD/BRL":[{"tenor_days":365,"atm":"0.14","rr25":"0","bf25":"0"}],',
    '"USD/MXN":[{"tenor_days":365,"atm":"0.12","rr25":"0","bf25":"0"}],',
    '"USD/NGN":[{"tenor_days":365,"atm":"0.2","rr25":"0","bf25":"0"}],',
    '"EUR/BRL":[{"tenor_days":365,"atm":"0.15","rr25":"0","bf25":"0"}],',
    '"BRL/MXN":[{"tenor_days":365,"atm":"0.13","rr25":"0","bf25":"0"}]}}'
  ].join("")
}

export const marketSnapshots = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* statements([
    `CREATE TABLE market_snapshots (
      id uuid PRIMARY KEY,
      hash text NOT NULL UNIQUE CHECK (hash ~ '^[0-9a-f]{64}$'),
      as_of timestamptz(3) NOT NULL,
      source text NOT NULL,
      document json NOT NULL,
      imported_at timestamptz(3) NOT NULL
    )`,
    `CREATE INDEX market_snapshots_latest ON market_snapshots (as_of DESC, imported_at DESC, id DESC)`,
    `ALTER TABLE quotes
      ADD COLUMN snapshot_id uuid REFERENCES market_snapshots (id),
      ADD COLUMN pricing_inputs json`
  ])
  yield* sql`INSERT INTO market_snapshots (id, hash, as_of, source, document, imported_at)
    SELECT ${illustrativeSnapshotId}::uuid, ${illustrative.hash}::text, ${illustrative.asOf}::timestamptz,
      ${illustrative.source}::text, ${illustrative.document}::json, now()
    WHERE EXISTS (SELECT 1 FROM quotes WHERE status = 'created')`
  yield* sql`UPDATE quotes SET snapshot_id = ${illustrativeSnapshotId} WHERE status = 'created'`
})
