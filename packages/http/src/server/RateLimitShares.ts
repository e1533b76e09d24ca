/**
 * How much of each API key's budget this API replica enforces, so that replicas on one database
 * give a key its budget once, not once each.
 *
 * Alone (the default: the embedded store, tests) a replica enforces the whole budget. With
 * `layerSql` every API replica heartbeats its row of `api_replicas` once a second with the
 * requests per second it saw per key, and reads the other live rows: its share of a key is its
 * part of the key's requests across replicas. A key's shares sum to at most one, and follow how
 * the load balancer spreads the key's traffic (evenly, unevenly, or all to one replica) within two
 * heartbeats. No request waits on the database: a request counts itself and reads its share in
 * memory.
 */
import { Clock, Context, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

export interface RateLimitSharesShape {
  /** Counts one request for `key`; this replica's share, in (0, 1], of the key's budget. */
  readonly requested: (key: string) => number
}

export const RateLimitShares = Context.Reference<RateLimitSharesShape>("@ratelock/http/RateLimitShares", {
  defaultValue: () => ({ requested: () => 1 })
})

/** Requests per second per API key, over a replica's last heartbeat period. */
export type Demand = ReadonlyMap<string, number>

export interface Shares {
  /** Live replicas, this one included. */
  readonly replicas: number
  /** The shares of keys some replica saw requests for; any other key's is `1 / replicas`. */
  readonly byKey: ReadonlyMap<string, number>
  /** This replica's part of each such key's demand at this heartbeat. */
  readonly parts: ReadonlyMap<string, number>
}

export const alone: Shares = { replicas: 1, byKey: new Map(), parts: new Map() }

export const shareOf = (shares: Shares, key: string): number => shares.byKey.get(key) ?? 1 / shares.replicas

/**
 * Requests per second every replica is counted with on top of what it saw: a key no replica saw
 * splits evenly, and a replica that saw none of a busy key's requests keeps a sliver of it.
 */
const prior = 1

/**
 * The shares after a heartbeat, from this replica's demand and the other live replicas' latest.
 * A key's share is the smaller of this replica's part of the key's demand now and at the previous
 * heartbeat (an even split for a key it had not seen): replicas heartbeat out of step, so when a
 * key's traffic starts, a replica may count its own requests a moment before the others publish
 * theirs, and would otherwise take nearly the whole budget for a second. A share so falls at once
 * and rises in two heartbeats.
 */
export const next = (own: Demand, others: ReadonlyArray<Demand>, previous: Shares): Shares => {
  const byKey = new Map<string, number>()
  const parts = new Map<string, number>()
  for (const key of new Set([...own.keys(), ...others.flatMap((demand) => [...demand.keys()])])) {
    const mine = (own.get(key) ?? 0) + prior
    const part = mine / others.reduce((sum, demand) => sum + (demand.get(key) ?? 0) + prior, mine)
    parts.set(key, part)
    byKey.set(key, Math.min(part, previous.parts.get(key) ?? 1 / previous.replicas))
  }
  return { replicas: 1 + others.length, byKey, parts }
}

/** Between heartbeats. */
const every = Duration.seconds(1)

/** How long a row counts without a heartbeat: then a stopped replica's share goes to the others. */
const rowLife = Duration.seconds(5)

/**
 * Shares from the `api_replicas` table, one statement a second: this replica's row upserted (its
 * demand, expiry and the live replicas it counts), rows expired for a minute deleted, and the other
 * live rows read. A failed heartbeat is logged and the shares stay as they were. The row is deleted
 * when the layer is released, so the others take its share within two of their heartbeats.
 * `replicaId` names this replica's row: unique among the live ones (the host name and process id).
 */
export const layerSql = (replicaId: string): Layer.Layer<never, never, SqlClient.SqlClient> =>
  Layer.effect(
    RateLimitShares,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      let counts = new Map<string, number>()
      let since = yield* Clock.currentTimeMillis
      let shares = alone

      const heartbeat = Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const seconds = Math.max(now - since, 1) / 1000
        const own = new Map([...counts].map(([key, n]) => [key, Math.round((n / seconds) * 1000) / 1000] as const))
        counts = new Map()
        since = now
        const rows = yield* sql<{ readonly demand: Record<string, number> }>`
          WITH others AS (
            SELECT demand FROM api_replicas WHERE id <> ${replicaId} AND expires_at > now()
          ), beat AS (
            INSERT INTO api_replicas (id, expires_at, replicas, demand)
            VALUES (${replicaId}, now() + ${Duration.toMillis(rowLife)}::integer * interval '1 millisecond',
              (SELECT count(*) + 1 FROM others), ${JSON.stringify(Object.fromEntries(own))}::jsonb)
            ON CONFLICT (id) DO UPDATE
              SET expires_at = EXCLUDED.expires_at, replicas = EXCLUDED.replicas, demand = EXCLUDED.demand
          ), swept AS (
            DELETE FROM api_replicas WHERE id <> ${replicaId} AND expires_at < now() - interval '1 minute'
          )
          SELECT demand FROM others`
        shares = next(
          own,
          rows.map((row) => new Map(Object.entries(row.demand))),
          shares
        )
      }).pipe(Effect.catchCause((cause) => Effect.logWarning("rate limit heartbeat failed", cause)))

      // the first heartbeat before the first request: a replica starts knowing the others
      yield* heartbeat
      yield* Effect.addFinalizer(() => Effect.ignore(sql`DELETE FROM api_replicas WHERE id = ${replicaId}`))
      yield* Effect.forkScoped(Effect.forever(Effect.delay(heartbeat, every)))
      return {
        requested: (key: string) => {
          counts.set(key, (counts.get(key) ?? 0) + 1)
          return shareOf(shares, key)
        }
      }
    })
  )
