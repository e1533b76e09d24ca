/**
 * What hedging promises after any crash (risk.md, Hedging: at most once), read from the database
 * once the hedgers are quiet: every order ended filled or rejected; the simulated venue received
 * each order exactly once and nothing else, with the same outcome; each decision was made from
 * every earlier fill of its pair (no two decisions overlapped); each pair's position is the sum of
 * the venue's fills; the hedge ledger sums to zero per currency. And, once the book is still,
 * each pair within its band of the stored revaluation's delta (`withinBands`).
 *
 * On any database with the service's tables: PostgreSQL, or an embedded one once its server
 * stopped (`crash/embeddedDatabase.ts`).
 */
import { HedgePolicy, Money, type Partner } from "@ratelock/core"
import { DateTime, Option } from "effect"
import { assert } from "vitest"
import type { Readable } from "../cluster/database.ts"

interface OrderRow {
  readonly id: string
  readonly environment: string
  readonly pair: string
  readonly side: "buy" | "sell"
  readonly status: string
  readonly position: string
  readonly fill_rate: string | null
  readonly fill_amount: string | null
}

interface VenueRow {
  readonly order_id: string
  readonly environment: string
  readonly pair: string
  readonly side: "buy" | "sell"
  readonly outcome: string
  readonly rate: string | null
  readonly amount: string
  readonly executions: number
  readonly timed_out: boolean
}

export const signed = (side: "buy" | "sell", amount: string) =>
  side === "buy" ? Money.unsafe(amount) : Money.subtract(Money.zero, Money.unsafe(amount))

/** Each pair's position in `environment`: the signed sum of its filled orders. */
export const positions = async (db: Readable, environment: Partner.Environment): Promise<Map<string, Money.Decimal>> =>
  new Map(
    (
      await db.query<{ readonly pair: string; readonly position: string }>(
        (sql) => sql`SELECT pair, coalesce(sum(CASE side WHEN 'buy' THEN fill_amount ELSE -fill_amount END), 0)::text
          AS position FROM hedge_orders WHERE status = 'filled' AND environment = ${environment} GROUP BY pair`
      )
    ).map((r) => [r.pair, Money.unsafe(r.position)])
  )

/** Orders still waiting for an outcome. */
export const outstanding = async (db: Readable): Promise<number> => {
  const [row] = await db.query<{ readonly n: number }>(
    (sql) => sql`SELECT count(*)::int AS n FROM hedge_orders WHERE status IN ('intended', 'sent')`
  )
  return row!.n
}

export interface Figures {
  readonly orders: number
  readonly rejected: number
  /** Filled by the venue, answered with a timeout, and found by a lookup. */
  readonly timedOut: number
}

/** Checks every guarantee; answers how many orders there were, rejected, and timed out. */
export const check = async (db: Readable): Promise<Figures> => {
  const orders = await db.query<OrderRow>(
    (sql) => sql`SELECT id::text, environment, pair, side, status, position::text, fill_rate::text, fill_amount::text
      FROM hedge_orders ORDER BY created_at, id`
  )
  const venue = await db.query<VenueRow>(
    (sql) => sql`SELECT order_id::text, environment, pair, side, outcome, rate::text, amount::text, executions,
      timed_out FROM sim_hedge_fills`
  )
  const received = new Map(venue.map((v) => [v.order_id, v]))
  assert.isTrue(orders.every((o) => o.status === "filled" || o.status === "rejected"))
  assert.strictEqual(venue.length, orders.length, "the venue holds exactly our orders")
  for (const o of orders) {
    const v = received.get(o.id)
    assert.isDefined(v, `order ${o.id} never reached the venue`)
    assert.strictEqual(v!.executions, 1, `order ${o.id} executed ${v!.executions} times`)
    assert.strictEqual(v!.outcome, o.status)
    if (o.status === "filled") {
      assert.isTrue(Money.equals(Money.unsafe(v!.rate!), Money.unsafe(o.fill_rate!)))
      assert.isTrue(Money.equals(Money.unsafe(v!.amount), Money.unsafe(o.fill_amount!)))
    }
  }
  // per environment and pair (`scope`): the orders in turn, and the venue's fills
  const scope = (row: { readonly environment: string; readonly pair: string }) => `${row.environment} ${row.pair}`
  const held = new Map<string, Money.Decimal>()
  for (const environment of new Set(orders.map((o) => o.environment as Partner.Environment))) {
    for (const [pair, position] of await positions(db, environment)) held.set(`${environment} ${pair}`, position)
  }
  for (const key of new Set(orders.map(scope))) {
    let position = Money.zero
    for (const o of orders.filter((x) => scope(x) === key)) {
      assert.isTrue(
        Money.equals(Money.unsafe(o.position), position),
        `${key} order ${o.id} decided from ${o.position}, not ${Money.format(position)}`
      )
      if (o.status === "filled") position = Money.sum(position, signed(o.side, o.fill_amount!))
    }
    const fills = venue
      .filter((v) => scope(v) === key && v.outcome === "filled")
      .reduce((sum, v) => Money.sum(sum, signed(v.side, v.amount)), Money.zero)
    assert.isTrue(Money.equals(held.get(key) ?? Money.zero, fills), `${key}: the position is the venue's fills`)
    assert.isTrue(Money.equals(position, fills))
  }
  const balances = await db.query<{ readonly currency: string; readonly total: string }>(
    (sql) => sql`SELECT currency, sum(amount)::text AS total FROM hedge_ledger_entries GROUP BY currency`
  )
  for (const b of balances) assert.isTrue(Money.isZero(Money.unsafe(b.total)), `${b.currency} ${b.total}`)
  return {
    orders: orders.length,
    rejected: orders.filter((o) => o.status === "rejected").length,
    timedOut: venue.filter((v) => v.timed_out).length
  }
}

export interface PairStanding {
  readonly environment: Partner.Environment
  readonly pair: string
  /** The delta of the environment's stored revaluation, and when it was computed. */
  readonly delta: Money.Decimal
  readonly computedAt: Date
  readonly position: Money.Decimal
  readonly band: Money.Decimal
  /** Its policy (core's `HedgePolicy.decide`) would place no order now. */
  readonly within: boolean
}

/** Where each pair with a policy stands against the stored revaluation of its environment. */
export const standings = async (db: Readable): Promise<ReadonlyArray<PairStanding>> => {
  const rows = await db.query<{
    readonly environment: Partner.Environment
    readonly pair: string
    readonly delta: string | null
    readonly computed_ms: number | null
    readonly target_ratio: string
    readonly band: string
    readonly instrument: HedgePolicy.Instrument
    readonly value_days: number | null
  }>(
    (sql) => sql`SELECT p.environment, p.pair, d.delta, d.computed_ms, p.target_ratio::text, p.band::text,
        p.instrument, p.value_days
      FROM hedge_policies p LEFT JOIN (
        SELECT r.environment, (extract(epoch FROM r.computed_at) * 1000)::float8 AS computed_ms,
            e->>'pair' AS pair, e->>'delta' AS delta
          FROM risk_revaluations r CROSS JOIN LATERAL jsonb_array_elements(r.report->'pairs') e
      ) d ON d.environment = p.environment AND d.pair = p.pair
      ORDER BY p.environment, p.pair`
  )
  const result: Array<PairStanding> = []
  for (const row of rows) {
    assert.isNotNull(row.delta, `${row.environment} ${row.pair}: no stored revaluation covers it`)
    const delta = Money.unsafe(row.delta!)
    const position = (await positions(db, row.environment)).get(row.pair) ?? Money.zero
    const band = Money.unsafe(row.band)
    const needed = HedgePolicy.decide({
      delta,
      position,
      policy: {
        targetRatio: Money.unsafe(row.target_ratio),
        band,
        instrument: row.instrument,
        valueDays: row.value_days
      },
      now: DateTime.nowUnsafe()
    })
    const computedAt = new Date(row.computed_ms!)
    result.push({
      environment: row.environment,
      pair: row.pair,
      delta,
      computedAt,
      position,
      band,
      within: Option.isNone(needed)
    })
  }
  return result
}

/** Every pair with a policy is within its band of the stored revaluation's delta. Answers where each stands. */
export const withinBands = async (db: Readable): Promise<ReadonlyArray<PairStanding>> => {
  const all = await standings(db)
  for (const s of all) {
    assert.isTrue(
      s.within,
      `${s.environment} ${s.pair}: delta ${Money.format(s.delta)}, position ${Money.format(s.position)}, ` +
        `residual ${Money.format(HedgePolicy.residual(s.delta, s.position))} beyond its band ${Money.format(s.band)}`
    )
  }
  return all
}
