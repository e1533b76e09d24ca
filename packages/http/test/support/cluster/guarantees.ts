/**
 * The lifecycle guarantees checked on the database and at the partner's endpoint once a
 * multi-process run is quiet: every exercised contract settled exactly once; no payout sent twice
 * (one chain transaction per payout attempt, at most one accepted per payout, the one the payout
 * row names); every outbound event delivered, duplicates only under the same `event_id`, first
 * deliveries per contract in sequence order; the ledger summing to zero per currency; each
 * corridor's open notional equal to what its contracts in the holding statuses take.
 */
import { type Corridor, CorridorLimit, Money } from "@ratelock/core"
import type { Receiver } from "@ratelock/test-support/WebhookReceiver"
import type { Database, Readable } from "./database.ts"
import type { Lifecycle } from "./drive.ts"

interface OutgoingRow {
  readonly event_id: string
  readonly contract_id: string
  readonly sequence: number
  readonly event_type: string
  readonly status: string
}

const outgoing = (db: Readable) =>
  db.query<OutgoingRow>(
    (sql) => sql`SELECT event_id, contract_id::text, sequence, event_type, status FROM webhook_events
      WHERE direction = 'outgoing' ORDER BY contract_id, sequence`
  )

/** Waits until every lifecycle is settled and every outbound event delivered and received. */
export const waitQuiet = async (
  db: Database,
  receiver: Receiver,
  lifecycles: ReadonlyArray<Lifecycle>,
  timeoutMs: number
) => {
  const ids = lifecycles.map((l) => l.contractId)
  const deadline = Date.now() + timeoutMs
  let state = ""
  for (;;) {
    const [unsettled] = await db.query<{ readonly n: string }>(
      (sql) => sql`SELECT count(*) AS n FROM contracts WHERE id::text IN ${sql.in(ids)} AND status <> 'settled'`
    )
    const events = await outgoing(db)
    const undelivered = events.filter((e) => e.status !== "delivered").length
    const unreceived = events.filter((e) => !receiver.byEvent.has(e.event_id)).length
    state = `${unsettled!.n} unsettled, ${undelivered} events undelivered, ${unreceived} not received`
    if (Number(unsettled!.n) === 0 && undelivered === 0 && unreceived === 0) return
    if (Date.now() > deadline) {
      const stuck = await db.query(
        (sql) => sql`SELECT c.id::text, c.status, p.amount::text, p.status AS payout, p.attempts, p.last_error,
            p.next_attempt_at, p.transaction_hash,
            (SELECT string_agg(h.status, ', ' ORDER BY h.seq) FROM contract_history h WHERE h.contract_id = c.id) AS history,
            (SELECT string_agg(e.event_type || ':' || e.status, ', ' ORDER BY e.sequence) FROM webhook_events e
              WHERE e.contract_id = c.id AND e.direction = 'outgoing') AS events
          FROM contracts c LEFT JOIN payouts p ON p.contract_id = c.id
          WHERE c.id::text IN ${sql.in(ids)} AND c.status <> 'settled' LIMIT 5`
      )
      throw new Error(`not quiet after ${timeoutMs} ms: ${state}; unsettled: ${JSON.stringify(stuck)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

export interface Figures {
  readonly contracts: number
  readonly paidPayouts: number
  readonly zeroPayouts: number
  readonly broadcasts: number
  readonly events: number
  readonly deliveries: number
  readonly duplicateDeliveries: number
}

/** Every guarantee; throws with a description of the first family that fails. */
export const check = async (
  db: Readable,
  receiver: Receiver,
  lifecycles: ReadonlyArray<Lifecycle>
): Promise<Figures> => {
  const problems: Array<string> = []
  const fail = (what: string, detail: unknown) => problems.push(`${what}: ${JSON.stringify(detail).slice(0, 600)}`)
  const ids = lifecycles.map((l) => l.contractId)

  const settled = await db.query<{ readonly id: string; readonly status: string; readonly settled: string }>(
    (sql) => sql`SELECT c.id::text, c.status,
        (SELECT count(*) FROM contract_history h WHERE h.contract_id = c.id AND h.status = 'settled') AS settled
      FROM contracts c WHERE c.id::text IN ${sql.in(ids)}`
  )
  const wrong = settled.filter((c) => c.status !== "settled" || Number(c.settled) !== 1)
  if (settled.length !== ids.length || wrong.length > 0) fail("contracts not settled exactly once", wrong)

  const payouts = await db.query<{
    readonly id: string
    readonly contract_id: string
    readonly amount: string
    readonly status: string
    readonly transaction_hash: string | null
    readonly attempts: number
    readonly last_error: string | null
    readonly lease_owner: string | null
    readonly history: string
    readonly events: string
  }>(
    (sql) => sql`SELECT p.id::text, p.contract_id::text, p.amount::text, p.status, p.transaction_hash, p.attempts,
        p.last_error, p.lease_owner,
        (SELECT string_agg(h.status || ' (' || h.cause || ')', ', ' ORDER BY h.seq) FROM contract_history h
          WHERE h.contract_id = p.contract_id) AS history,
        (SELECT string_agg(e.event_type, ', ' ORDER BY e.sequence) FROM webhook_events e
          WHERE e.contract_id = p.contract_id AND e.direction = 'outgoing') AS events
      FROM payouts p`
  )
  const broadcasts = await db.query<{
    readonly transaction_hash: string
    readonly payout_id: string
    readonly attempt: number
    readonly amount: string
    readonly failure: string | null
  }>((sql) => sql`SELECT transaction_hash, payout_id, attempt, amount::text, failure FROM sim_broadcasts`)
  const attempts = new Set(broadcasts.map((b) => `${b.payout_id}:${b.attempt}`))
  if (attempts.size !== broadcasts.length) fail("a payout attempt broadcast twice", broadcasts)
  const paidOf = new Map(lifecycles.map((l) => [l.contractId, l.paid]))
  if (payouts.length !== ids.length) fail("payouts per contract", { payouts: payouts.length, contracts: ids.length })
  for (const p of payouts) {
    const accepted = broadcasts.filter((b) => b.payout_id === p.id && b.failure === null)
    const zero = Number(p.amount) === 0
    if (p.status !== "confirmed") fail("payout not confirmed", p)
    if (zero === paidOf.get(p.contract_id)) fail("payout amount against the exercise rate", p)
    if (zero ? accepted.length !== 0 : accepted.length !== 1) fail("accepted broadcasts of a payout", { p, accepted })
    const sent = accepted[0]
    if (
      sent !== undefined &&
      (sent.transaction_hash !== p.transaction_hash || Number(sent.amount) !== Number(p.amount))
    ) {
      fail("the broadcast is not the payout's transaction", { p, sent })
    }
  }

  const events = await outgoing(db)
  const settledEvents = events.filter((e) => e.event_type === "payout_settled")
  if (settledEvents.length !== ids.length || new Set(settledEvents.map((e) => e.contract_id)).size !== ids.length) {
    fail("payout_settled events per contract", settledEvents.length)
  }
  const known = new Map(events.map((e) => [e.event_id, e]))
  for (const e of events) if (!receiver.byEvent.has(e.event_id)) fail("event never delivered", e)
  for (const d of receiver.deliveries) {
    const e = known.get(d.eventId)
    if (
      e === undefined ||
      e.contract_id !== d.contractId ||
      e.sequence !== d.sequence ||
      e.event_type !== d.eventType
    ) {
      fail("a delivery that matches no event", d.body)
    }
    if (!d.signed) fail("a delivery with a bad signature", d.body)
  }
  const firsts = new Map<string, Array<number>>()
  for (const [, list] of receiver.byEvent) {
    const first = list[0]!
    firsts.set(first.contractId, [...(firsts.get(first.contractId) ?? []), first.index])
  }
  for (const [contractId, indexes] of firsts) {
    const order = indexes.sort((a, b) => a - b).map((i) => receiver.deliveries[i]!.sequence)
    if (order.some((s, i) => s !== i + 1)) fail("first deliveries out of sequence", { contractId, order })
  }

  const ledger = await db.query<{ readonly currency: string; readonly total: string }>(
    (sql) => sql`SELECT currency, sum(amount)::text AS total FROM ledger_entries GROUP BY currency`
  )
  if (ledger.length === 0 || ledger.some((l) => Number(l.total) !== 0)) fail("ledger does not sum to zero", ledger)

  // the corridors' open notional, kept by the contract statements, against a recount of the contracts
  const holding = await db.query<{
    readonly environment: string
    readonly direction: Corridor.Direction
    readonly notional_currency: Corridor.Currency
    readonly notional_amount: string
    readonly locked_rate: string
  }>(
    (sql) => sql`SELECT environment, direction, notional_currency, notional_amount::text, locked_rate::text
      FROM contracts WHERE status IN ('quote_created', 'funds_in_route', 'active')`
  )
  const recount = new Map<string, Money.Decimal>()
  for (const c of holding) {
    const key = `${c.environment} ${c.direction}`
    const taken = CorridorLimit.lockNotional({
      direction: c.direction,
      notionalCurrency: c.notional_currency,
      notionalAmount: Money.unsafe(c.notional_amount),
      lockedRate: Money.unsafe(c.locked_rate)
    })
    recount.set(key, Money.sum(recount.get(key) ?? Money.zero, taken))
  }
  const kept = await db.query<{ readonly environment: string; readonly direction: string; readonly open: string }>(
    (sql) => sql`SELECT environment, direction, open_notional::text AS open FROM corridor_limits`
  )
  for (const row of kept) {
    const key = `${row.environment} ${row.direction}`
    const expected = recount.get(key) ?? Money.zero
    if (!Money.equals(Money.unsafe(row.open), expected)) {
      fail("a corridor's open notional differs from its contracts", {
        key,
        kept: row.open,
        contracts: Money.format(expected)
      })
    }
    recount.delete(key)
  }
  for (const [key, sum] of recount)
    fail("a corridor holds contracts it never counted", { key, contracts: Money.format(sum) })

  if (problems.length > 0) throw new Error(`guarantees broken:\n${problems.slice(0, 20).join("\n")}`)
  return {
    contracts: ids.length,
    paidPayouts: payouts.filter((p) => Number(p.amount) > 0).length,
    zeroPayouts: payouts.filter((p) => Number(p.amount) === 0).length,
    broadcasts: broadcasts.length,
    events: events.length,
    deliveries: receiver.deliveries.length,
    duplicateDeliveries: receiver.deliveries.length - receiver.byEvent.size
  }
}
