/**
 * The daily closes end to end on PostgreSQL, as deployed: an API process and a `ratelock worker` (hedging
 * `manual`), two partners selling over HTTP on the sandbox's simulated chains, a snapshot imported twenty minutes
 * ago (the sandbox prices on it; production, past its 15 minutes, has no market data in force), and an operator
 * closing with the CLI. Skipped without `DATABASE_URL`.
 *
 * 1. Between `ratelock finance close --environment sandbox` and a second one, a day of known activity: options and
 *    forwards sold (premiums and forward fees, in USDC and EURC), two payouts paid (USDC and EURC), a forward's
 *    window ended unexercised (`/sandbox/…/expire`: its EURC deposit forfeited), and a trader's fill of the manual
 *    hedge order the worker placed. Then `finance pnl --json` (the same JSON as `GET /operator/v1/finance/pnl`):
 *    - every realised line exact to the unit against the ledger's own sums, by SQL on `ledger_entries` (premium
 *      income, forfeited deposits, payout expense) over each period the report holds, EURC at the rate of the close
 *      ending its period: the totals, each market pair, each token, and each partner (`--by partner`);
 *    - total = realised + unrealised = Σ explained + unexplained, to the unit, in the totals, each day and each pair
 *      (the locks open at both closes, with the market moved between them, give the explain lines to explain);
 *    - each close's ledger balances are the three ledgers' SQL sums at its instant;
 *    - the CSV of each view has the JSON's figures;
 *    - a close of production, without fresh market data, refused `no_market_data` by the CLI and the route, and
 *      nothing written.
 * 2. After a real close, the database refuses an UPDATE or DELETE of a close or of its locks, and nothing changes.
 */
import { Money, PeriodPnl, Requests } from "@ratelock/core"
import { databaseUrl } from "@ratelock/test-support/Postgres"
import { freePort } from "@ratelock/test-support/Processes"
import { type Receiver, start as startReceiver } from "@ratelock/test-support/WebhookReceiver"
import { DateTime, Effect } from "effect"
import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { runCli } from "./support/cliInProcess.ts"
import { type Database, freshDatabase, waitActive } from "./support/cluster/database.ts"
import { closeRows, exampleSnapshot, until } from "./support/closes.ts"
import { newKey, type Reply, request } from "./support/http.ts"
import { Cluster, cliJson } from "./support/processes.ts"

// biome-ignore lint/suspicious/noExplicitAny: the routes' and the CLI's JSON is read field by field
type Json = any
type Lines = Record<(typeof PeriodPnl.lineNames)[number], string>

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)
const d = Money.unsafe
const sum = (xs: ReadonlyArray<Money.Decimal>) => xs.reduce(Money.sum, Money.zero)

/** `actual`, a decimal string of the wire, equal to `expected` to the last unit. */
const exact = (actual: string | undefined, expected: Money.Decimal, what: string) => {
  assert.isString(actual, what)
  assert.isTrue(Money.equals(d(actual!), expected), `${what}: ${actual}, expected ${Money.format(expected)}`)
}

/** The P&L's identities, to the unit: realised is its four lines, total is realised + unrealised and the explain. */
const identities = (lines: Lines, what: string) => {
  exact(
    lines.realised,
    sum([lines.premiums, lines.forfeits, lines.payouts, lines.hedge_realised].map(d)),
    `${what} realised`
  )
  exact(lines.total, Money.sum(d(lines.realised), d(lines.unrealised)), `${what} total = realised + unrealised`)
  exact(
    lines.total,
    Money.sum(sum(PeriodPnl.explainedLines.map((name) => d(lines[name]))), d(lines.unexplained)),
    `${what} total = explained + unexplained`
  )
}

/** `ratelock <args>` on the database, run to its end (in this process): its exit code and what it printed. */
const cli = (databaseUrl: string, ...args: ReadonlyArray<string>) =>
  runCli({ ...process.env, DATABASE_URL: databaseUrl, RATELOCK_LOG_LEVEL: "Warn" }, args)

/** A CSV without quoted fields (ids, dates and decimals), as rows of its header's columns. */
const csvRows = (text: string): ReadonlyArray<Record<string, string>> => {
  const [header, ...rows] = text
    .trim()
    .split("\n")
    .map((line) => line.split(","))
  return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]!])))
}

/** The realised figures the ledger says, per pair, partner and token, in USD (tokens: in their own units). */
interface Realised {
  premiums: Money.Decimal
  forfeits: Money.Decimal
  payouts: Money.Decimal
  sold: Set<string>
}
const noneRealised = (): Realised => ({
  premiums: Money.zero,
  forfeits: Money.zero,
  payouts: Money.zero,
  sold: new Set()
})
const line = { premium_income: "premiums", forfeited_deposits: "forfeits", payout_expense: "payouts" } as const
/** The market pair of each direction sold here, in its usual order. */
const pairOf: Record<string, string> = { USD_TO_BRL: "USD/BRL", EUR_TO_USD: "EUR/USD" }

interface Expected {
  readonly pairs: Map<string, Realised>
  readonly partners: Map<string, Map<string, Realised>>
  /** In each token's own units. */
  readonly tokens: Map<string, Realised>
}
const emptyExpected = (): Expected => ({ pairs: new Map(), partners: new Map(), tokens: new Map() })
const at = <K, V>(map: Map<K, V>, key: K, make: () => V) => {
  if (!map.has(key)) map.set(key, make())
  return map.get(key)!
}

/**
 * What the sandbox's contract ledger booked after `from` up to `to` (a period's bounds), by SQL alone: earned is the
 * opposite of the entry (credits negative), a EURC amount in USD at `eurUsd` rounded to the token's unit (6 places,
 * half away from zero: PostgreSQL's `round`) entry by entry, a USDC one as it is. Added into `into`.
 */
const ledgerSums = async (db: Database, period: { from: string; to: string; eurUsd: string }, into: Expected) => {
  const rows = await db.query<{
    readonly partner_id: string
    readonly direction: string
    readonly account: keyof typeof line
    readonly currency: string
    readonly contract_id: string
    readonly amount: string
    readonly usd: string
  }>(
    (sql) => sql`SELECT e.partner_id::text, c.direction, e.account, e.currency, e.contract_id::text,
        sum(-e.amount)::text AS amount,
        sum(-CASE e.currency WHEN 'EURC' THEN round(e.amount * ${period.eurUsd}::numeric, 6) ELSE e.amount END)::text
          AS usd
      FROM ledger_entries e JOIN contracts c ON c.id = e.contract_id
      WHERE e.environment = 'sandbox' AND e.at > ${period.from}::timestamptz AND e.at <= ${period.to}::timestamptz
        AND e.account IN ('premium_income', 'forfeited_deposits', 'payout_expense')
      GROUP BY 1, 2, 3, 4, 5`
  )
  for (const r of rows) {
    const pair = pairOf[r.direction]!
    const add = (target: Realised, amount: string) => {
      target[line[r.account]] = Money.sum(target[line[r.account]], d(amount))
      if (r.account === "premium_income") target.sold.add(r.contract_id)
    }
    add(at(into.pairs, pair, noneRealised), r.usd)
    add(
      at(
        at(into.partners, r.partner_id, () => new Map()),
        pair,
        noneRealised
      ),
      r.usd
    )
    add(at(into.tokens, r.currency, noneRealised), r.amount)
  }
  return rows.length
}

/**
 * The sandbox's three ledgers (contracts, treasury, hedges) summed per account and currency over the entries booked
 * at or before `at`, zero balances left out, as `[ledger, account, currency, balance]`.
 */
const trialBalance = async (db: Database, at: string) =>
  (
    await db.query<{
      readonly ledger: string
      readonly account: string
      readonly currency: string
      readonly balance: string
    }>(
      (sql) => sql`SELECT ledger, account, currency, sum(amount)::text AS balance FROM (
          SELECT 'contracts' AS ledger, account::text, currency::text, amount FROM ledger_entries
            WHERE environment = 'sandbox' AND at <= ${at}::timestamptz
          UNION ALL
          SELECT 'treasury', account::text, currency::text, amount FROM treasury_entries
            WHERE environment = 'sandbox' AND at <= ${at}::timestamptz
          UNION ALL
          SELECT 'hedges', account::text, currency::text, amount FROM hedge_ledger_entries
            WHERE environment = 'sandbox' AND at <= ${at}::timestamptz
        ) entries GROUP BY 1, 2, 3 HAVING sum(amount) <> 0`
    )
  )
    .map((r) => [r.ledger, r.account, r.currency, Money.format(d(r.balance))])
    .sort((a, b) => (a.join(" ") < b.join(" ") ? -1 : 1))

/** A partner's figures over all its pairs. */
const partnerTotal = (pairs: Map<string, Realised>): Realised => {
  const all = noneRealised()
  for (const r of pairs.values()) {
    all.premiums = Money.sum(all.premiums, r.premiums)
    all.forfeits = Money.sum(all.forfeits, r.forfeits)
    all.payouts = Money.sum(all.payouts, r.payouts)
    for (const id of r.sold) all.sold.add(id)
  }
  return all
}

/** A row of `realised` figures of the report equal to the ledger's. */
const sameRealised = (actual: Json, expected: Realised, what: string) => {
  exact(actual.premiums, expected.premiums, `${what} premiums`)
  exact(actual.forfeits, expected.forfeits, `${what} forfeits`)
  exact(actual.payouts, expected.payouts, `${what} payouts`)
  assert.strictEqual(actual.locks_sold, expected.sold.size, `${what} locks sold`)
}

interface Partner {
  readonly partnerId: string
  readonly key: { readonly keyId: string; readonly secret: string; readonly environment: "sandbox" }
}

/** `ratelock partner create` with the receiver as its sandbox webhook. */
const createPartner = async (db: Database, name: string, receiver: Receiver): Promise<Partner> => {
  const created = await cliJson(db.url, "partner", "create", "--name", name, "--webhook-url-sandbox", receiver.url)
  const sandbox = created.environments.sandbox
  return {
    partnerId: created.partner_id,
    key: { keyId: sandbox.api_key_id, secret: sandbox.api_key_secret, environment: "sandbox" }
  }
}

/** Today and yesterday as UTC days: a span that holds every close of the test, even one run across midnight. */
const span = () => {
  const now = Date.now()
  return { from: new Date(now - 86_400_000).toISOString().slice(0, 10), to: new Date(now).toISOString().slice(0, 10) }
}

/** The daily cut twelve hours from now: the worker closes for the one before at its start, and not again here. */
const cutFarFromNow = () => new Date(Date.now() + 12 * 3_600_000).toISOString().slice(11, 16)

interface Setup {
  readonly db: Database
  readonly receiver: Receiver
  readonly cluster: Cluster
  readonly acme: Partner
  readonly bolt: Partner
  readonly token: string
  readonly apiUrl: string
  readonly operatorUrl: string
}

let setup: Setup | undefined
let teardown: Array<() => Promise<unknown>> = []

describe.skipIf(databaseUrl === undefined)("the daily closes on PostgreSQL, with running processes", () => {
  beforeAll(async () => {
    const db = await freshDatabase(databaseUrl!, "ratelock_daily_close")
    teardown.push(() => db.drop())
    const receiver = await startReceiver()
    teardown.push(() => receiver.close())
    // the first command migrates the database; the rest at once
    const acme = await createPartner(db, "Acme Pay", receiver)
    const snapshotFile = join(tmpdir(), `ratelock-daily-close-${newKey()}.json`)
    writeFileSync(snapshotFile, JSON.stringify(exampleSnapshot(new Date(Date.now() - 20 * 60_000))))
    const [bolt, created] = await Promise.all([
      createPartner(db, "Bolt Pay", receiver),
      cliJson(db.url, "operator", "token", "create", "--name", "finance", "--role", "admin"),
      cliJson(db.url, "market", "import", snapshotFile).finally(() => rmSync(snapshotFile, { force: true }))
    ])
    const cluster = new Cluster(db.url, {
      RATELOCK_HEDGING: "manual",
      RATELOCK_RISK_INTERVAL_SECONDS: "1",
      RATELOCK_DAILY_CLOSE: cutFarFromNow()
    })
    teardown.unshift(() => cluster.stop())
    const operatorPort = await freePort()
    const [api] = await Promise.all([
      cluster.startApi("api", { RATELOCK_OPERATOR_PORT: String(operatorPort) }),
      cluster.startWorker("worker")
    ])
    setup = {
      db,
      receiver,
      cluster,
      acme,
      bolt,
      token: created.token,
      apiUrl: api.baseUrl,
      operatorUrl: `http://127.0.0.1:${operatorPort}`
    }
  }, 120_000)

  afterAll(async () => {
    for (const step of teardown) await step().catch(() => undefined)
    teardown = []
  })

  /** A call to the API process's operator listener, as the admin token. */
  const operator = (method: string, path: string, body?: unknown): Promise<Reply> =>
    run(
      request(setup!.operatorUrl, method, path, {
        headers: {
          authorization: `Bearer ${setup!.token}`,
          ...(method === "GET" ? {} : { "Idempotency-Key": newKey() })
        },
        ...(body === undefined ? {} : { body })
      })
    )

  /** A partner's POST to the partner API, under a fresh key. */
  const post = async (partner: Partner, path: string, body?: unknown, expected = 200): Promise<Json> => {
    const reply = await run(
      request(setup!.apiUrl, "POST", path, {
        key: partner.key,
        headers: { "Idempotency-Key": newKey() },
        ...(body === undefined ? {} : { body })
      })
    )
    assert.strictEqual(reply.status, expected, `POST ${path}: ${reply.text}`)
    return reply.json
  }

  /** A lock sold and funded by the customer's transfer, once the worker saw it `active`. */
  const sell = async (partner: Partner, customer: string, quote: Partial<Requests.QuoteRequestBody>) => {
    const quoted = await post(
      partner,
      "/api/v1/fx/quotes",
      Requests.quoteAt(DateTime.nowUnsafe(), { customer_reference_id: customer, ...quote }),
      201
    )
    assert.strictEqual(quoted.status, "created", JSON.stringify(quoted))
    const contract = await post(partner, "/api/v1/fx/contracts", { quote_id: quoted.id }, 201)
    await post(partner, `/api/v1/sandbox/contracts/${contract.id}/fund`, undefined, 202)
    await waitActive(setup!.db, contract.id)
    return { id: contract.id as string, lockedRate: Number(quoted.locked_rate) }
  }

  /** The customer exercises below the locked rate: a payout is owed, in the contract's token, on `chain`. */
  const exercise = (partner: Partner, lock: { id: string; lockedRate: number }, chain: string) =>
    post(partner, "/api/v1/fx/webhooks/inbound", {
      event_type: "contract_exercised",
      fx_contract_id: lock.id,
      executed_at: new Date().toISOString(),
      live_execution_rate: (lock.lockedRate * 0.97).toFixed(4),
      payout_wallet_address: Requests.payoutWallets.ethereum,
      chain
    })

  /** Each contract's status, in the order of `ids`. */
  const statusOf = async (ids: ReadonlyArray<string>) => {
    const rows = await setup!.db.query<{ readonly id: string; readonly status: string }>(
      (sql) => sql`SELECT id::text, status FROM contracts WHERE id::text IN ${sql.in(ids)}`
    )
    return Object.fromEntries(ids.map((id) => [id, rows.find((r) => r.id === id)?.status]))
  }

  it("the P&L between two closes of a day of known activity: exact against the ledger, explained to the unit", {
    timeout: 180_000
  }, async () => {
    const { db, acme, bolt } = setup!
    const days = span()

    const eurc = { chain: "ethereum", settlement_currency: "EURC" } as const
    const eurUsd = {
      direction: "EUR_TO_USD",
      notional_currency: "EUR",
      provider_rate: "1.165",
      market_rate: "1.166"
    } as const
    // the worker closed the sandbox for the cut before its start (production has no fresh market data); two locks
    // sold after it are open at both closes that follow, the explain's theta, delta, gamma, vega… theirs
    await until(
      () => closeRows(db),
      (rows) => rows.some((r) => r.environment === "sandbox" && r.scheduled_for !== null),
      "the worker's close of the sandbox at its start"
    )
    const [policy] = await Promise.all([
      operator("PUT", "/operator/v1/hedge/policies", {
        environment: "sandbox",
        pair: "USD/BRL",
        band: "1000",
        instrument: "spot"
      }),
      sell(acme, "acme-before", { notional_amount: "20000" }),
      sell(bolt, "bolt-before", { ...eurUsd, ...eurc, notional_amount: "30000" })
    ])
    assert.strictEqual(policy.status, 200, policy.text)
    const first = await cliJson(db.url, "finance", "close", "--environment", "sandbox")
    assert.deepInclude(first, { environment: "sandbox", scheduled_for: null })

    // ---- a day of business
    const [held, paidUsdc, forfeited, paidEurc, forward] = await Promise.all([
      sell(acme, "acme-held", { notional_amount: "50000" }),
      sell(acme, "acme-paid", {}),
      sell(acme, "acme-forfeited", { ...eurUsd, ...eurc, contract_type: "forward" }),
      sell(bolt, "bolt-paid", { ...eurUsd, ...eurc, notional_amount: "20000" }),
      sell(bolt, "bolt-forward", { contract_type: "forward" })
    ])
    await Promise.all([
      exercise(acme, paidUsdc, "polygon"),
      exercise(bolt, paidEurc, "ethereum"),
      post(acme, `/api/v1/sandbox/contracts/${forfeited.id}/expire`)
    ])
    // the trader fills half the order the worker placed on the book's USD/BRL delta, 5 centavos above the spot
    const pending = await until(
      () => operator("GET", "/operator/v1/hedge/orders?environment=sandbox&status=pending"),
      (reply) => reply.json?.items?.length === 1,
      "the worker's hedge order"
    )
    const order = pending.json.items[0]
    const fill = await operator("POST", `/operator/v1/hedge/orders/${order.id}/fill`, {
      rate: "5.4620",
      amount: Money.format(Money.roundDown(Money.divide(d(order.amount), d("2")), 2))
    })
    assert.strictEqual(fill.status, 200, fill.text)
    const ended = {
      [held.id]: "active",
      [paidUsdc.id]: "settled",
      [forfeited.id]: "deposit_forfeited",
      [paidEurc.id]: "settled",
      [forward.id]: "active"
    }
    await until(
      () => statusOf(Object.keys(ended)),
      (statuses) => JSON.stringify(statuses) === JSON.stringify(ended),
      "the payouts paid and the deposit forfeited"
    )
    // and the market moved: USD/BRL up 1 %, EUR/USD down 0.5 %, USD/BRL's vols up a point (still 19 minutes old)
    const moved = exampleSnapshot(new Date(Date.now() - 19 * 60_000))
    moved.spot = { ...moved.spot, "USD/BRL": "5.4661", "EUR/USD": "1.1592" }
    moved.vols = {
      ...moved.vols,
      "USD/BRL": moved.vols["USD/BRL"].map((p: Json) => ({ ...p, atm: (Number(p.atm) + 0.01).toFixed(4) }))
    }
    const imported = await operator("POST", "/operator/v1/market/snapshots", JSON.stringify(moved))
    assert.strictEqual(imported.status, 201, imported.text)
    const second = await cliJson(db.url, "finance", "close", "--environment", "sandbox")
    assert.strictEqual(second.previous_close_id, first.id)
    assert.strictEqual(second.snapshot_id, imported.json.snapshot_id)

    // ---- the report, by the CLI and the route, and each view's CSV; production's close tried meanwhile
    const written = await closeRows(db)
    const query = ["--environment", "sandbox", "--from", days.from, "--to", days.to]
    const [report, byPartner, route, { items: closes }, refused, viaRoute, ...csvs] = await Promise.all([
      cliJson(db.url, "finance", "pnl", ...query),
      cliJson(db.url, "finance", "pnl", ...query, "--by", "partner"),
      operator("GET", `/operator/v1/finance/pnl?environment=sandbox&from=${days.from}&to=${days.to}`),
      cliJson(db.url, "finance", "closes", ...query),
      cli(db.url, "finance", "close", "--environment", "production"),
      operator("POST", "/operator/v1/finance/closes", { environment: "production" }),
      ...(["day", "pair", "partner"] as const).map((by) => cli(db.url, "finance", "pnl", ...query, "--by", by, "--csv"))
    ])
    assert.strictEqual(route.status, 200, route.text)
    assert.deepStrictEqual(route.json, report, "GET /operator/v1/finance/pnl is what finance pnl --json prints")
    assert.deepStrictEqual({ ...byPartner, by: "day" }, report, "--by names the rows, every view is in the JSON")
    assert.deepStrictEqual(
      closes.slice(-2).map((c: Json) => c.id),
      [first.id, second.id]
    )
    const periods = closes.filter((c: Json) => c.pnl !== null)
    assert.strictEqual(report.periods, periods.length)

    // every realised line against the ledger's sums, period by period (EURC at the rate of the close ending it)
    const expected = emptyExpected()
    const activity = emptyExpected()
    for (const close of periods) {
      const period = { from: close.pnl.from, to: close.pnl.to, eurUsd: close.usd_per.EUR }
      await ledgerSums(db, period, expected)
      if (close.id === second.id) await ledgerSums(db, period, activity)
    }
    // the day's business is what happened between the two closes: both tokens, every kind of flow
    assert.deepStrictEqual(
      [...activity.tokens.entries()]
        .map(([token, r]) => [
          token,
          Money.isPositive(r.premiums),
          Money.isPositive(r.forfeits),
          Money.isNegative(r.payouts)
        ])
        .sort(),
      [
        ["EURC", true, true, true],
        ["USDC", true, false, true]
      ]
    )
    assert.deepStrictEqual([...activity.partners.keys()].sort(), [acme.partnerId, bolt.partnerId].sort())
    const all = partnerTotal(expected.pairs)
    sameRealised({ ...report.totals, locks_sold: all.sold.size }, all, "totals")
    exact(report.totals.hedge_realised, Money.zero, "hedge_realised: the one fill opened the position")
    for (const pair of report.pairs) {
      sameRealised(
        { ...pair.usd, locks_sold: pair.locks_sold },
        expected.pairs.get(pair.pair) ?? noneRealised(),
        pair.pair
      )
    }
    assert.includeMembers(
      report.pairs.map((p: Json) => p.pair),
      [...expected.pairs.keys()]
    )
    assert.deepStrictEqual(
      report.tokens.map((t: Json) => t.token),
      [...expected.tokens.keys()].sort()
    )
    for (const token of report.tokens) {
      const ledger = expected.tokens.get(token.token)!
      exact(token.premiums, ledger.premiums, `${token.token} premiums`)
      exact(token.forfeits, ledger.forfeits, `${token.token} forfeits`)
      exact(token.payouts, ledger.payouts, `${token.token} payouts`)
    }
    assert.deepStrictEqual(
      report.partners.map((p: Json) => p.partner_id),
      [...expected.partners.keys()].sort()
    )
    for (const partner of report.partners) {
      const pairs = expected.partners.get(partner.partner_id)!
      const total = partnerTotal(pairs)
      sameRealised(partner, total, partner.partner_id)
      exact(partner.realised, sum([total.premiums, total.forfeits, total.payouts]), `${partner.partner_id} realised`)
      assert.deepStrictEqual(
        partner.pairs.map((p: Json) => p.pair),
        [...pairs.keys()].sort()
      )
      for (const p of partner.pairs) sameRealised(p, pairs.get(p.pair)!, `${partner.partner_id} ${p.pair}`)
    }
    // the second close's own period: the day's activity alone
    const day = partnerTotal(activity.pairs)
    sameRealised({ ...second.pnl.usd, locks_sold: day.sold.size }, day, "the period between the two closes")
    assert.deepStrictEqual([day.sold.size, all.sold.size], [5, 7], "locks sold between the closes, and since the first")
    // the market moved between the closes: the locks open at both explain it
    const explained = (pair: string) => second.pnl.pairs.find((p: Json) => p.pair === pair).usd
    for (const name of ["delta", "gamma", "vega", "fx_translation"]) {
      assert.isFalse(Money.isZero(d(explained("USD/BRL")[name])), `USD/BRL's ${name} between the closes`)
    }
    assert.isFalse(Money.isZero(d(explained("EUR/USD").delta)), "EUR/USD's delta between the closes")

    // each close's ledger balances: the three ledgers' sums at its instant
    for (const close of [first, second]) {
      assert.deepStrictEqual(
        close.balances
          .map((b: Json) => [b.ledger, b.account, b.currency, Money.format(d(b.balance))])
          .sort((a: Array<string>, b: Array<string>) => (a.join(" ") < b.join(" ") ? -1 : 1)),
        await trialBalance(db, close.closed_at),
        `the balances of ${close.id}`
      )
    }
    assert.isAbove(second.balances.length, first.balances.length, "the day booked accounts the first close had not")

    // the hedge: the fill is the USD/BRL position, and its mark is the period's hedges line
    const hedged = second.pairs.find((p: Json) => p.pair === "USD/BRL")
    const filled = d(fill.json.fill_amount)
    exact(hedged.hedge_position, order.side === "buy" ? filled : Money.subtract(Money.zero, filled), "the position")
    assert.isFalse(Money.isZero(d(hedged.hedge_mark_usd)), "the fill is marked")
    const usdBrl = second.pnl.pairs.find((p: Json) => p.pair === "USD/BRL")
    const before = first.pairs.find((p: Json) => p.pair === "USD/BRL")
    exact(usdBrl.usd.hedges, Money.subtract(d(hedged.hedge_mark_usd), d(before?.hedge_mark_usd ?? "0")), "hedges")

    // the identities, to the unit: the totals, every day, every pair (and the pair's lines in its quote currency)
    identities(report.totals, "totals")
    for (const row of report.days) identities(row.lines, row.date)
    for (const pair of report.pairs) {
      identities(pair.usd, pair.pair)
      exact(
        pair.in_quote.total,
        Money.sum(sum(PeriodPnl.explainedLines.map((name) => d(pair.in_quote[name]))), d(pair.in_quote.unexplained)),
        `${pair.pair} in ${pair.quote}: total = explained + unexplained`
      )
    }
    exact(
      report.days.at(-1).cumulative_total,
      sum(report.days.map((row: Json) => d(row.lines.total))),
      "the days add up"
    )

    // each view's CSV: a row per entry of the JSON, every figure as the JSON has it
    const [dayCsv, pairCsv, partnerCsv] = csvs.map((result) => {
      assert.strictEqual(result.code, 0, result.stderr)
      return csvRows(result.stdout)
    })
    assert.deepStrictEqual(
      dayCsv,
      report.days.map((row: Json) =>
        Object.fromEntries(
          Object.keys(dayCsv![0]!).map((column) => [
            column,
            column === "date" ? row.date : column === "cumulative" ? row.cumulative_total : row.lines[column]
          ])
        )
      )
    )
    assert.includeMembers(Object.keys(dayCsv![0]!), ["date", "total", "realised", "unrealised", "unexplained"])
    assert.deepStrictEqual(
      pairCsv,
      report.pairs.map((p: Json) =>
        Object.fromEntries(
          Object.keys(pairCsv![0]!).map((column) => [
            column,
            ["pair", "quote"].includes(column)
              ? p[column]
              : ["locks_sold", "locks_settled"].includes(column)
                ? String(p[column])
                : column.startsWith("quote_")
                  ? p.in_quote[column.slice("quote_".length)]
                  : p.usd[column]
          ])
        )
      )
    )
    assert.deepStrictEqual(
      partnerCsv,
      report.partners.map((p: Json) => ({
        partner_id: p.partner_id,
        locks_sold: String(p.locks_sold),
        premiums: p.premiums,
        forfeits: p.forfeits,
        payouts: p.payouts,
        realised: p.realised
      }))
    )
    for (const row of partnerCsv!) {
      const total = partnerTotal(expected.partners.get(row.partner_id!)!)
      sameRealised({ ...row, locks_sold: Number(row.locks_sold) }, total, `CSV ${row.partner_id}`)
    }

    // ---- production has no fresh market data: a close is refused, and nothing is written
    assert.strictEqual(refused.code, 1, refused.stdout)
    assert.include(refused.stderr, "no market data in force for production")
    assert.strictEqual(viaRoute.status, 409, viaRoute.text)
    assert.strictEqual(viaRoute.json.error.code, "no_market_data")
    assert.deepStrictEqual(await cliJson(db.url, "finance", "closes", "--environment", "production"), { items: [] })
    assert.deepStrictEqual(await closeRows(db), written, "no close written")
  })

  it("after a real close, an UPDATE or a DELETE of a close or its locks is refused by the database", {
    timeout: 60_000
  }, async () => {
    const { db } = setup!
    const close = await cliJson(db.url, "finance", "close", "--environment", "sandbox")
    const state = () =>
      db.query<{ readonly id: string; readonly summary: string; readonly locks: string }>(
        (sql) => sql`SELECT d.id, md5(d.summary::text || d.snapshot::text) AS summary,
            (SELECT md5(coalesce(string_agg(l::text, ',' ORDER BY l.contract_id), '')) FROM daily_close_locks l
              WHERE l.close_id = d.id) AS locks
          FROM daily_closes d ORDER BY d.id`
      )
    const before = await state()
    assert.include(
      before.map((r) => r.id),
      close.id
    )
    const [{ n }] = (await db.query<{ readonly n: number }>(
      (sql) => sql`SELECT count(*)::int AS n FROM daily_close_locks WHERE close_id = ${close.id}`
    )) as [{ readonly n: number }]
    assert.isAbove(n, 0, "the close has locks")
    const statements = [
      `UPDATE daily_closes SET snapshot_id = NULL WHERE id = '${close.id}'`,
      `UPDATE daily_closes SET summary = '{}'::jsonb`,
      `DELETE FROM daily_closes WHERE id = '${close.id}'`,
      `UPDATE daily_close_locks SET mtm = 0 WHERE close_id = '${close.id}'`,
      `DELETE FROM daily_close_locks WHERE close_id = '${close.id}'`,
      "TRUNCATE daily_close_locks"
    ]
    for (const statement of statements) {
      const error = await db
        .query((sql) => sql.unsafe(statement))
        .then(
          () => undefined,
          (e: unknown) => e
        )
      assert.isDefined(error, `${statement}: not refused`)
      const cause = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).cause ?? "")
      assert.match(
        cause,
        /a daily close is immutable: (UPDATE|DELETE|TRUNCATE) of daily_close(s|_locks) is refused/,
        statement
      )
    }
    assert.deepStrictEqual(await state(), before, "nothing changed")
  })
})
