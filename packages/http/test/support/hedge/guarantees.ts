/**
 * What hedging promises after any crash (risk.md, Hedging: at most once), read from the database
 * once the hedgers are quiet: every order ended filled or rejected; the simulated venue received
 * each order exactly once and nothing else, with the same outcome; each decision was made from
 * every earlier fill of its pair (no two decisions overlapped); each pair's position is the sum of
 * the venue's fills; the hedge ledger sums to zero per currency.
 */
import { Money } from "@ratelock/core"
import { assert } from "vitest"
import type { Database } from "../cluster/database.ts"

interface OrderRow {
  readonly id: string
  readonly pair: string
  readonly side: "buy" | "sell"
  readonly status: string
  readonly position: string
  readonly fill_rate: string | null
  readonly fill_amount: string | null
}

interface VenueRow {
  readonly order_id: string
  readonly pair: string
  readonly side: "buy" | "sell"
  readonly outcome: string
  readonly rate: string | null
  readonly amount: string
  readonly executions: number
}

export const signed = (side: "buy" | "sell", amount: string) =>
  side === "buy" ? Money.unsafe(amount) : Money.subtract(Money.zero, Money.unsafe(amount))

/** Each pair's position: the signed sum of its filled orders. */
export const positions = async (db: Database): Promise<Map<string, Money.Decimal>> =>
  new Map(
    (
      await db.query<{ readonly pair: string; readonly position: string }>(
        (sql) => sql`SELECT pair, coalesce(sum(CASE side WHEN 'buy' THEN fill_amount ELSE -fill_amount END), 0)::text
          AS position FROM hedge_orders WHERE status = 'filled' GROUP BY pair`
      )
    ).map((r) => [r.pair, Money.unsafe(r.position)])
  )

/** Orders still waiting for an outcome. */
export const outstanding = async (db: Database): Promise<number> => {
  const [row] = await db.query<{ readonly n: number }>(
    (sql) => sql`SELECT count(*)::int AS n FROM hedge_orders WHERE status IN ('intended', 'sent')`
  )
  return row!.n
}

/** Checks every guarantee; answers the orders and how many were rejected. */
export const check = async (db: Database): Promise<{ readonly orders: number; readonly rejected: number }> => {
  const orders = await db.query<OrderRow>(
    (sql) => sql`SELECT id::text, pair, side, status, position::text, fill_rate::text, fill_amount::text
      FROM hedge_orders ORDER BY created_at, id`
  )
  const venue = await db.query<VenueRow>(
    (sql) => sql`SELECT order_id::text, pair, side, outcome, rate::text, amount::text, executions FROM sim_hedge_fills`
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
  const held = await positions(db)
  for (const pair of new Set(orders.map((o) => o.pair))) {
    let position = Money.zero
    for (const o of orders.filter((x) => x.pair === pair)) {
      assert.isTrue(
        Money.equals(Money.unsafe(o.position), position),
        `${pair} order ${o.id} decided from ${o.position}, not ${Money.format(position)}`
      )
      if (o.status === "filled") position = Money.sum(position, signed(o.side, o.fill_amount!))
    }
    const fills = venue
      .filter((v) => v.pair === pair && v.outcome === "filled")
      .reduce((sum, v) => Money.sum(sum, signed(v.side, v.amount)), Money.zero)
    assert.isTrue(Money.equals(held.get(pair) ?? Money.zero, fills), `${pair}: the position is the venue's fills`)
    assert.isTrue(Money.equals(position, fills))
  }
  const balances = await db.query<{ readonly currency: string; readonly total: string }>(
    (sql) => sql`SELECT currency, sum(amount)::text AS total FROM hedge_ledger_entries GROUP BY currency`
  )
  for (const b of balances) assert.isTrue(Money.isZero(Money.unsafe(b.total)), `${b.currency} ${b.total}`)
  return { orders: orders.length, rejected: orders.filter((o) => o.status === "rejected").length }
}
